/* -fstack-protector-all: every function ends with a canary check whose
   failure path is a noreturn call to __stack_chk_fail after the
   epilogue-less block.  */
/* { dg-do run } */
/* { dg-options "-O2 -fstack-protector-all" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) int
guarded (int n)
{
  char buf[64];
  for (int i = 0; i < 64; i++)
    buf[i] = (char) (i + n);
  __asm__ volatile ("" : : "r" (buf) : "memory");
  return buf[n & 63];
}

int
main (void)
{
  if (guarded (3) != 6)
    abort ();
  return 0;
}
