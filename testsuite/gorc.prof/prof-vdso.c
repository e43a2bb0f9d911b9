/* gorc-prof test program: most of its time in the vdso.

     prof-vdso MS

   Burns MS milliseconds of its own CPU time in clock_gettime
   (CLOCK_MONOTONIC: the vdso's code, no system call), through spin, so
   that the samples' stacks are main;spin;__clock_gettime and the vdso's
   frames.  Exits 0.  */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

#include "prof-test.h"

static volatile long sink;

__attribute__((noinline)) static void spin(double ms)
{
  struct timespec ts;
  double end = prof_cpu_ms() + ms;
  while (prof_cpu_ms() < end)
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
