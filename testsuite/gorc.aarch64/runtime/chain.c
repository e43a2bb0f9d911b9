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

#include <alloca.h>
#include <stdio.h>
#include "oracle.h"

#define MAXD 60
#define NIPS (2 * MAXD + 64)

/* Expected return addresses from the top: rec(n) at 2n, next(n) at 2n+1.  */
static void *exp_ra[2 * MAXD + 2];
static void *ips[NIPS], *ref[NIPS];
static int cur_depth;
volatile int sink;

static int rec_a (int n);
static int rec_b (int n);
static int rec_c (int n);

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

__attribute__((noinline, noclone)) static int
next (int n)
{
  int r;
  exp_ra[2 * n + 1] = __builtin_return_address (0);
  if (n % 3 == 0)
    r = rec_a (n);
  else if (n % 3 == 1)
    r = rec_b (n);
  else
    r = rec_c (n);
  __asm__ volatile ("" : : : "memory");	/* no tail call */
  return r;
}

__attribute__((noinline, noclone)) static int
rec_a (int n)
{
  exp_ra[2 * n] = __builtin_return_address (0);
  int r = n == 0 ? capture () : next (n - 1);
  sink += r;
  return r + 1;
}

__attribute__((noinline, noclone)) static int
rec_b (int n)
{
  volatile char buf[5000];
  exp_ra[2 * n] = __builtin_return_address (0);
  buf[n % 5000] = (char) n;
  int r = n == 0 ? capture () : next (n - 1);
  sink += r + buf[n % 5000];
  return r + 1;
}

__attribute__((noinline, noclone)) static int
rec_c (int n)
{
  char *p = alloca (16 + (n & 7) * 16);
  exp_ra[2 * n] = __builtin_return_address (0);
  p[0] = (char) n;
  __asm__ volatile ("" : : "r" (p) : "memory");
  int r = n == 0 ? capture () : next (n - 1);
  sink += r + p[0];
  return r + 1;
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
