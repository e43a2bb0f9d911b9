/* A 100000-byte frame: the CFA offset needs more than 16 bits.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {cfa=sp\+(99|10[0-9])[0-9]{3}\y} } } */

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

int
main (void)
{
  if (big (10) != 13)
    abort ();
  return 0;
}
