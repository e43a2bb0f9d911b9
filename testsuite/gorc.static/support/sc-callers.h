/* The caller threads of the static-call concurrency tests (threads.c
   here, gorc.aarch64/static/threads.c): CALLERS threads call through a
   static call in batches of 100 and count which target answered (1, 2,
   3, or 0 for NULL; anything else is bad).  The includer defines
   CALLERS, and NOIPA and GORC_STATIC_CALL through its support header.  */
#ifndef SC_CALLERS_H
#define SC_CALLERS_H
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

NOIPA static int ta (int x) { return 1 + x * 0; }
NOIPA static int tb (int x) { return 2 + x * 0; }
NOIPA static int tc (int x) { return 3 + x * 0; }
static int (*target) (int) GORC_STATIC_CALL = ta;
static int (*const targets[4]) (int) = { ta, tb, tc, NULL };

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

/* Start the callers into T, and wait until each runs.  */
static void
start_callers (pthread_t *t)
{
  for (long i = 0; i < CALLERS; i++)
    CHECK (pthread_create (&t[i], NULL, caller, (void *) i) == 0, i);
  while (atomic_load (&ready) < CALLERS)
    sched_yield ();
}

/* The batches completed by all callers so far.  */
static long
all_batches (void)
{
  long n = 0;
  for (int i = 0; i < CALLERS; i++)
    n += atomic_load_explicit (&batches[i], memory_order_acquire);
  return n;
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

/* Stop and join the callers of T; none may have had a bad answer.  */
static void
stop_callers (pthread_t *t)
{
  atomic_store (&stop, 1);
  for (int i = 0; i < CALLERS; i++)
    {
      CHECK (pthread_join (t[i], NULL) == 0, i);
      CHECK (bad[i] == 0, bad[i]);
    }
}
#endif
