// COMDAT functions (inline functions and template instances, each in a
// section of its own in its group) from two units, among plain functions
// in .text: the linker keeps one copy of each and may place it anywhere,
// so every COMDAT function has a range of its own, while the plain
// functions of one unit share theirs (one range, gaps between them).
// { dg-do run }
// { dg-options "-O2" }
// { dg-additional-sources "support/comdat-b.cc" }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }
// { dg-final { gorc-sections-ok } }
// { dg-final { scan-gorc-dump {^range \S+ _Z13unused_inlinel } } }
// { dg-final { scan-gorc-dump {^range \S+ _Z4tmplIiET_S0_ } } }
// { dg-final { scan-gorc-dump {^range \S+ _Z4tmplIlET_S0_ } } }
// { dg-final { scan-gorc-dump {^range \S+ _Z5plainl \(\.text\)$} } }
// { dg-final { scan-gorc-dump-not {^range \S+ _Z6plain2l } } }
// { dg-final { scan-gorc-dump {^  \S+ _Z6plain2l\+0x0 +cfa=sp\+8 } } }

#include <cstdlib>
#include "support/comdat.h"

long from_b (long);

__attribute__((noinline)) long
plain (long x)
{
  return shared_inline (x) + 1;
}

__attribute__((noinline)) long
plain2 (long x)
{
  volatile char b[64];
  b[x & 63] = (char) x;
  return plain (b[3]) + tmpl<long> (x);
}

int
main ()
{
  if (shared_inline (3) != from_b (3))
    std::abort ();
  if (tmpl<int> (4) != 12 || plain2 (5) != 1 + 15)
    std::abort ();
  return 0;
}
