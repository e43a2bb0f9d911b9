/* gorc_backtrace at depths 1..200 through a chain of three mutually
   recursive functions of different frame shapes (plain, a large frame,
   alloca with a frame pointer).  Every return address must be the one
   each level recorded with __builtin_return_address(0); when glibc's
   backtrace (the .eh_frame oracle) gets through the chain, the two must
   agree on every frame and on where the stack ends.  The cursor API
   must walk the same frames.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <stdio.h>
#include "../support/rt-test.h"

#define MAXD 200
#define NIPS (2 * MAXD + 64)
#define CHAIN_ALLOCA_STEP 8
#include "../support/rt-chain.h"

static void *ips[NIPS], *oracle[NIPS];
static int cur_depth;

__attribute__((noinline, noclone)) static int
capture (void)
{
  void *ra = __builtin_return_address (0);
  int rc = gorc_backtrace (ips, NIPS);
  int k = backtrace (oracle, NIPS);
  int d = cur_depth;
  if (rc < 0)
    {
      fprintf (stderr, "depth %d: %s after %d frames\n", d, gorc_strerror (rc),
	       gorc_backtrace_count ());
      FAIL ("gorc_backtrace failed", rc);
    }
  CHECK (rc == gorc_backtrace_count (), gorc_backtrace_count ());
  CHECK ((char *) ips[0] > (char *) capture && (char *) ips[0] < (char *) capture + 2048, d);
  CHECK (ips[1] == ra, d);
  rt_check_chain (ips, rc, 2, exp_ra, 2 * d + 2);
  if (k >= 2 * d + 5)
    {
      /* The oracle got through: same frames, same end.  */
      CHECK (rc == k, rc - k);
      for (int i = 1; i < k; i++)
	if (ips[i] != oracle[i])
	  FAIL ("differs from glibc backtrace at frame", i);
    }
  /* The cursor walks the same frames.  */
  struct gorc_cursor c;
  CHECK (gorc_cursor_init (&c) == 0, d);
  CHECK ((char *) c.ip > (char *) capture && (char *) c.ip < (char *) capture + 2048, d);
  int i = 1, s;
  while ((s = gorc_cursor_step (&c)) == 1)
    {
      CHECK (i < rc, i);
      CHECK ((void *) c.ip == ips[i], i);
      i++;
    }
  CHECK (s == 0, s);
  CHECK (i == rc, i);
  CHECK (gorc_cursor_step (&c) == 0, d);
  return rc;
}

int
main (void)
{
  for (int d = 0; d <= MAXD; d++)
    {
      cur_depth = d;
      next (d);
    }
  return 0;
}
