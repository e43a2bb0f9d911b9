/* A sysv function calling an ms_abi function and an ms_abi function
   calling a sysv one: the latter must save xmm6-xmm15, rsi and rdi in its
   prologue (a long sequence of saves and a large frame).  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) double
sysv_func (double a, long b)
{
  __asm__ volatile ("" : "+x" (a), "+r" (b));
  return a + b;
}

__attribute__((noinline, noclone, ms_abi)) double
ms_func (double a, long b)
{
  return sysv_func (a, b) * 2;
}

__attribute__((noinline, noclone)) double
caller (double a)
{
  return ms_func (a, 3) + 1;
}

int
main (void)
{
  if (caller (1.5) != 10.0)
    abort ();
  return 0;
}
