/* Modules loaded behind libgorc's back (libgorc interposes dlopen and
   dlclose only): libc's own dlopen (dlsym (RTLD_NEXT, "dlopen")), dlmopen
   into the base namespace and into a new one.  libgorc finds them by
   rescanning: when gorc_backtrace's first step misses (its caller is in
   an unknown module) it rescans and walks again; any walk that meets an
   unknown address makes the next gorc_backtrace / gorc_cursor_init
   rescan.

   A. libc's dlopen of libgorc-dlmany.so (support/dl-many.c, built by the
      dg-additional-options line below); dl_many_call calls
      gorc_backtrace from the library: the trace must be complete, start
      in the library and reach main, the first time.
   B. libc's dlopen of libgorc-dltest.so; its code calls back into ours,
      which calls gorc_backtrace (the first step is known, a later one is
      not): the first walk may stop with -GORC_ENORECORD, the second must
      be complete, with the library's frames.
   C. the same with gorc_cursor_init for the second walk (a copy of
      libgorc-dltest.so).
   D. dlmopen (LM_ID_BASE, ...) of a copy of libgorc-dlmany.so: as A.
      dlmopen (LM_ID_NEWLM, ...) of another: glibc's dl_iterate_phdr does
      not show other namespaces, so that walk may only stop cleanly.
   E. a thread runs code of another copy of libgorc-dlmany.so, loaded by
      libc's dlopen, while SIGPROF samples it (gorc_backtrace_ucontext and
      libunwind).  Samples may fail with -GORC_ENORECORD until the main
      thread calls gorc_backtrace once; from then on every sample must be
      complete and equal to libunwind's, until 300 samples had frames of
      the library.  */
/* { dg-do run } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime dlopen } */
/* { dg-additional-options "[exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin [file dirname $prog]/support/dl-many.c -o $::gorc_dltest_dir/libgorc-dlmany.so]" } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-sampler.h"
#include "support/rt-trace.h"

#define DEPTH 6
#define MAX 128

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);
typedef int (*bt_fn) (void **, int);
typedef int (*dl_call_fn) (bt_fn fn, void **ips, int max);
typedef void (*dl_spin_fn) (unsigned long n);
typedef void *(*dlopen_fn) (const char *, int);

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
   Each copy is removed as soon as it is loaded (drop_copies), so that a
   failing run leaves little behind.  */

static char tmpdir[] = "/tmp/gorc-rescan-XXXXXX";
static char copies[8][256];
static int n_copies;

static const char *
copy_of (void *handle, const char *tag)
{
  struct link_map *lm;
  CHECK (dlinfo (handle, RTLD_DI_LINKMAP, &lm) == 0, 0);
  int in = open (lm->l_name, O_RDONLY);
  CHECK (in >= 0, 0);
  CHECK (n_copies < 8, n_copies);
  char *path = copies[n_copies++];
  snprintf (path, 256, "%s/%s.so", tmpdir, tag);
  int out = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  CHECK (out >= 0, 0);
  char buf[65536];
  ssize_t k;
  while ((k = read (in, buf, sizeof buf)) > 0)
    CHECK (write (out, buf, k) == k, k);
  CHECK (k == 0, k);
  close (in);
  close (out);
  return path;
}

static void
drop_copies (void)
{
  for (int i = 0; i < n_copies; i++)
    unlink (copies[i]);
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
    FAIL ("walk from a module loaded behind libgorc's back", rc);
  }
}

/* dlmopen (LM_ID_NEWLM): glibc's dl_iterate_phdr lists only the modules
   of the caller's namespace, so libgorc (which scans with it) cannot see
   this module, and neither can libunwind.  The walk must stop cleanly at
   its first step; should libgorc learn to find such modules, the trace
   must be complete.  */
__attribute__((noinline, noclone)) static void
newlm (void *h)
{
  void *ips[MAX];
  dl_call_fn call = (dl_call_fn) dlsym (h, "dl_many_call");
  CHECK (call != NULL, 0);
  struct rt_range r = lib_range (h);
  int rc = call (gorc_backtrace, ips, MAX);
  int n = gorc_backtrace_count ();
  CHECK (n >= 1 && count_in (ips, 1, r) == 1, n);
  if (rc >= 0)
    CHECK (has (ips, rc, main_ra), rc);
  else
    CHECK (rc == -GORC_ENORECORD && n == 1, rc);
  printf ("D: dlmopen (LM_ID_NEWLM): %s\n",
          rc >= 0 ? "walked through" : "not found (-GORC_ENORECORD at the first step)");
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
callback_walks (void *h, int use_cursor, const char *what)
{
  dl_work_fn work = (dl_work_fn) dlsym (h, "dl_work");
  CHECK (work != NULL, 0);
  struct cb_arg a;
  memset (&a, 0, sizeof a);
  a.r = lib_range (h);
  /* The first walk: complete, or stopped at the library's first frame.  */
  CHECK (work (DEPTH, walk_cb, &a) >= 1, 0);
  if (a.rc < 0) {
    CHECK (a.rc == -GORC_ENORECORD, a.rc);
    CHECK (a.frames >= 2 && a.in_lib <= 1, a.frames);
  }
  /* The second: complete.  */
  a.use_cursor = use_cursor;
  CHECK (work (DEPTH, walk_cb, &a) >= 1, 0);
  if (a.rc < 0 || a.in_lib < DEPTH + 1 || !a.main_seen) {
    rt_puts (what);
    rt_puts (": the second walk: rc ");
    rt_putn (a.rc);
    rt_puts (", frames ");
    rt_putn (a.frames);
    rt_puts (", in the library ");
    rt_putn (a.in_lib);
    rt_puts (", main ");
    rt_putn (a.main_seen);
    rt_puts ("\n");
    FAIL ("no rescan after a walk met an unknown module", a.rc);
  }
}

/* ---- E: sampling code of a module loaded behind libgorc's back ---- */

static struct rt_range sampled_lib;
static atomic_int phase;          /* 1: before the rescan, 2: after */
static atomic_int misses1, hits1, samples2, lib_samples2, stop_worker;
static dl_work_fn e_work;
static dl_spin_fn e_spin;

/* Marks the library in rt_dump's lines, as count_in counts.  */
static int
in_sampled_lib (uintptr_t a)
{
  void *ip = (void *) a;
  return count_in (&ip, 1, sampled_lib);
}

static void
on_sigprof (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  void *ours[MAX];
  int ph = atomic_load (&phase);
  int rc = gorc_backtrace_ucontext (uc, ours, MAX);
  int n = gorc_backtrace_count ();
  CHECK (n >= 1 && n <= MAX, n);
  if (ph == 1) {
    CHECK (rc >= 0 || rc == -GORC_ENORECORD, rc);
    atomic_fetch_add (rc < 0 ? &misses1 : &hits1, 1);
    return;
  }
  if (ph != 2)
    return;
  rt_check_sample_after_rescan (uc, rc, ours, n, MAX, in_sampled_lib, "(lib)");
  atomic_fetch_add (&samples2, 1);
  if (count_in (ours, n, sampled_lib) > 0)
    atomic_fetch_add (&lib_samples2, 1);
}

static int
spin_cb (void *arg)
{
  (void) arg;
  e_spin (2000);
  return 1;
}

static void *
worker_main (void *arg)
{
  (void) arg;
  while (!atomic_load (&stop_worker)) {
    e_work (3, spin_cb, NULL);
    e_spin (2000);
  }
  return NULL;
}

__attribute__((noinline, noclone)) static void
sampled (dlopen_fn real_dlopen, void *many)
{
  void *h = real_dlopen (copy_of (many, "sampled"), RTLD_NOW | RTLD_LOCAL);
  drop_copies ();
  rmdir (tmpdir);
  CHECK (h != NULL, 0);
  e_work = (dl_work_fn) dlsym (h, "dl_many_work");
  e_spin = (dl_spin_fn) dlsym (h, "dl_many_spin");
  CHECK (e_work && e_spin, 0);
  sampled_lib = lib_range (h);

  rt_on_sigprof (on_sigprof);
  atomic_store (&phase, 1);
  pthread_t worker;
  struct rt_sampler sampler;
  CHECK (pthread_create (&worker, NULL, worker_main, NULL) == 0, 0);
  rt_sampler_start (&sampler, worker, 30000);
  rt_wait_for (&misses1, 20, "before the rescan");
  /* A walk in normal context: it rescans (the samples asked for it).  */
  void *ips[MAX];
  CHECK (gorc_backtrace (ips, MAX) >= 2, 0);
  atomic_store (&phase, 2);
  rt_wait_for (&lib_samples2, 300, "after the rescan");
  atomic_store (&stop_worker, 1);
  rt_sampler_stop (&sampler);
  pthread_join (worker, NULL);
  signal (SIGPROF, SIG_IGN);
  printf ("E: %d samples missed and %d walked before the rescan, %d walked after "
          "(%d with frames of the library)\n", atomic_load (&misses1),
          atomic_load (&hits1), atomic_load (&samples2), atomic_load (&lib_samples2));
}

__attribute__((noinline, noclone)) static void
run_tests (void)
{
  main_ra = __builtin_return_address (0);
  CHECK (mkdtemp (tmpdir) != NULL, 0);
  dlopen_fn real_dlopen = (dlopen_fn) dlsym (RTLD_NEXT, "dlopen");
  CHECK (real_dlopen != NULL && real_dlopen != (dlopen_fn) dlopen, 0);

  /* A */
  void *many = real_dlopen ("libgorc-dlmany.so", RTLD_NOW | RTLD_LOCAL);
  if (!many) {
    rt_puts (dlerror ());
    FAIL (" (dlopen libgorc-dlmany.so)", 0);
  }
  from_library (many, "A (libc's dlopen)");

  /* B */
  void *dt = real_dlopen ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
  CHECK (dt != NULL, 0);
  callback_walks (dt, 0, "B (libc's dlopen, gorc_backtrace)");

  /* C */
  void *dt2 = real_dlopen (copy_of (dt, "dltest2"), RTLD_NOW | RTLD_LOCAL);
  drop_copies ();
  CHECK (dt2 != NULL && dt2 != dt, 0);
  callback_walks (dt2, 1, "C (libc's dlopen, gorc_cursor_init)");

  /* D */
  void *mb = dlmopen (LM_ID_BASE, copy_of (many, "many-base"), RTLD_NOW | RTLD_LOCAL);
  drop_copies ();
  CHECK (mb != NULL && mb != many, 0);
  from_library (mb, "D (dlmopen LM_ID_BASE)");
  void *mn = dlmopen (LM_ID_NEWLM, copy_of (many, "many-newlm"), RTLD_NOW | RTLD_LOCAL);
  drop_copies ();
  if (!mn) {
    rt_puts (dlerror ());
    FAIL (" (dlmopen LM_ID_NEWLM)", 0);
  }
  newlm (mn);

  /* E */
  sampled (real_dlopen, many);
}

int
main (void)
{
  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  run_tests ();
  return 0;
}
