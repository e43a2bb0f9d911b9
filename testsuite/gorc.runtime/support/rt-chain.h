/* The chain torture/chain.c and gorc.aarch64/runtime/chain.c walk: three
   mutually recursive functions of different frame shapes (plain, a large
   frame, alloca), through next(), each level recording its return
   address.  The includer defines MAXD (the deepest level),
   CHAIN_ALLOCA_STEP (rec_c's alloca grows by this per level, n & 7) and
   capture(), which the deepest level calls, and calls next (depth).  */
#ifndef RT_CHAIN_H
#define RT_CHAIN_H
#include <alloca.h>

/* Expected return addresses from the top: rec(n) at 2n, next(n) at 2n+1.  */
static void *exp_ra[2 * MAXD + 2];
volatile int sink;

static int capture (void);
static int rec_a (int n);
static int rec_b (int n);
static int rec_c (int n);

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
  char *p = alloca (16 + (n & 7) * CHAIN_ALLOCA_STEP);
  exp_ra[2 * n] = __builtin_return_address (0);
  p[0] = (char) n;
  __asm__ volatile ("" : : "r" (p) : "memory");
  int r = n == 0 ? capture () : next (n - 1);
  sink += r + p[0];
  return r + 1;
}
#endif
