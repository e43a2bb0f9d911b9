/* Modules come and go while another thread samples: one thread dlopens a
   library built with the plugin, unwinds from deep inside it and dlcloses
   it, 300 times; another thread sends it SIGPROF all the while, and the
   handler unwinds the interrupted context.  The library's records must be
   found without registration (the walk finds the module), every
   direct walk from inside the library must reach the thread's outermost
   frame, and no sample may crash or return anything but a walk or an
   error code.  The sampled signals land wherever the machine lets them,
   so they are counted, not required; from inside the library the thread
   also raises SIGPROF itself, once a round, and that handler's walk must
   follow the direct walk's trace exactly.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include "support/rt-sampler.h"

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

#define ROUNDS 300
#define LIB_DEPTH 12

static atomic_int samples, sample_errors;

/* While RAISED.ON, a handler walk must meet ANCHOR (the return address
   into deep) and go on as deep's own walk EXP[1..N) did.  SEEN: handler
   walks that did (a sampled SIGPROF may come while ON too).  */
static struct {
  volatile int on, n, seen;
  void **volatile exp;
  void *volatile anchor;
} raised;

/* The walk of a raised SIGPROF, IPS[0..N) with result RC.  */
static void
check_raised (void **ips, int rc, int n)
{
  CHECK (rc >= 0, rc);
  int j = 0;
  while (j < n && ips[j] != raised.anchor)
    j++;
  CHECK (j < n && n - j == raised.n, n - j - raised.n);
  for (int k = 1; k < raised.n; k++)
    if (ips[j + k] != raised.exp[k])
      FAIL ("a raised SIGPROF's walk differs from the direct walk at frame", k);
  raised.seen++;
}

static void
on_sigprof (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  void *ips[128];
  int rc = gorc_backtrace_ucontext (uc, ips, 128);
  int n = gorc_backtrace_count ();
  CHECK (n >= 0 && n <= 128, n);
  CHECK (rc >= -GORC_EINIT, rc);
  if (raised.on) {
    check_raised (ips, rc, n);
    return;
  }
  if (rc < 0)
    atomic_fetch_add (&sample_errors, 1);
  atomic_fetch_add (&samples, 1);
}

/* Raise SIGPROF here, in deep, whose walk gave IPS[0..N): raise returns
   after the handler has run.  */
__attribute__ ((noinline)) static void
raise_in_deep (void **ips, int n)
{
  int seen = raised.seen;
  raised.exp = ips;
  raised.n = n;
  raised.anchor = __builtin_return_address (0);
  raised.on = 1;
  CHECK (raise (SIGPROF) == 0, 0);
  raised.on = 0;
  CHECK (raised.seen > seen, n);
  __asm__ volatile ("" ::: "memory");
}

/* Called at the bottom of the library's recursion.  */
static int
deep (void *arg)
{
  void *ips[64];
  int rc = gorc_backtrace (ips, 64);
  /* callback, LIB_DEPTH + 1 library levels, dl_work, worker_main,
     start_thread, clone3: the walk ends cleanly (rc >= 0).  */
  CHECK (rc >= 0, rc);
  CHECK (rc >= LIB_DEPTH + 4, rc);
  raise_in_deep (ips, rc);
  (void) arg;
  return 1;
}

static void *
worker_main (void *arg)
{
  (void) arg;
  for (int i = 0; i < ROUNDS; i++) {
    void *h = dlopen ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
    CHECK (h != NULL, i);
    dl_work_fn work = (dl_work_fn) dlsym (h, "dl_work");
    CHECK (work != NULL, i);
    CHECK (work (LIB_DEPTH, deep, NULL) >= 1, i);
    CHECK (dlclose (h) == 0, i);
  }
  return NULL;
}

int
main (void)
{
  rt_run_sampled (worker_main, 50000, on_sigprof);
  printf ("dlopen-sampling: %d raised walks; %d sampled, %d of them errors\n", raised.seen,
          atomic_load (&samples), atomic_load (&sample_errors));
  return 0;
}
