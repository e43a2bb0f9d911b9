// Second translation unit for the comdat tests.
#include "comdat.h"

__attribute__((noinline)) long
from_b (long x)
{
  return shared_inline (x) + tmpl<int> (0);
}

// Also instantiated in the first unit.
template long tmpl<long> (long);
