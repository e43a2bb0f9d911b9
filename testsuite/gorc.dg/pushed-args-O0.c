/* -O0 pushes or stores outgoing stack arguments instead of storing them: every push
   changes the CFA offset (cfa=sp+N for several N in one function).  */
/* { dg-do run } */
/* { dg-options "-O0" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) long
sum12 (long a, long b, long c, long d, long e, long f, long g, long h,
       long i, long j, long k, long l)
{
  return a + b + c + d + e + f + g + h + i + j + k + l;
}

__attribute__((noinline, noclone)) long
caller (long x)
{
  long r = sum12 (x, 1, 2, 3, 4, 5, x, 7, 8, 9, 10, x);
  return r + sum12 (r, r, r, r, r, r, r, r, r, r, r, r);
}

int
main (void)
{
  if (caller (1) != 13 * 52)
    abort ();
  return 0;
}
