/* Walks racing dlclose (issue 10 item 3).  Three threads, 2000 rounds:
   - A loads libgorc-dltest.so, calls into it, and unloads it.  From the
     library's deepest callback it publishes a snapshot of its context
     (getcontext and a copy of the stack above it) with the trace its own
     gorc_backtrace gave there, and asks for a SIGPROF; after dlclose it
     asks again.  The handler's gorc_backtrace_ucontext must be complete
     and equal to libunwind's walk of the same context, both times.
   - C sends A the SIGPROF, with pthread_kill, when A asks (A then waits
     in sem_wait): the points of interruption are A's choice, the same in
     every run.
   - B, woken by each snapshot, walks its own stack (complete, the same
     trace each time) and then the latest snapshot of A, 8 times, while A
     goes on to dlclose: a copy that ends at a PROT_NONE page,
     so the walk ends at the copy's end at the latest; its addresses
     point into the library, which A may be unloading or loading again
     that very moment.  That walk may stop with any error code, but never
     crash, and what it stored must be the snapshot's trace, in order.
   Each kind of outcome is counted and printed.  */
/* { dg-do run } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-sampler.h"
#include "support/rt-trace.h"

#define ROUNDS 2000
#define DEPTH 6
#define MAX 64
#define COPY 4096          /* bytes of A's stack in a snapshot */
#define SNAP_WALKS 8       /* B's walks of each snapshot */

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

static pthread_t thread_a;
static sem_t want_signal, handled, new_snapshot;
static int handler_walks;

/* ---- A's signals ---- */

static void
on_sigprof (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  void *ours[MAX], *theirs[MAX];
  int rc;
  if (rt_ucontext_walks_differ (uc, ours, theirs, MAX, &rc, "A's SIGPROF", NULL, NULL))
    FAIL ("a walk from A's handler differs from libunwind's", handler_walks);
  handler_walks++;
  sem_post (&handled);   /* async-signal-safe */
}

/* Have C send this thread SIGPROF, and wait until its handler ran.  */
__attribute__((noinline, noclone)) static void
ask_for_signal (void)
{
  CHECK (sem_post (&want_signal) == 0, 0);
  while (sem_wait (&handled) != 0)
    CHECK (errno == EINTR, errno);
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
}

static void *
thread_c_main (void *arg)
{
  (void) arg;
  for (int i = 0; i < 2 * ROUNDS; i++) {
    while (sem_wait (&want_signal) != 0)
      CHECK (errno == EINTR, errno);
    CHECK (pthread_kill (thread_a, SIGPROF) == 0, 0);
  }
  return NULL;
}

/* ---- the snapshot A publishes ---- */

static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int valid;
  ucontext_t uc;
  uintptr_t sp;
  char stack[COPY];
  void *trace[MAX];
  int n;
} snap;

__attribute__((noinline, noclone)) static void
publish (void)
{
  static ucontext_t uc;
  void *trace[MAX];
  CHECK (getcontext (&uc) == 0, 0);
  int rc = gorc_backtrace (trace, MAX);
  CHECK (rc >= DEPTH + 4, rc);
  pthread_mutex_lock (&snap_lock);
  snap.uc = uc;
  snap.sp = (uintptr_t) uc.uc_mcontext.gregs[REG_RSP];
  memcpy (snap.stack, (void *) snap.sp, COPY);
  /* The context's walk: rip as is, then the same callers.  */
  snap.trace[0] = (void *) uc.uc_mcontext.gregs[REG_RIP];
  memcpy (snap.trace + 1, trace + 1, (rc - 1) * sizeof *trace);
  snap.n = rc;
  snap.valid = 1;
  pthread_mutex_unlock (&snap_lock);
  CHECK (sem_post (&new_snapshot) == 0, 0);
}

static int
deepest (void *arg)
{
  (void) arg;
  publish ();
  ask_for_signal ();   /* inside the library's call chain */
  return 1;
}

static void *
thread_a_main (void *arg)
{
  (void) arg;
  for (int i = 0; i < ROUNDS; i++) {
    void *h = dlopen ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
    CHECK (h != NULL, i);
    dl_work_fn work = (dl_work_fn) dlsym (h, "dl_work");
    CHECK (work != NULL && work (DEPTH, deepest, NULL) >= 1, i);
    CHECK (dlclose (h) == 0, i);
    ask_for_signal ();   /* the library just went */
  }
  return NULL;
}

/* ---- B ---- */

static long own_walks, snap_walks, snap_outcomes[GORC_ECORRUPT + 1], snap_stored;
static void *own_ref[MAX];
static int own_nref;

/* B's walk of its own stack: the first one is the reference (complete,
   and from its caller on as the caller's own walk OUTER[0..NOUTER)
   from index 1 on); every later one must equal it.  */
__attribute__((noinline, noclone)) static void
walk_own (void **outer, int nouter)
{
  void *ips[MAX];
  int rc = gorc_backtrace (ips, MAX);
  if (!own_nref) {
    CHECK (rc == nouter + 1, rc);
    for (int i = 1; i < nouter; i++)
      CHECK (ips[i + 1] == outer[i], i);
    memcpy (own_ref, ips, rc * sizeof *ips);
    own_nref = rc;
  }
  CHECK (rc == own_nref, rc);
  for (int i = 0; i < rc; i++)
    if (ips[i] != own_ref[i])
      FAIL ("B's walk of its own stack changed at frame", i);
  own_walks++;
}

/* Walk the latest snapshot, its stack copied to BUF (COPY bytes after a
   readable page, for the red zone, and before a PROT_NONE page).  */
static void
walk_snapshot (char *buf)
{
  ucontext_t uc;
  void *trace[MAX], *ips[MAX];
  int n;
  pthread_mutex_lock (&snap_lock);
  if (!snap.valid) {
    pthread_mutex_unlock (&snap_lock);
    return;
  }
  uc = snap.uc;
  n = snap.n;
  memcpy (trace, snap.trace, sizeof trace);
  memcpy (buf, snap.stack, COPY);
  uintptr_t sp = snap.sp;
  pthread_mutex_unlock (&snap_lock);
  uintptr_t bp = (uintptr_t) uc.uc_mcontext.gregs[REG_RBP];
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t) (uintptr_t) buf;
  uc.uc_mcontext.gregs[REG_RBP] = bp - sp < COPY ? (greg_t) ((uintptr_t) buf + (bp - sp)) : 0;
  int rc = gorc_backtrace_ucontext (&uc, ips, MAX);
  int got = gorc_backtrace_count ();
  CHECK (rc == got || (rc <= -GORC_ENORECORD && rc >= -GORC_ECORRUPT && rc != -GORC_EINVAL
                       && rc != -GORC_EINIT), rc);
  CHECK (got >= 1 && got <= n, got);
  for (int i = 0; i < got; i++)
    if (ips[i] != trace[i])
      FAIL ("B's walk of A's snapshot stored a wrong address at frame", i);
  snap_outcomes[rc < 0 ? -rc : 0]++;
  snap_stored += got;
  snap_walks++;
}

static void *
thread_b_main (void *arg)
{
  (void) arg;
  long page = sysconf (_SC_PAGESIZE);
  char *map = mmap (NULL, page + COPY + page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK (map != MAP_FAILED && mprotect (map + page + COPY, page, PROT_NONE) == 0, 0);
  void *outer[MAX];
  int nouter = gorc_backtrace (outer, MAX);
  CHECK (nouter >= 3, nouter);
  for (int i = 0; i < ROUNDS; i++) {
    while (sem_wait (&new_snapshot) != 0)
      CHECK (errno == EINTR, errno);
    walk_own (outer, nouter);
    for (int k = 0; k < SNAP_WALKS; k++)
      walk_snapshot (map + page);
  }
  return NULL;
}

int
main (void)
{
  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  rt_on_sigprof (on_sigprof);
  CHECK (sem_init (&want_signal, 0, 0) == 0 && sem_init (&handled, 0, 0) == 0
         && sem_init (&new_snapshot, 0, 0) == 0, 0);
  pthread_t b, c;
  CHECK (pthread_create (&thread_a, NULL, thread_a_main, NULL) == 0, 0);
  CHECK (pthread_create (&b, NULL, thread_b_main, NULL) == 0, 0);
  CHECK (pthread_create (&c, NULL, thread_c_main, NULL) == 0, 0);
  pthread_join (thread_a, NULL);
  pthread_join (b, NULL);
  pthread_join (c, NULL);
  printf ("dlclose-race: %d rounds, %d walks from A's handler (all equal to libunwind's); "
          "B: %ld walks of its own stack, %ld of A's snapshots (%ld addresses stored): "
          "%ld complete, errors", ROUNDS, handler_walks, own_walks, snap_walks, snap_stored,
          snap_outcomes[0]);
  for (int e = GORC_ENORECORD; e <= GORC_ECORRUPT; e++)
    printf (" %ld", snap_outcomes[e]);
  printf ("\n");
  CHECK (handler_walks == 2 * ROUNDS, handler_walks);
  CHECK (snap_walks == ROUNDS * SNAP_WALKS, snap_walks);
  return 0;
}
