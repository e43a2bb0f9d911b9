/* 4 threads (and the main thread) each unwind 1000 times at depth 20
   with libgorc.so: every walk must give the recorded chain and reach the
   outermost frame (the thread's start in libc).  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */

#define _GNU_SOURCE
#include <pthread.h>
#include "support/rt-test.h"

#define DEPTH 20
#define NTHREADS 4
#define ITERS 1000
volatile int sink;

struct ctx { void *exp_ra[DEPTH + 1]; void *ips[128]; int first_rc; };

__attribute__((noinline, noclone)) static int
rec (struct ctx *c, int n)
{
  c->exp_ra[n] = __builtin_return_address (0);
  if (n == 0)
    {
      int rc = gorc_backtrace (c->ips, 128);
      if (rc < 0)
	{
	  rt_puts (gorc_strerror (rc));
	  FAIL (" gorc_backtrace", gorc_backtrace_count ());
	}
      CHECK (rc == gorc_backtrace_count (), rc);
      rt_check_chain (c->ips, rc, 1, c->exp_ra, DEPTH + 1);
      if (!c->first_rc)
	c->first_rc = rc;
      CHECK (rc == c->first_rc, rc);
      return rc;
    }
  int r = rec (c, n - 1);
  sink += r;
  return r + 1;
}

static void *
run (void *arg)
{
  struct ctx *c = arg;
  for (int i = 0; i < ITERS; i++)
    rec (c, DEPTH);
  return 0;
}

int
main (void)
{
  static struct ctx ctx[NTHREADS + 1];
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    CHECK (pthread_create (&t[i], 0, run, &ctx[i]) == 0, i);
  run (&ctx[NTHREADS]);
  for (int i = 0; i < NTHREADS; i++)
    pthread_join (t[i], 0);
  /* A thread's stack ends in libc's thread start, the main thread's in
     _start: at least the chain plus run() and a libc frame.  */
  for (int i = 0; i < NTHREADS; i++)
    CHECK (ctx[i].first_rc >= DEPTH + 4, ctx[i].first_rc);
  return 0;
}
