/* No .eh_frame but -g: gorc-check compares with .debug_frame.  */
/* { dg-do run } */
/* { dg-options "-O2 -g -fno-asynchronous-unwind-tables" } */
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
f (long a, long b, long c)
{
  volatile char buf[300];
  buf[a] = (char) b;
  return ext (a) + ext (b) + ext (c) + buf[a];
}

int
main (void)
{
  if (f (1, 2, 3) != 8)
    abort ();
  return 0;
}
