/* GNU C nested functions that access the enclosing frame through the
   static chain (r10), without taking their address (no trampoline, no
   executable stack; gorc.dg/nested-trampoline.c covers that).  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) int
outer (int n)
{
  int acc = 0;
  __attribute__((noinline)) void add (int k)
  {
    acc += k * n;
  }
  for (int i = 0; i < n; i++)
    add (i);
  return acc;
}

int
main (void)
{
  if (outer (5) != 5 * (0 + 1 + 2 + 3 + 4))
    abort ();
  return 0;
}
