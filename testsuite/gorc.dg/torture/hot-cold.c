/* Hot/cold partitioning: unlikely paths go to .text.unlikely as foo.cold,
   a second range for the same function that starts in the middle of the
   frame (no prologue of its own).  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, cold)) void
report (int x)
{
  __asm__ volatile ("" : : "r" (x) : "memory");
}

__attribute__((noinline, noclone)) int
work (int *a, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    {
      if (__builtin_expect (a[i] < 0, 0))
        {
          report (a[i]);
          report (i);
          s -= a[i] * 3 + i;
          continue;
        }
      s += a[i];
    }
  return s;
}

int
main (void)
{
  int a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  if (work (a, 8) != 36)
    abort ();
  a[3] = -1;
  if (work (a, 8) != 36 - 4 + 3 - 3)
    abort ();
  return 0;
}
