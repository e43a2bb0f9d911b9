/* The concurrency test on aarch64, under qemu-user: caller threads call
   through a static call while the main thread updates it 1000 times
   (targets a, b, c and NULL, one aligned 32-bit store each, mprotect
   mode: support/a64-sc.h).  After each of the first four updates (and
   every tenth after them) the main thread waits until every caller has
   begun and completed a whole batch of calls since (no time limit), so
   every caller must have seen every target: a batch begun after an
   update returned reaches the new target only.  Every call must land
   in a valid target (1, 2, 3, or 0 for NULL), never crash; no mapping is
   left writable and executable.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "support/a64-sc.h"

#define CALLERS 3
#define UPDATES 1000

NOIPA static int ta (int x) { return 1 + x * 0; }
NOIPA static int tb (int x) { return 2 + x * 0; }
NOIPA static int tc (int x) { return 3 + x * 0; }
static int (*target) (int) GORC_STATIC_CALL = ta;

static atomic_int stop, ready;
static atomic_long batches[CALLERS];	/* whole batches of 100 calls */
static long seen[CALLERS][4];
static long bad[CALLERS];

NOIPA static int call_target (int x) { return target (x); }

static void *
caller (void *arg)
{
  long id = (long) arg;
  atomic_fetch_add (&ready, 1);
  while (!atomic_load_explicit (&stop, memory_order_relaxed))
    {
      for (int i = 0; i < 100; i++)
	{
	  int r = call_target (i);
	  if (r < 0 || r > 3)
	    bad[id]++;
	  else
	    seen[id][r]++;
	}
      atomic_fetch_add_explicit (&batches[id], 1, memory_order_release);
    }
  return NULL;
}

/* Until every caller has begun and completed a batch after now.  */
static void
wait_for_callers (void)
{
  long b[CALLERS];
  for (int i = 0; i < CALLERS; i++)
    b[i] = atomic_load_explicit (&batches[i], memory_order_acquire);
  for (int i = 0; i < CALLERS; i++)
    while (atomic_load_explicit (&batches[i], memory_order_acquire) < b[i] + 2)
      sched_yield ();
}

int
main (void)
{
  a64_mprotect_mode ();
#ifdef SC_SETUP
  SC_SETUP;
#endif
  pthread_t t[CALLERS];
  for (long i = 0; i < CALLERS; i++)
    CHECK (pthread_create (&t[i], NULL, caller, (void *) i) == 0, i);
  int (*const targets[4]) (int) = { ta, tb, tc, NULL };
  while (atomic_load (&ready) < CALLERS)
    sched_yield ();
  for (int u = 0; u < UPDATES; u++)
    {
      int r = gorc_static_call_update (target, targets[u % 4]);
      CHECK (r == 0, r);
      CHECK (gorc_static_call_last_method () == GORC_SC_VIA_MPROTECT,
	     gorc_static_call_last_method ());
      if (u < 4 || u % 10 == 0)
	wait_for_callers ();
    }
  atomic_store (&stop, 1);
  for (int i = 0; i < CALLERS; i++)
    {
      CHECK (pthread_join (t[i], NULL) == 0, i);
      CHECK (bad[i] == 0, bad[i]);
      for (int k = 0; k < 4; k++)
	CHECK (seen[i][k] > 0, i * 10 + k);
    }
  a64_no_wx ();
  /* The last update set NULL; a fresh one takes effect at once.  */
  gorc_static_call_update (target, tb);
  CHECK (call_target (0) == 2, 0);
  return 0;
}
