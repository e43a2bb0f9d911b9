/* Rescans asked for from a signal handler.  A worker thread loads and
   unloads libgorc-dltest.so 300 times, alternately through libgorc's
   dlopen/dlclose and through libc's own (dlsym (RTLD_NEXT, ...), which
   libgorc does not see), and walks from inside it (the second of two
   walks must be complete).  Another thread sends it SIGPROF every 20 us;
   the handler calls gorc_backtrace_ucontext and then gorc_backtrace,
   which rescans when a walk met an unknown module and the loader's
   r_state is RT_CONSISTENT -- so handlers interrupt the loader, libgorc's
   own rescan, and walks, and rescan from there.  Nothing may deadlock
   (SIGALRM after 20 s fails the test), crash, or return anything but a
   count or an error code; when both handler walks are complete,
   gorc_backtrace's trace from the interrupted instruction on must equal
   gorc_backtrace_ucontext's.  The sampled signals land wherever the
   machine lets them, so they are counted, not required; the worker also
   raises SIGPROF itself from inside the library, between its two walks
   (after a round through libc's dlopen the first walk asked for a
   rescan, so the handler's gorc_backtrace rescans, and it must be
   complete) and after them (both handler walks must be complete and
   agree).  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include "support/rt-sampler.h"

#define ROUNDS 300
#define DEPTH 6
#define MAX 128

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);
typedef void *(*dlopen_fn) (const char *, int);
typedef int (*dlclose_fn) (void *);

static atomic_int samples, uc_ok, bt_ok, both_ok;

/* While RAISED.ON, the handler runs for a SIGPROF raised in deep: its
   gorc_backtrace must be complete, and with BOTH its ucontext walk too.
   SEEN: handler runs that checked this (a sampled SIGPROF may come while
   ON too).  */
static struct {
  volatile int on, both, seen, total;
} raised;
static dlopen_fn real_dlopen;
static dlclose_fn real_dlclose;

static void
on_sigprof (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  void *ours[MAX], *all[MAX + 16];
  int rc = gorc_backtrace_ucontext (uc, ours, MAX);
  int n = gorc_backtrace_count ();
  CHECK (n >= 1 && n <= MAX, n);
  CHECK (rc >= -GORC_EINIT && rc <= MAX, rc);
  int arc = gorc_backtrace (all, MAX + 16);
  int an = gorc_backtrace_count ();
  CHECK (an >= 1 && an <= MAX + 16, an);
  CHECK (arc >= -GORC_EINIT && arc <= MAX + 16, arc);
  if (rc >= 0 && rc < MAX)
    atomic_fetch_add (&uc_ok, 1);
  if (arc >= 0 && arc < MAX + 16)
    atomic_fetch_add (&bt_ok, 1);
  if (rc >= 0 && rc < MAX && arc >= 0 && arc < MAX + 16) {
    int j = 0;
    while (j < an && all[j] != ours[0])
      j++;
    CHECK (j < an && an - j == n, an - j - n);
    for (int i = 0; i < n; i++)
      if (all[j + i] != ours[i])
        FAIL ("gorc_backtrace from the handler differs at frame", i);
    atomic_fetch_add (&both_ok, 1);
  }
  if (raised.on) {
    CHECK (arc >= 0 && arc < MAX + 16, arc);
    CHECK (!raised.both || (rc >= 0 && rc < MAX), rc);
    raised.seen++;
    return;
  }
  atomic_fetch_add (&samples, 1);
}

/* Raise SIGPROF here; with BOTH, both handler walks must be complete.
   raise returns after the handler has run.  */
__attribute__ ((noinline)) static void
raise_here (int both)
{
  int seen = raised.seen;
  raised.both = both;
  raised.on = 1;
  CHECK (raise (SIGPROF) == 0, both);
  raised.on = 0;
  CHECK (raised.seen > seen, both);
  raised.total++;
}

static int
deep (void *arg)
{
  void *ips[64];
  int *rc = arg;
  rc[0] = gorc_backtrace (ips, 64);
  raise_here (0);
  rc[1] = gorc_backtrace (ips, 64);
  raise_here (1);
  return 1;
}

static void *
worker_main (void *arg)
{
  (void) arg;
  for (int i = 0; i < ROUNDS; i++) {
    int libc = i % 2;
    void *h = (libc ? real_dlopen : dlopen) ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
    CHECK (h != NULL, i);
    dl_work_fn work = (dl_work_fn) dlsym (h, "dl_work");
    CHECK (work != NULL, i);
    int rc[2];
    CHECK (work (DEPTH, deep, rc) >= 1, i);
    CHECK (rc[0] >= 0 || rc[0] == -GORC_ENORECORD, rc[0]);
    if (rc[1] < DEPTH + 4) {
      printf ("round %d (%s dlopen): walks %d, %d\n", i, libc ? "libc's" : "libgorc's", rc[0], rc[1]);
      fflush (stdout);
      FAIL ("the second walk from inside the library", rc[1]);
    }
    CHECK ((libc ? real_dlclose : dlclose) (h) == 0, i);
  }
  return NULL;
}

static void
on_alarm (int sig)
{
  (void) sig;
  FAIL ("still running after 20 s (deadlock?), samples", atomic_load (&samples));
}

int
main (void)
{
  real_dlopen = (dlopen_fn) dlsym (RTLD_NEXT, "dlopen");
  real_dlclose = (dlclose_fn) dlsym (RTLD_NEXT, "dlclose");
  CHECK (real_dlopen && real_dlclose && real_dlopen != (dlopen_fn) dlopen, 0);
  signal (SIGALRM, on_alarm);
  alarm (20);
  rt_run_sampled (worker_main, 20000, on_sigprof);
  alarm (0);
  printf ("rescan-handler: %d raised, %d sampled; of all handler runs %d complete from "
          "the ucontext, %d complete with gorc_backtrace, %d both\n", raised.total,
          atomic_load (&samples), atomic_load (&uc_ok), atomic_load (&bt_ok),
          atomic_load (&both_ok));
  return 0;
}
