/* Hot/cold partitioning at -O2: work() is split into work (.text) and
   work.cold (.text.unlikely); the records must have a range for each
   section (work.cold shares one with report, also in .text.unlikely), and
   each part its own first entry.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {\ywork\.cold\y} } } */
/* { dg-final { scan-gorc-dump-times {^  \S+ work(\.cold)?\+0x0 +cfa=} 2 } } */

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
  int a[4] = { 1, -2, 3, 4 };
  if (work (a, 4) != 1 + 6 - 1 + 3 + 4)
    abort ();
  return 0;
}
