/* Stress: caller threads call through a static call while another thread
   updates it 2000 times (targets a, b, c and NULL, each update
   one 8-byte store into the trampoline).  Every call must land in a
   valid target (result 1, 2, 3, or 0 for NULL), never crash, and the
   callers must see more than one target.  Afterwards no mapping is
   writable and executable.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include "support/sc-test.h"

#ifndef SC_METHOD
#define SC_METHOD GORC_SC_VIA_ALIAS
#endif
#define CALLERS 3
#define UPDATES 2000

NOIPA static int ta (int x) { return 1 + x * 0; }
NOIPA static int tb (int x) { return 2 + x * 0; }
NOIPA static int tc (int x) { return 3 + x * 0; }
static int (*target) (int) GORC_STATIC_CALL = ta;

static atomic_int stop, ready;
static atomic_long batches;	/* bumped by callers every 100 calls */
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
      atomic_fetch_add_explicit (&batches, 1, memory_order_relaxed);
    }
  return NULL;
}

int
main (void)
{
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
      /* Let the callers run between updates (spinning, not yielding: a
	 yield can cost a whole time slice), but never wait more than
	 about 0.2 ms.  */
      long b = atomic_load_explicit (&batches, memory_order_relaxed);
      struct timespec t0, t1;
      clock_gettime (CLOCK_MONOTONIC, &t0);
      do
	{
	  __builtin_ia32_pause ();
	  clock_gettime (CLOCK_MONOTONIC, &t1);
	}
      while (atomic_load_explicit (&batches, memory_order_relaxed) == b
	     && (t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec < 200000);
      int r = gorc_static_call_update (target, targets[u % 4]);
      CHECK (r == 0, r);
      CHECK (gorc_static_call_last_method () == SC_METHOD, gorc_static_call_last_method ());
    }
  atomic_store (&stop, 1);
  long per[4] = { 0 };
  for (int i = 0; i < CALLERS; i++)
    {
      CHECK (pthread_join (t[i], NULL) == 0, i);
      CHECK (bad[i] == 0, bad[i]);
      for (int k = 0; k < 4; k++)
	per[k] += seen[i][k];
    }
  int kinds = 0;
  for (int k = 0; k < 4; k++)
    kinds += per[k] > 0;
  printf ("calls: NULL %ld, a %ld, b %ld, c %ld\n", per[0], per[1], per[2], per[3]);
  CHECK (kinds >= 2, kinds);
  /* No page is left writable and executable.  */
  FILE *maps = fopen ("/proc/self/maps", "r");
  CHECK (maps != NULL, 0);
  char line[512];
  while (fgets (line, sizeof line, maps))
    {
      char perm[8];
      if (sscanf (line, "%*s %7s", perm) == 1 && perm[1] == 'w' && perm[2] == 'x')
	FAIL (line, 0);
    }
  fclose (maps);
  /* The last update set NULL; a fresh one must take effect at once.  */
  gorc_static_call_update (target, tb);
  CHECK (call_target (0) == 2, 0);
  return 0;
}
/* { dg-final { gorc-static-direct call_target } } */
