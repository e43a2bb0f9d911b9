/* gorc-prof test program: a recursion deeper than any stack copy.

     prof-deep DEPTH MS

   main -> recurse x DEPTH -> leaf_work, each recurse frame holding 160
   bytes of its own (DEPTH 500: about 100 KB of stack, above the 64 KB
   perf can copy); prints "ready PID", then burns MS milliseconds of CPU
   time at the bottom after SIGUSR1 (attach first).  Exits 0.  Linked
   with prof-deeplib.c's library, the bottom is its lib_work.  */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "prof-test.h"

static volatile double sink;

__attribute__((noinline)) static double leaf_work(int ms)
{
  struct timespec t0, t;
  double s = 0;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do {
    for (int i = 0; i < 100000; i++)
      s += i * 0.5;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
  return s;
}

/* prof-deeplib.c's, where the program is linked with it.  */
extern double lib_work(int ms) __attribute__((weak));

__attribute__((noinline)) static double recurse(int depth, int ms)
{
  volatile char frame[160];
  frame[0] = (char)depth;
  double r = depth > 1 ? recurse(depth - 1, ms) : lib_work ? lib_work(ms) : leaf_work(ms);
  return r + frame[0];        /* not a tail call: every frame stays */
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: prof-deep DEPTH MS\n");
    return 2;
  }
  prof_wait_for_usr1();
  sink = recurse(atoi(argv[1]), atoi(argv[2]));
  return 0;
}
