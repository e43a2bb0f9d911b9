/* Stress: caller threads call through a static call while another thread
   updates it 2000 times (targets a, b, c and NULL, each update
   one 8-byte store into the trampoline).  Every call must land in a
   valid target (result 1, 2, 3, or 0 for NULL), never crash, and the
   callers must see more than one target: after each of the first four
   updates the main thread waits until every caller has begun and
   completed a whole batch of calls since (no time limit, so a loaded
   machine changes nothing but the time taken).  Afterwards no mapping is
   writable and executable.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <time.h>
#include "support/sc-test.h"

#ifndef SC_METHOD
#define SC_METHOD GORC_SC_VIA_ALIAS
#endif
#define CALLERS 3
#define UPDATES 2000
#include "support/sc-callers.h"

int
main (void)
{
#ifdef SC_SETUP
  SC_SETUP;
#endif
  pthread_t t[CALLERS];
  start_callers (t);
  for (int u = 0; u < UPDATES; u++)
    {
      /* Let the callers run between updates (spinning, not yielding: a
	 yield can cost a whole time slice), but never wait more than
	 about 0.2 ms.  */
      long b = all_batches ();
      struct timespec t0, t1;
      clock_gettime (CLOCK_MONOTONIC, &t0);
      do
	{
	  __builtin_ia32_pause ();
	  clock_gettime (CLOCK_MONOTONIC, &t1);
	}
      while (all_batches () == b
	     && (t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec < 200000);
      int r = gorc_static_call_update (target, targets[u % 4]);
      CHECK (r == 0, r);
      CHECK (gorc_static_call_last_method () == SC_METHOD, gorc_static_call_last_method ());
      if (u < 4)
	wait_for_callers ();
    }
  stop_callers (t);
  long per[4] = { 0 };
  for (int i = 0; i < CALLERS; i++)
    for (int k = 0; k < 4; k++)
      per[k] += seen[i][k];
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
