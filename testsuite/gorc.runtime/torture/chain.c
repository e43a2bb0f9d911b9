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
#include <alloca.h>
#include "../support/rt-test.h"

#define MAXD 200
#define NIPS (2 * MAXD + 64)

/* Expected return addresses from the top: rec(n) at 2n, next(n) at 2n+1.  */
static void *exp_ra[2 * MAXD + 2];
static void *ips[NIPS], *oracle[NIPS];
static int cur_depth;
volatile int sink;

static int rec_a (int n);
static int rec_b (int n);
static int rec_c (int n);

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
  char *p = alloca (16 + (n & 7) * 8);
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
