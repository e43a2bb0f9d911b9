/* libgorc's memory does not grow with dlopen/dlclose churn (it keeps
   nothing per module but one of a fixed number of slots, and a PC cache
   of fixed size).  libgorc-dlmany.so (built from support/dl-many.c by the
   dg-additional-options line below, with the plugin) has 4 MiB of code;
   it is dlopened, unwound from inside and dlclosed 2000 times, every
   other round libgorc-dltest.so (a small one) instead.  Each walk from
   inside a library must show the library's frames and reach main.  The
   process's RSS must not grow by more than RSS_SLACK after the first 100
   rounds (a runtime that kept a table per module, as libgorc v1 did,
   would grow by about 256 KiB per big round; it is checked every 100
   rounds, so a leak fails fast), and neither may its number of
   mappings.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */
/* { dg-additional-options "[exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin [file dirname $prog]/support/dl-many.c -o $::gorc_dltest_dir/libgorc-dlmany.so]" } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include "support/rt-memory.h"

#define ROUNDS 2000
#define DEPTH 10
#define RSS_SLACK (4L << 20)
#define MAPS_SLACK 8

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

struct expect {
  uintptr_t lo, hi;     /* the library's executable segment */
  void *main_ra;
  int walks;
};

static long
rss_bytes (void)
{
  long vsz, rss;
  rt_statm (&vsz, &rss);
  return rss;
}

/* Called at the bottom of the library's recursion.  */
static int
deep (void *arg)
{
  struct expect *x = arg;
  void *ips[64];
  int rc = gorc_backtrace (ips, 64);
  int in_lib = 0, main_seen = 0;
  CHECK (rc >= 0, rc);
  for (int i = 0; i < rc; i++) {
    uintptr_t a = (uintptr_t) ips[i];
    in_lib += a > x->lo && a <= x->hi;
    main_seen |= ips[i] == x->main_ra;
  }
  /* DEPTH + 1 levels and as many dl_*_work frames (dl-lib.c: DEPTH + 1
     dl_level frames and dl_work, which may be a tail call).  */
  CHECK (in_lib >= DEPTH + 1, in_lib);
  CHECK (main_seen, rc);
  x->walks++;
  return 1;
}

static int
find_lib (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  struct expect *x = data;
  const char *n = info->dlpi_name;
  if (!n || (!strstr (n, "libgorc-dlmany.so") && !strstr (n, "libgorc-dltest.so")))
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
      x->lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      x->hi = x->lo + info->dlpi_phdr[i].p_memsz;
    }
  return 1;
}

__attribute__((noinline, noclone)) static void
rounds (void)
{
  struct expect x = { 0, 0, __builtin_return_address (0), 0 };
  long rss0 = 0;
  int maps0 = 0;
  for (int i = 0; i < ROUNDS; i++) {
    int small = i % 2 == 1;
    void *h = dlopen (small ? "libgorc-dltest.so" : "libgorc-dlmany.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      rt_puts (dlerror ());
      FAIL (" (dlopen), round", i);
    }
    dl_work_fn work = (dl_work_fn) dlsym (h, small ? "dl_work" : "dl_many_work");
    CHECK (work != NULL, i);
    x.lo = x.hi = 0;
    dl_iterate_phdr (find_lib, &x);
    CHECK (x.hi > x.lo, i);
    if (!small)
      CHECK (x.hi - x.lo >= (4u << 20), x.hi - x.lo);
    CHECK (work (DEPTH, deep, &x) >= 1, i);
    CHECK (x.walks == i + 1, i);
    CHECK (dlclose (h) == 0, i);
    /* Unloaded: a walk from here is still fine.  */
    void *ips[64];
    CHECK (gorc_backtrace (ips, 64) >= 2, i);
    if (i + 1 == 100) {
      rss0 = rss_bytes ();
      maps0 = rt_maps_lines ();
    } else if ((i + 1) % 100 == 0) {
      long grown = rss_bytes () - rss0;
      if (grown > RSS_SLACK) {
        printf ("after %d rounds RSS grew by %ld KiB since round 100\n", i + 1, grown >> 10);
        FAIL ("RSS grew too much (KiB)", grown >> 10);
      }
      CHECK (rt_maps_lines () <= maps0 + MAPS_SLACK, rt_maps_lines () - maps0);
    }
  }
  printf ("dlclose-memory: %d rounds; since round 100 RSS %+ld KiB, mappings %+d\n",
          ROUNDS, (rss_bytes () - rss0) >> 10, rt_maps_lines () - maps0);
}

int
main (void)
{
  rounds ();
  return 0;
}
