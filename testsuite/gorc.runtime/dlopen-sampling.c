/* Modules come and go while another thread samples: one thread dlopens a
   library built with the plugin, unwinds from deep inside it and dlcloses
   it, 300 times; another thread sends it SIGPROF all the while, and the
   handler unwinds the interrupted context.  The library's records must be
   found without registration (libgorc's dlopen picks them up), every
   direct walk from inside the library must reach the thread's outermost
   frame, and no sample may crash or return anything but a walk or an
   error code.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include "support/rt-sampler.h"

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

#define ROUNDS 300
#define LIB_DEPTH 12

static atomic_int samples, sample_errors;

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
  if (rc < 0)
    atomic_fetch_add (&sample_errors, 1);
  atomic_fetch_add (&samples, 1);
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
  CHECK (atomic_load (&samples) >= 50, atomic_load (&samples));
  return 0;
}
