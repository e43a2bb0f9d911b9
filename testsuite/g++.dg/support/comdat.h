// Shared by g++.dg/torture/comdat.C, g++.dg/comdat-gc.C and comdat-b.cc.
#ifndef GORC_TEST_COMDAT_H
#define GORC_TEST_COMDAT_H

inline long
shared_inline (long x)
{
  volatile char buf[100];
  buf[x] = (char) x;
  asm volatile ("" : "+r" (x));
  return x * 7 + buf[x];
}

template <typename T>
__attribute__((noinline)) T
tmpl (T x)
{
  asm volatile ("" : "+r" (x));
  return x * 3;
}

// Never called: with -ffunction-sections -Wl,--gc-sections its code and
// records are collected away.
inline long __attribute__((noinline, used))
unused_inline (long x)
{
  return x + 1;
}

#endif
