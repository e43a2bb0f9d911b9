/* A program using libgorc's API, built by gorc-gcc with no extra flags.  */
#include <stdio.h>
#include <gorc.h>

__attribute__((noinline)) int depth3(void)
{
  void *ips[64];
  int n = gorc_backtrace(ips, 64);
  return n;
}
__attribute__((noinline)) int depth2(void) { return depth3() + 0 * __LINE__; }
__attribute__((noinline)) int depth1(void) { return depth2() + 0 * __LINE__; }

int main(void)
{
  int n = depth1();
  printf("frames: %d\n", n);
  return n >= 4 ? 0 : 1;
}
