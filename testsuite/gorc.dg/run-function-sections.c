/* -ffunction-sections: every function is in a section of its own, which
   the linker may move or drop (--gc-sections), so no range covers two
   functions: one range per function, no gaps.  */
/* { dg-do run } */
/* { dg-options "-O2 -ffunction-sections" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { gorc-sections-ok } } */
/* { dg-final { scan-gorc-dump-not {gap: no records} } } */
/* { dg-final { scan-gorc-dump {^range \S+ one } } } */
/* { dg-final { scan-gorc-dump {^range \S+ unused } } } */
/* { dg-final { scan-gorc-dump {^range \S+ two } } } */
/* { dg-final { scan-gorc-dump {^range \S+ three } } } */

extern void abort (void);

__attribute__((noinline, noclone)) long
one (long x)
{
  volatile char b[40];
  b[x & 31] = (char) x;
  return b[1] + x;
}

__attribute__((noinline, noclone)) long
unused (long x)
{
  volatile char b[80];
  b[x & 63] = (char) x;
  return b[2] * x;
}

__attribute__((noinline, noclone)) long
two (long x)
{
  return one (x) * 3 + 1;
}

__attribute__((noinline, noclone)) long
three (long x)
{
  volatile char b[300];
  b[x & 255] = (char) x;
  return two (b[2]) + 1;
}

int
main (void)
{
  if (three (0) != 2)
    abort ();
  return 0;
}
