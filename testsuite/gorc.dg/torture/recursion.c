/* Recursion (not turned into a loop: two recursive calls), and a
   recursive function with a large frame.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) long
fib (int n)
{
  if (n < 2)
    return n;
  return fib (n - 1) + fib (n - 2);
}

__attribute__((noinline, noclone)) int
ackermann (int m, int n)
{
  if (m == 0)
    return n + 1;
  if (n == 0)
    return ackermann (m - 1, 1);
  return ackermann (m - 1, ackermann (m, n - 1));
}

__attribute__((noinline, noclone)) int
deep_frames (int n)
{
  volatile int local[300];
  local[n % 300] = n;
  if (n == 0)
    return 0;
  return local[n % 300] + deep_frames (n - 1);
}

int
main (void)
{
  if (fib (20) != 6765)
    abort ();
  if (ackermann (2, 3) != 9)
    abort ();
  if (deep_frames (50) != 50 * 51 / 2)
    abort ();
  return 0;
}
