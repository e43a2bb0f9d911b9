/* alloca and variable-length arrays: the stack pointer moves by a run-time
   amount, so the CFA must be expressed from the frame pointer.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) void
fill (char *p, int n)
{
  for (int i = 0; i < n; i++)
    p[i] = (char) i;
}

__attribute__((noinline, noclone)) int
with_alloca (int n)
{
  char *p = __builtin_alloca (n);
  fill (p, n);
  return p[n - 1];
}

__attribute__((noinline, noclone)) int
with_vla (int n)
{
  int sum = 0;
  for (int k = 1; k < 4; k++)
    {
      char v[n * k];
      fill (v, n * k);
      sum += v[n * k - 1];
    }
  return sum;
}

int
main (void)
{
  if (with_alloca (50) != 49)
    abort ();
  if (with_vla (10) != 9 + 19 + 29)
    abort ();
  return 0;
}
