/* gorc-prof test program: its time spent under libc's code, so that
   every stack crosses libc's frames (glibc's qsort calling back).

     prof-qsort MS

   main -> qsort (libc) -> ... -> compare -> leaf_work for MS
   milliseconds of CPU time.  Exits 0.  */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prof-test.h"

static volatile double sink;
static double end_ms;

__attribute__((noinline)) static void leaf_work(void)
{
  double s = 0;
  for (int i = 0; i < 20000; i++)
    s += i * 0.5;
  sink = s;
}

__attribute__((noinline)) static int compare(const void *a, const void *b)
{
  leaf_work();
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  int v[64];
  if (argc != 2) {
    fprintf(stderr, "usage: prof-qsort MS\n");
    return 2;
  }
  end_ms = prof_cpu_ms() + atoi(argv[1]);
  while (prof_cpu_ms() < end_ms) {
    for (int i = 0; i < 64; i++)
      v[i] = (i * 7919) % 64;
    qsort(v, 64, sizeof *v, compare);
  }
  return 0;
}
