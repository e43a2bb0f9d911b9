/* Multiple returns and shrink-wrapping: the fast paths return before the
   prologue, the slow path has its own epilogue; several epilogues in one
   function (remember_state/restore_state in the CFI).  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

/* noipa: no IPA register allocation, so callers save what they keep.  */
__attribute__((noipa)) long
ext (long x)
{
  __asm__ volatile ("" : "+r" (x));
  return x;
}

__attribute__((noinline, noclone)) long
wrapped (long a, long b)
{
  if (a == 0)
    return b; /* before any save */
  long t = ext (a) + ext (b);
  if (t > 100)
    return t - ext (t); /* epilogue 1 */
  long u = ext (t * 2);
  if (u & 1)
    return u + a; /* epilogue 2 */
  return ext (u + t + a + b); /* epilogue 3 or tail call */
}

/* An early return after the prologue: the epilogue sits in the middle,
   bracketed by remember_state/restore_state at -O1 -O2 -O3.  */
__attribute__((noinline, noclone)) long
mid_return (long a, long b)
{
  long t = ext (a);
  if (t > 5)
    return t + b;
  long u = ext (t + b);
  return ext (u) + b + t;
}

__attribute__((noinline, noclone)) int
search (const int *p, int n, int key)
{
  for (int i = 0; i < n; i++)
    {
      if (p[i] == key)
        return i;
      if (p[i] > key)
        return -1 - (int) ext (i);
    }
  return -1000 - (int) ext (n);
}

int
main (void)
{
  static const int v[] = { 1, 3, 5, 7, 9 };
  if (wrapped (0, 5) != 5 || wrapped (60, 50) != 0)
    abort ();
  if (wrapped (1, 2) != 6 + 3 + 1 + 2)
    abort ();
  if (mid_return (6, 1) != 7 || mid_return (2, 1) != 6)
    abort ();
  if (search (v, 5, 7) != 3 || search (v, 5, 4) != -3 || search (v, 5, 99) != -1005)
    abort ();
  return 0;
}
