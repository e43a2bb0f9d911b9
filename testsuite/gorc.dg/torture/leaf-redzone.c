/* Leaf functions that keep locals in the red zone (no stack adjustment),
   next to a non-leaf with an ordinary frame.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) int
leaf (int n)
{
  volatile int a[16];
  for (int i = 0; i < 16; i++)
    a[i] = i * n;
  return a[n & 15];
}

__attribute__((noinline, noclone)) int
nonleaf (int n)
{
  volatile int b[4];
  b[0] = leaf (n);
  b[1] = leaf (n + 1);
  return b[0] + b[1];
}

int
main (void)
{
  if (nonleaf (3) != 9 + 16)
    abort ();
  return 0;
}
