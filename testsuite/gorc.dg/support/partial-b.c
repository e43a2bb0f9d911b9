/* Second translation unit for gorc.dg/partial-link.c and lto-link.c.  */
__attribute__((noinline)) long
b_func (long x)
{
  __asm__ volatile ("" : "+r" (x));
  return x * 5;
}

__attribute__((noinline)) long
b_big (int n)
{
  volatile char buf[70000];
  buf[n] = (char) n;
  return buf[n];
}
