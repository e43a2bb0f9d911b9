/* SIGPROF sampling of busy code against nongnu libunwind as the oracle.
   A sampler thread sends the worker SIGPROF every few microseconds while
   the worker runs a mix of frame shapes (callee-saved pushes, big frames,
   alloca, recursion, many tiny calls so that samples land in prologues
   and epilogues).  For every sample the handler walks the interrupted
   context with gorc_backtrace_ucontext and with libunwind
   (unw_init_local2 (..., UNW_INIT_SIGNAL_FRAME)); the two traces must be
   equal, address for address.  Included by sampling-O*.c.  */

#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "rt-sampler.h"

#define MAX 96
#define WANT_SAMPLES 3000

static atomic_int samples;
volatile long sink;

static void
on_sigprof (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  void *ours[MAX];
  unw_word_t theirs[MAX];
  unw_cursor_t cur;
  int rc = gorc_backtrace_ucontext (uc, ours, MAX);
  int n = gorc_backtrace_count ();
  int m = 0;

  CHECK (rc >= 0, rc);
  CHECK (unw_init_local2 (&cur, (unw_context_t *) uc, UNW_INIT_SIGNAL_FRAME) == 0, 0);
  do {
    unw_word_t ip;
    if (unw_get_reg (&cur, UNW_REG_IP, &ip) < 0 || m == MAX)
      break;
    theirs[m++] = ip;
  } while (unw_step (&cur) > 0);
  /* libunwind reports _start's frame too; gorc ends there as well.  */
  for (int i = 0; i < n && i < m; i++)
    if ((unw_word_t) ours[i] != theirs[i])
      FAIL ("gorc and libunwind differ at frame", i);
  CHECK (n == m, n - m);
  atomic_fetch_add (&samples, 1);
}

__attribute__((noinline, noclone)) static long
tiny (long x)
{
  return x * 3 + 1;
}

__attribute__((noinline, noclone)) static long
pushes (long a, long b, long c, long d)
{
  long r = 0;
  for (int i = 0; i < 8; i++)
    r += tiny (a + i) ^ tiny (b - i) ^ tiny (c * i) ^ tiny (d + r);
  return r;
}

__attribute__((noinline, noclone)) static long
big_frame (long x)
{
  volatile char buf[9000];
  buf[x % 9000] = (char) x;
  return pushes (x, buf[(x + 1) % 9000], x * 2, x * 3) + buf[x % 9000];
}

__attribute__((noinline, noclone)) static long
with_alloca (long x)
{
  char *p = alloca (64 + (x & 255));
  p[0] = (char) x;
  return big_frame (x + p[0]) + tiny (x);
}

__attribute__((noinline, noclone)) static long
recurse (int depth, long x)
{
  if (depth == 0)
    return with_alloca (x);
  long r = recurse (depth - 1, x + depth);
  return r + tiny (r);
}

static void *
worker_main (void *arg)
{
  (void) arg;
  long x = 0;
  while (atomic_load (&samples) < WANT_SAMPLES)
    x += recurse ((int) (x & 7) + 2, x);
  sink = x;
  return NULL;
}

int
main (void)
{
  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  rt_run_sampled (worker_main, 20000, on_sigprof);
  CHECK (atomic_load (&samples) >= WANT_SAMPLES, atomic_load (&samples));
  return 0;
}
