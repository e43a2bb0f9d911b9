// throw/catch through several frames, rethrow, destructors run during
// unwinding (landing pads), a catch in a function with a large frame.
// { dg-do run }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }

#include <stdexcept>
#include <cstdlib>

static int dtors;

struct guard
{
  int v;
  explicit guard (int x) : v (x) {}
  ~guard () { dtors += v; }
};

__attribute__((noinline)) void
thrower (int n)
{
  guard g (1);
  if (n == 0)
    throw std::runtime_error ("boom");
  thrower (n - 1);
}

__attribute__((noinline)) int
middle (int n)
{
  guard g (10);
  try
    {
      thrower (n);
    }
  catch (const std::logic_error &)
    {
      std::abort ();
    }
  return 0;
}

__attribute__((noinline)) int
rethrow (int n)
{
  volatile char big[5000];
  big[n] = 1;
  try
    {
      middle (n);
    }
  catch (...)
    {
      big[0] = 2;
      throw;
    }
  return big[0];
}

int
main ()
{
  try
    {
      rethrow (3);
      std::abort ();
    }
  catch (const std::runtime_error &e)
    {
      if (dtors != 4 + 10)
        std::abort ();
    }
  return 0;
}
