/* The shared library of shared-chain.c: a frame with a large local
   array and one with alloca between the program's frames.  */
#include <alloca.h>

typedef int (*a64_cb) (int);
volatile int a64_lib_sink;

__attribute__((noinline)) static int
lib_big (a64_cb cb, int n)
{
  volatile char buf[3000];
  buf[n % 3000] = (char) n;
  int r = cb (n);
  a64_lib_sink += r + buf[n % 3000];
  return r + 1;
}

int
a64_lib_call (a64_cb cb, int n)
{
  char *p = alloca (16 + (n & 3) * 32);
  p[0] = (char) n;
  __asm__ volatile ("" : : "r" (p) : "memory");
  int r = lib_big (cb, n);
  a64_lib_sink += p[0];
  return r + 1;
}
