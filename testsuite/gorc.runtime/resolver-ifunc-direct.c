/* gorc_backtrace and gorc_cursor_init called (through a hook) from an IFUNC
   resolver that glibc's lazy-binding resolver runs: the IFUNC resolver
   (support/dl-ifunc.c, libgorc-dlifunc.so, built with the plugin) has gorc
   records, which do not describe rbx; _dl_fixup above it saves rbx in its
   .eh_frame, and _dl_runtime_resolve_* above that has CFA = rbx + 16.  The
   cursor walk (gorc_cursor_init, gorc_cursor_step) and gorc_backtrace
   must give the same frames, and both must reach main through the
   resolver.  The deterministic twin of resolver-ifunc.c.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-additional-options "-Wl,-z,lazy" } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "[exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin [file dirname $prog]/support/dl-ifunc.c -o $::gorc_dltest_dir/libgorc-dlifunc.so] -Wl,--no-as-needed -L$::gorc_dltest_dir -Wl,-rpath,$::gorc_dltest_dir -lgorc-dlifunc" } */

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <link.h>
#include "support/rt-test.h"

#define MAX 64

extern void (*dl_ifunc_hook) (void);
int dl_ifunc_hooked (int);

static void *main_ra;
static void *bt[MAX], *cur[MAX];
static int bt_rc, bt_n, cur_rc, cur_n;
static uintptr_t ldso_lo, ldso_hi;

static void
hook (void)
{
  struct gorc_cursor c;
  bt_rc = gorc_backtrace (bt, MAX);
  bt_n = gorc_backtrace_count ();
  cur_rc = gorc_cursor_init (&c);
  if (cur_rc == 0) {
    cur[cur_n++] = (void *) c.ip;
    while (cur_n < MAX && (cur_rc = gorc_cursor_step (&c)) == 1)
      cur[cur_n++] = (void *) c.ip;
  }
}

static int
find_ldso (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (info->dlpi_addr != getauxval (AT_BASE))
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
      ldso_lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      ldso_hi = ldso_lo + info->dlpi_phdr[i].p_memsz;
    }
  return 1;
}

static void
dump (const char *what, void **ips, int n)
{
  printf ("%s", what);
  for (int i = 0; i < n; i++)
    printf (" %p%s", ips[i],
            (uintptr_t) ips[i] >= ldso_lo && (uintptr_t) ips[i] < ldso_hi ? "(ld.so)" : "");
  printf ("\n");
}

__attribute__((noinline, noclone)) static int
first_call (void)
{
  main_ra = __builtin_return_address (0);
  int r = dl_ifunc_hooked (1);   /* lazily bound: the IFUNC resolver runs */
  __asm__ volatile ("" ::: "memory");
  return r;
}

int
main (int argc, char **argv)
{
  (void) argc;
  rt_run_lazily_bound (argv);   /* the resolver is the subject */
  dl_iterate_phdr (find_ldso, NULL);
  CHECK (ldso_hi > ldso_lo, 0);
  dl_ifunc_hook = hook;
  CHECK (first_call () == 2, 0);
  printf ("gorc_backtrace rc %d (%s), %d frames; cursor walk %d frames, last step %d\n",
          bt_rc, bt_rc < 0 ? gorc_strerror (bt_rc) : "complete", bt_n, cur_n, cur_rc);
  dump ("  gorc_backtrace:", bt, bt_n);
  dump ("  cursor walk:   ", cur, cur_n);
  fflush (stdout);
  /* The walks start in the hook (two call sites), then the same frames:
     the IFUNC resolver, ...  */
  CHECK (cur_n > 1, cur_rc);
  CHECK (bt_n > 1 && bt[1] == cur[1], bt_n);
  /* ... ld.so (_dl_fixup, the lazy-binding resolver) ...  */
  int through = 0, main_bt = 0, main_cur = 0;
  for (int i = 1; i < cur_n; i++)
    through |= (uintptr_t) cur[i - 1] >= ldso_lo && (uintptr_t) cur[i - 1] < ldso_hi
               && !((uintptr_t) cur[i] >= ldso_lo && (uintptr_t) cur[i] < ldso_hi);
  for (int i = 0; i < cur_n; i++)
    main_cur |= cur[i] == main_ra;
  for (int i = 0; i < bt_n; i++)
    main_bt |= bt[i] == main_ra;
  CHECK (through, 0);
  /* ... and reach main, the same way.  */
  CHECK (main_cur, cur_rc);
  CHECK (main_bt, bt_rc);
  CHECK (bt_rc >= 0 && cur_rc == 0 && bt_n == cur_n, bt_rc);
  for (int i = 1; i < bt_n; i++)
    CHECK (bt[i] == cur[i], i);
  return 0;
}
