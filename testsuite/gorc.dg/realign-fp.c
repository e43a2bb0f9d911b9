/* Stack realignment without DRAP (no alloca, no stack arguments): the
   frame pointer holds the CFA, rsp is and-ed; the CFA must stay bp+16 in
   the whole body.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {cfa=bp\+16\y} } } */
/* { dg-final { scan-gorc-dump-not {cfa=r10} } } */

extern void abort (void);

typedef double v4df __attribute__ ((vector_size (32)));

__attribute__((noinline, noclone)) void
use (void *p)
{
  if (((unsigned long) p & 63) != 0)
    abort ();
  __asm__ volatile ("" : : "r" (p) : "memory");
}

__attribute__((noinline, noclone)) int
realigned (int n)
{
  int x[16] __attribute__((aligned (64)));
  x[0] = n;
  use (x);
  return x[0];
}

int
main (void)
{
  if (realigned (7) != 7)
    abort ();
  return 0;
}
