// Exceptions at -O0 (frame pointer everywhere, every local in memory)
// and at -Os, through a function that only has a cleanup.
// { dg-do run }
// { dg-options "-O0" }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }
// { dg-final { scan-gorc-dump {cfa=bp\+16\y} } }

#include <cstdlib>

struct raii
{
  int *p;
  ~raii () { ++*p; }
};

void
thrower (int x)
{
  if (x)
    throw x;
}

int
cleanup_only (int x, int *count)
{
  raii r { count };
  thrower (x);
  return 0;
}

int
main ()
{
  int count = 0;
  try
    {
      cleanup_only (3, &count);
    }
  catch (int v)
    {
      if (v != 3 || count != 1)
        std::abort ();
      return 0;
    }
  std::abort ();
}
