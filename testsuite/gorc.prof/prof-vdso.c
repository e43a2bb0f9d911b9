/* gorc-prof test program: most of its time in the vdso.

     prof-vdso MS

   Burns MS milliseconds of its own CPU time in clock_gettime
   (CLOCK_MONOTONIC: the vdso's code, no system call), through spin, so
   that the samples' stacks are main;spin;__clock_gettime and the vdso's
   frames.  Exits 0.  */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

static volatile long sink;

static double cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void spin(double ms)
{
  struct timespec ts;
  double end = cpu_ms() + ms;
  while (cpu_ms() < end)
    for (int i = 0; i < 10000; i++) {
      clock_gettime(CLOCK_MONOTONIC, &ts);
      sink += ts.tv_nsec;
    }
}

int main(int argc, char **argv)
{
  spin(argc > 1 ? atof(argv[1]) : 100);
  return 0;
}
