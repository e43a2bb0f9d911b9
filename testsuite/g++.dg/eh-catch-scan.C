// An exception caught in the same function as a frame-pointer frame
// (alloca): the landing pad's state is the body's state.
// { dg-do run }
// { dg-options "-O2" }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }
// { dg-final { scan-gorc-dump {cfa=bp\+16\y} } }

#include <cstdlib>

__attribute__((noinline)) void
thrower (int n)
{
  if (n > 2)
    throw n;
}

__attribute__((noinline)) int
catcher (int n)
{
  char *p = static_cast<char *> (__builtin_alloca (n));
  p[0] = 1;
  // The buffer escapes: without it GCC 15 forwards the store to the
  // catch's read and removes the alloca, and with it the bp frame.
  __asm__ volatile ("" : : "r" (p) : "memory");
  try
    {
      thrower (n);
    }
  catch (int v)
    {
      return v + p[0];
    }
  return 0;
}

int
main ()
{
  if (catcher (5) != 6 || catcher (1) != 0)
    std::abort ();
  return 0;
}
