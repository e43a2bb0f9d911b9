// Inline functions and template instantiations used from two translation
// units: comdat groups, one copy kept by the linker, whose records must
// be the ones kept (gorc_unwind sections in the same comdat groups).
// { dg-do run }
// { dg-additional-sources "../support/comdat-b.cc" }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }

#include <cstdlib>
#include "../support/comdat.h"

long from_b (long);

int
main ()
{
  if (shared_inline (3) != from_b (3))
    std::abort ();
  if (tmpl<int> (4) != 12 || tmpl<long> (5) != 15)
    std::abort ();
  return 0;
}
