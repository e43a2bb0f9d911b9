/* noreturn calls: GCC ends the function with a call, no epilogue, and the
   byte after the call may belong to the next function.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);
extern void exit (int);

__attribute__((noinline, noclone, noreturn)) void
die (int code)
{
  exit (code == 42 ? 0 : 1);
}

__attribute__((noinline, noclone)) int
check (int x)
{
  if (x < 0)
    abort ();
  if (x > 1000)
    die (x);
  return x * 2;
}

__attribute__((noinline, noclone)) void
always_dies (int x)
{
  volatile int y = check (x);
  die (y - 2 * x + 42);
}

int
main (void)
{
  check (3);
  always_dies (5);
}
