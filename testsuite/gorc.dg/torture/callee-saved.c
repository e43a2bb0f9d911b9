/* Prologue and epilogue with callee-saved register pushes: enough live
   values across calls that rbx, rbp, r12-r15 are all saved.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

/* noipa: no IPA register allocation, so callers save what they keep.  */
__attribute__((noipa)) long
ext (long x)
{
  __asm__ volatile ("" : "+r" (x));
  return x + 1;
}

__attribute__((noinline, noclone)) long
many_live (long a, long b, long c, long d, long e, long f)
{
  long t1 = ext (a), t2 = ext (b), t3 = ext (c);
  long t4 = ext (d), t5 = ext (e), t6 = ext (f);
  long t7 = ext (t1 + t6);
  return t1 * t2 + t3 * t4 + t5 * t6 + t7 + a + b + c + d + e + f;
}

int
main (void)
{
  if (many_live (1, 2, 3, 4, 5, 6) != 2*3 + 4*5 + 6*7 + 10 + 21)
    abort ();
  return 0;
}
