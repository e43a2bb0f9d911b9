/* A nested function whose address is taken: GCC builds a trampoline on
   the stack, so the program needs an executable stack.  */
/* { dg-do run } */
/* { dg-options "-O2 -Wl,-z,execstack" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) int
apply (int (*f) (int), int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += f (i);
  return s;
}

__attribute__((noinline, noclone)) int
outer (int k)
{
  int scale (int x) { return x * k; }
  return apply (scale, 4);
}

int
main (void)
{
  if (outer (3) != 3 * 6)
    abort ();
  return 0;
}
