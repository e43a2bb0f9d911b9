/* -fstack-clash-protection: a large frame is allocated by a probing loop
   during which the CFA is expressed from r11 (cfa=r11+98312 here), and
   alloca is probed page by page.  */
/* { dg-do run } */
/* { dg-options "-O2 -fstack-clash-protection" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {cfa=r11\+98312\y} } } */

extern void abort (void);

__attribute__((noinline, noclone)) int
big (int n)
{
  volatile char buf[100000];
  buf[n] = 1;
  buf[0] = 2;
  return buf[0] + buf[n];
}

__attribute__((noinline, noclone)) int
dyn (int n)
{
  char *p = __builtin_alloca (n);
  p[0] = 1;
  p[n - 1] = 2;
  __asm__ volatile ("" : : "r" (p) : "memory");
  return p[0] + p[n - 1];
}

int
main (void)
{
  if (big (5) != 3 || dyn (20000) != 3)
    abort ();
  return 0;
}
