/* -mno-red-zone (kernel style): leaf functions must adjust rsp for their
   locals, and the records follow.  */
/* { dg-do run } */
/* { dg-options "-O2 -mno-red-zone" } */
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

int
main (void)
{
  if (leaf (3) != 9)
    abort ();
  return 0;
}
