/* -fstack-clash-protection: frames over 64 KiB are allocated by a probing
   loop whose CFA rule moves to a scratch register (cfa = x9 + k or
   similar) and back; VLAs are probed page by page.  */
/* { dg-do run } */
/* { dg-options "-O2 -fstack-clash-protection" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noipa)) long
use (volatile char *p, long n)
{
  p[0] = 1;
  p[n - 1] = 2;
  return p[0] + p[n - 1];
}

__attribute__((noinline, noclone)) long
big (long k)
{
  volatile char buf[300000];
  return use (buf, sizeof buf) + k;
}

__attribute__((noinline, noclone)) long
vla (long n)
{
  volatile char buf[n];
  return use (buf, n);
}

int
main (void)
{
  if (big (1) != 4 || vla (100000) != 3)
    abort ();
  return 0;
}
