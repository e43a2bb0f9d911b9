// Comdat inline functions from two units with -ffunction-sections and
// --gc-sections: discarded sections and collected sections must take
// their records with them.
// { dg-do run }
// { dg-options "-O2 -ffunction-sections -Wl,--gc-sections" }
// { dg-additional-sources "support/comdat-b.cc" }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }
// { dg-final { gorc-sections-ok } }

#include <cstdlib>
#include "support/comdat.h"

long from_b (long);

__attribute__((noinline)) long
never_called (long x)
{
  return x * 11;
}

int
main ()
{
  if (shared_inline (3) != from_b (3))
    std::abort ();
  if (tmpl<int> (4) != 12 || tmpl<long> (5) != 15)
    std::abort ();
  return 0;
}
