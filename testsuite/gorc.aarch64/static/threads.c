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
#include "support/a64-sc.h"

#define CALLERS 3
#define UPDATES 1000
#include "../../gorc.static/support/sc-callers.h"

int
main (void)
{
  a64_mprotect_mode ();
#ifdef SC_SETUP
  SC_SETUP;
#endif
  pthread_t t[CALLERS];
  start_callers (t);
  for (int u = 0; u < UPDATES; u++)
    {
      int r = gorc_static_call_update (target, targets[u % 4]);
      CHECK (r == 0, r);
      CHECK (gorc_static_call_last_method () == GORC_SC_VIA_MPROTECT,
	     gorc_static_call_last_method ());
      if (u < 4 || u % 10 == 0)
	wait_for_callers ();
    }
  stop_callers (t);
  for (int i = 0; i < CALLERS; i++)
    for (int k = 0; k < 4; k++)
      CHECK (seen[i][k] > 0, i * 10 + k);
  a64_no_wx ();
  /* The last update set NULL; a fresh one takes effect at once.  */
  gorc_static_call_update (target, tb);
  CHECK (call_target (0) == 2, 0);
  return 0;
}
