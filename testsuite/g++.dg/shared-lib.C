// A C++ shared library that throws into the main program.
// { dg-do link }
// { dg-options "-O2 -fPIC -shared" }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }
// { dg-final { gorc-sections-ok } }
// { dg-final { gorc-run-with-library support/shared-main.cc } }

#include <stdexcept>

__attribute__((noinline)) long
lib_throw (long n)
{
  volatile char buf[2000];
  buf[n] = 1;
  if (n > 5)
    throw std::out_of_range ("too big");
  return n + buf[n];
}
