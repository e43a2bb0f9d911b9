/* A guard on the harness itself: gorc-check passes on the real program
   and reports a mismatch once one range is moved by a byte.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-check-catches-corruption } } */

extern void abort (void);

__attribute__((noinline, noclone)) long
f (long x)
{
  volatile char buf[64];
  buf[x] = (char) x;
  return buf[x] + 1;
}

int
main (void)
{
  if (f (3) != 4)
    abort ();
  return 0;
}
