/* setjmp/longjmp: a returns-twice call, and longjmp out of a deeper
   frame.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

#include <setjmp.h>

extern void abort (void);

static jmp_buf env;

__attribute__((noinline, noclone)) void
deep (int n)
{
  volatile char pad[64];
  pad[0] = n;
  if (n == 0)
    longjmp (env, 7);
  deep (n - 1);
  pad[1] = pad[0];
}

__attribute__((noinline, noclone)) int
catcher (int n)
{
  volatile int seen = 0;
  int r = setjmp (env);
  if (r == 0)
    {
      seen = 1;
      deep (n);
      abort ();
    }
  return r + seen;
}

int
main (void)
{
  if (catcher (5) != 8)
    abort ();
  return 0;
}
