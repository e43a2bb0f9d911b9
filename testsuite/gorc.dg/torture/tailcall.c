/* Tail calls (sibling calls): the epilogue runs before a jmp, which is
   the function's last instruction, and mutual tail recursion.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) long
leaf (long a, long b)
{
  __asm__ volatile ("" : "+r" (a));
  return a + b;
}

__attribute__((noinline, noclone)) long
tail (long a, long b, long c)
{
  long t = leaf (a, b);
  return leaf (t, c); /* sibcall */
}

__attribute__((noinline, noclone)) int is_odd (unsigned n);

__attribute__((noinline, noclone)) int
is_even (unsigned n)
{
  if (n == 0)
    return 1;
  return is_odd (n - 1);
}

__attribute__((noinline, noclone)) int
is_odd (unsigned n)
{
  if (n == 0)
    return 0;
  return is_even (n - 1);
}

long (*volatile fp) (long, long) = leaf;

__attribute__((noinline, noclone)) long
indirect_tail (long a)
{
  long x = leaf (a, 1);
  return fp (x, 2);
}

int
main (void)
{
  if (tail (1, 2, 3) != 6)
    abort ();
  if (!is_even (1000) || is_odd (1000))
    abort ();
  if (indirect_tail (1) != 4)
    abort ();
  return 0;
}
