/* Modules loaded at run time are walked without any registration or
   rescan: libgorc finds an address's module during the walk
   (_dl_find_object).  Every walk below is the first one through its
   module and must be complete:

   A. dlopen of libgorc-dlmany.so (support/dl-many.c, built by the
      dg-additional-options line below); dl_many_call calls gorc_backtrace
      from the library: the trace starts in the library and reaches main.
   B. dlopen of libgorc-dltest.so; its code calls back into ours, which
      calls gorc_backtrace: the library's frames and main.
   C. the same with gorc_cursor_init / gorc_cursor_step (a copy of
      libgorc-dltest.so: another module).
   D. dlmopen (LM_ID_BASE, ...) of a copy of libgorc-dlmany.so: as A; and
      dlmopen (LM_ID_NEWLM, ...) of another (_dl_find_object knows every
      namespace): as A.
   E. a call into another copy of libgorc-dlmany.so, single-stepped
      (support/rt-step.h): at every instruction, in the library and out,
      the SIGTRAP handler's gorc_backtrace_ucontext must equal nongnu
      libunwind's walk.  */
/* { dg-do run } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime dlopen } */
/* { dg-additional-options "[exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin -DDL_MANY_PAD=65536 [file dirname $prog]/support/dl-many.c -o $::gorc_dltest_dir/libgorc-dlmany64k.so]" } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-step.h"
#include "support/rt-trace.h"

#define DEPTH 6
#define MAX 128

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);
typedef int (*bt_fn) (void **, int);
typedef int (*dl_call_fn) (bt_fn fn, void **ips, int max);

static void *main_ra;   /* the return address into main of run_tests */

/* ---- library code ranges ---- */

/* The code range of the module of HANDLE (its ELF header and program
   headers are mapped at its load base, in any namespace).  */
static struct rt_range
lib_range (void *handle)
{
  struct link_map *lm;
  CHECK (dlinfo (handle, RTLD_DI_LINKMAP, &lm) == 0, 0);
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *) lm->l_addr;
  CHECK (memcmp (eh->e_ident, ELFMAG, SELFMAG) == 0, 0);
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *) (lm->l_addr + eh->e_phoff);
  struct rt_range r = rt_code_range (lm->l_addr, ph, eh->e_phnum);
  CHECK (r.hi > r.lo, 0);
  return r;
}

static int
count_in (void **ips, int n, struct rt_range r)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    k += (uintptr_t) ips[i] > r.lo && (uintptr_t) ips[i] <= r.hi;
  return k;
}

static int
has (void **ips, int n, void *a)
{
  for (int i = 0; i < n; i++)
    if (ips[i] == a)
      return 1;
  return 0;
}

/* ---- copies of the libraries, so that each load is a new module ----
   Each copy is removed as soon as it is loaded.  */

static char tmpdir[] = "/tmp/gorc-modules-XXXXXX";

static void *
load_copy (void *handle, const char *tag, Lmid_t ns)
{
  struct link_map *lm;
  char path[256];
  CHECK (dlinfo (handle, RTLD_DI_LINKMAP, &lm) == 0, 0);
  int in = open (lm->l_name, O_RDONLY);
  CHECK (in >= 0, 0);
  snprintf (path, sizeof path, "%s/%s.so", tmpdir, tag);
  int out = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  CHECK (out >= 0, 0);
  char buf[65536];
  ssize_t k;
  while ((k = read (in, buf, sizeof buf)) > 0)
    CHECK (write (out, buf, k) == k, k);
  CHECK (k == 0, k);
  close (in);
  close (out);
  void *h = dlmopen (ns, path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    rt_puts (dlerror ());
    FAIL (" (dlmopen of a copy)", ns);
  }
  unlink (path);
  CHECK (h != handle, 0);
  return h;
}

/* ---- A, D: gorc_backtrace called from library code ---- */

__attribute__((noinline, noclone)) static void
from_library (void *h, const char *what)
{
  void *ips[MAX];
  dl_call_fn call = (dl_call_fn) dlsym (h, "dl_many_call");
  CHECK (call != NULL, 0);
  struct rt_range r = lib_range (h);
  int rc = call (gorc_backtrace, ips, MAX);
  if (rc < 0 || count_in (ips, 1, r) != 1 || !has (ips, rc, main_ra)) {
    rt_puts (what);
    rt_puts (": the walk from inside the library, rc ");
    rt_putn (rc);
    rt_puts (", frames ");
    rt_putn (gorc_backtrace_count ());
    rt_puts ("\n");
    FAIL ("the first walk from a module loaded at run time", rc);
  }
}

/* ---- B, C: a callback from library code walks ---- */

struct cb_arg {
  struct rt_range r;
  int use_cursor;
  int rc, frames, in_lib, main_seen;
};

static int
walk_cb (void *argp)
{
  struct cb_arg *a = argp;
  void *ips[MAX];
  int n;
  if (a->use_cursor) {
    struct gorc_cursor c;
    int rc = gorc_cursor_init (&c);
    n = 0;
    if (rc == 0) {
      ips[n++] = (void *) c.ip;
      while (n < MAX && (rc = gorc_cursor_step (&c)) == 1)
        ips[n++] = (void *) c.ip;
    }
    a->rc = rc;
  } else {
    a->rc = gorc_backtrace (ips, MAX);
    n = gorc_backtrace_count ();
  }
  a->frames = n;
  a->in_lib = count_in (ips, n, a->r);
  a->main_seen = has (ips, n, main_ra);
  return 1;
}

__attribute__((noinline, noclone)) static void
callback_walk (void *h, int use_cursor, const char *what)
{
  dl_work_fn work = (dl_work_fn) dlsym (h, "dl_work");
  CHECK (work != NULL, 0);
  struct cb_arg a;
  memset (&a, 0, sizeof a);
  a.r = lib_range (h);
  a.use_cursor = use_cursor;
  CHECK (work (DEPTH, walk_cb, &a) >= 1, 0);
  if (a.rc < 0 || a.in_lib < DEPTH + 1 || !a.main_seen) {
    rt_puts (what);
    rt_puts (": rc ");
    rt_putn (a.rc);
    rt_puts (", frames ");
    rt_putn (a.frames);
    rt_puts (", in the library ");
    rt_putn (a.in_lib);
    rt_puts (", main ");
    rt_putn (a.main_seen);
    rt_puts ("\n");
    FAIL ("the first walk through a module loaded at run time", a.rc);
  }
}

/* ---- E: every instruction of a call into a new module ---- */

static struct rt_range stepped_lib;
static long steps_in_lib;
static dl_work_fn e_work;

static int
in_stepped_lib (uintptr_t a)
{
  return a >= stepped_lib.lo && a < stepped_lib.hi;
}

static void
on_step (ucontext_t *uc)
{
  void *ours[MAX], *theirs[MAX];
  int rc;
  if (rt_ucontext_walks_differ (uc, ours, theirs, MAX, &rc, "E: a step", in_stepped_lib, "(lib)"))
    FAIL ("a walk differs from libunwind's", rc);
  steps_in_lib += in_stepped_lib ((uintptr_t) uc->uc_mcontext.gregs[REG_RIP]);
}

static int
nothing_cb (void *arg)
{
  (void) arg;
  return 1;
}

static void
call_in (void *arg)
{
  (void) arg;
  CHECK (e_work (3, nothing_cb, NULL) >= 1, 0);
}

__attribute__((noinline, noclone)) static void
stepped (void *many)
{
  void *h = load_copy (many, "stepped", LM_ID_BASE);
  e_work = (dl_work_fn) dlsym (h, "dl_many_work");
  CHECK (e_work != NULL, 0);
  stepped_lib = lib_range (h);
  long steps = rt_step_run (call_in, NULL, on_step);
  printf ("E: %ld steps, %ld in the library, every walk equal to libunwind's\n", steps,
          steps_in_lib);
  CHECK (steps_in_lib > 0, steps_in_lib);
}

__attribute__((noinline, noclone)) static void
run_tests (void)
{
  main_ra = __builtin_return_address (0);
  CHECK (mkdtemp (tmpdir) != NULL, 0);

  /* A */
  void *many = dlopen ("libgorc-dlmany64k.so", RTLD_NOW | RTLD_LOCAL);
  if (!many) {
    rt_puts (dlerror ());
    FAIL (" (dlopen libgorc-dlmany64k.so)", 0);
  }
  from_library (many, "A (dlopen)");

  /* B */
  void *dt = dlopen ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
  CHECK (dt != NULL, 0);
  callback_walk (dt, 0, "B (dlopen, gorc_backtrace)");

  /* C */
  callback_walk (load_copy (dt, "dltest2", LM_ID_BASE), 1, "C (dlopen, gorc_cursor_init)");

  /* D */
  from_library (load_copy (many, "many-base", LM_ID_BASE), "D (dlmopen LM_ID_BASE)");
  from_library (load_copy (many, "many-newlm", LM_ID_NEWLM), "D (dlmopen LM_ID_NEWLM)");

  /* E */
  stepped (many);
  rmdir (tmpdir);
}

int
main (void)
{
  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  run_tests ();
  return 0;
}
