/* gorc-prof test: a function with two global names of different
   lengths, where the shorter is not the smaller ("zz" and "aaa_alias"):
   the crash handler's and gorc-prof's symbol reader and gorc-dump's
   must pick the same one (include/gorc/symrank.h: the shorter).  With an
   argument it faults in that function instead (for a crash trace).  */
volatile double sink;

__attribute__((noinline)) void zz(int n)
{
  if (n < 0)
    *(volatile int *)0 = n;
  for (int i = 0; i < n; i++)
    sink += i * 0.5;
}

void aaa_alias(int n) __attribute__((alias("zz")));

int main(int argc, char **argv)
{
  (void)argv;
  if (argc > 1)
    zz(-1);
  for (int i = 0; i < 2000; i++)
    zz(100000);
  return 0;
}
