/* gorc-prof test: a function with two global names of different
   lengths, where the shorter is not the smaller ("zz" and "aaa_alias"):
   the crash handler's and gorc-prof's symbol reader and gorc-dump's
   must pick the same one (include/gorc/symrank.h: the shorter).  */
volatile double sink;

__attribute__((noinline)) void zz(int n)
{
  for (int i = 0; i < n; i++)
    sink += i * 0.5;
}

void aaa_alias(int n) __attribute__((alias("zz")));

int main(void)
{
  for (int i = 0; i < 2000; i++)
    zz(100000);
  return 0;
}
