/* Frames larger than 32 KiB (and than 64 KiB: CFA offsets beyond 16
   bits), allocated with one sub and with -fstack-clash-protection style
   probing where the option set asks for it.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) int
big (int n)
{
  volatile char buf[100000];
  buf[0] = n;
  buf[n] = 1;
  buf[sizeof buf - 1] = 2;
  return buf[0] + buf[n] + buf[sizeof buf - 1];
}

__attribute__((noinline, noclone)) int
medium (int n)
{
  volatile int buf[10000]; /* 40000 bytes */
  for (int i = 0; i < n; i++)
    buf[i * 97] = i;
  return buf[97] + big (n);
}

int
main (void)
{
  if (medium (100) != 1 + 100 + 1 + 2)
    abort ();
  return 0;
}
