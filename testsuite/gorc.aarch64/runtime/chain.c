/* libgorc on aarch64: gorc_backtrace at depths 0..60 through a chain of
   three mutually recursive functions of different frame shapes (plain,
   a large frame, alloca), built under each option set of aarch64.exp
   (with and without frame pointers, with signed return addresses).
   Every return address must be the one each level recorded with
   __builtin_return_address(0), the walk must reach the outermost frame
   through libc (its .eh_frame), address for address as libgcc's
   _Unwind_Backtrace walks it (and libunwind, where installed, without
   pointer authentication), and the cursor API must walk the same
   frames.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <stdio.h>
#include "oracle.h"

#define MAXD 60
#define NIPS (2 * MAXD + 64)
#define CHAIN_ALLOCA_STEP 16
#include "../../gorc.runtime/support/rt-chain.h"

static void *ips[NIPS], *ref[NIPS];
static int cur_depth;

__attribute__((noinline, noclone)) static void
check_cursor (int rc)
{
  struct gorc_cursor c;
  CHECK (gorc_cursor_init (&c) == 0, cur_depth);
  int i = 1, s;
  while ((s = gorc_cursor_step (&c)) == 1)
    {
      /* The cursor starts in check_cursor: one frame more than
	 capture's walk, which it then follows.  */
      CHECK (i <= rc, i);
      if (i >= 2)
	CHECK ((void *) c.ip == ips[i - 1], i);
      i++;
    }
  CHECK (s == 0, s);
  CHECK (i == rc + 1, i - rc);
}

__attribute__((noinline, noclone)) static int
capture (void)
{
  void *ra = __builtin_return_address (0);
  int d = cur_depth;
  int rc = gorc_backtrace (ips, NIPS);
  if (rc < 0)
    {
      fprintf (stderr, "depth %d: %s after %d frames\n", d, gorc_strerror (rc),
	       gorc_backtrace_count ());
      FAIL ("gorc_backtrace failed", rc);
    }
  CHECK (rc == gorc_backtrace_count (), gorc_backtrace_count ());
  CHECK ((char *) ips[0] > (char *) capture && (char *) ips[0] < (char *) capture + 4096, d);
  CHECK (ips[1] == ra, d);
  rt_check_chain (ips, rc, 2, exp_ra, 2 * d + 2);
  a64_same_frames (ips, rc, 1, ref, a64_gcc_walk (ref, NIPS), "libgcc");
  if (A64_ASK_LIBUNWIND)
    a64_same_frames (ips, rc, 1, ref, a64_unw_walk (ref, NIPS), "libunwind");
  check_cursor (rc);
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
