/* libgorc on aarch64: walks on threads other than main.  Their stack
   lies below the thread pointer, which on aarch64 is not pthread_self()
   (struct pthread lies below it): each thread walks a chain to its
   start (clone's outermost frame), equal to libgcc's _Unwind_Backtrace,
   twice (the second walk knows the thread's stack), and from a signal
   handler on that thread.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <pthread.h>
#include <stdio.h>
#include "oracle.h"

#define NIPS 64
#define NTHREADS 3

static __thread void *ips[NIPS], *ref[NIPS];
static __thread void *into_start;	/* worker's return address */

static void
walk_and_compare (const char *what)
{
  int rc = gorc_backtrace (ips, NIPS);
  if (rc < 0)
    {
      fprintf (stderr, "%s: %s after %d frames\n", what, gorc_strerror (rc),
	       gorc_backtrace_count ());
      FAIL ("gorc_backtrace failed", rc);
    }
  a64_same_frames (ips, rc, 1, ref, a64_gcc_walk (ref, NIPS), what);
  int seen = 0;
  for (int i = 1; i < rc; i++)
    seen |= ips[i] == into_start;
  CHECK (seen, rc);
}

static void
handler (int sig, siginfo_t *si, void *uc)
{
  (void) sig, (void) si, (void) uc;
  walk_and_compare ("in the handler");
}

__attribute__((noinline, noclone)) static void
deep (int n)
{
  if (n > 0)
    deep (n - 1);
  else
    {
      walk_and_compare ("thread");
      walk_and_compare ("thread, again");
      pthread_kill (pthread_self (), SIGPROF);
    }
  __asm__ volatile ("" : : : "memory");	/* no tail call */
}

static void *
worker (void *arg)
{
  into_start = __builtin_return_address (0);
  deep ((int) (long) arg);
  __asm__ volatile ("" : : : "memory");
  return NULL;
}

int
main (void)
{
  pthread_t t[NTHREADS];
  rt_on_signal (SIGPROF, handler, 0);
  for (long i = 0; i < NTHREADS; i++)
    CHECK (pthread_create (&t[i], NULL, worker, (void *) (i * 7)) == 0, i);
  for (int i = 0; i < NTHREADS; i++)
    CHECK (pthread_join (t[i], NULL) == 0, i);
  return 0;
}
