/* gorc-prof test library: prof-deep's bottom frame in a file of its
   own.  A program linked with it (prof-deep.c calls lib_work where it
   is there) has stacks through three files: this library, the program,
   libc.  */
#include "prof-test.h"

static volatile double sink;

double lib_work(int ms)
{
  double s = 0, t0 = prof_cpu_ms();
  do {
    for (int i = 0; i < 100000; i++)
      s += i * 0.5;
  } while (prof_cpu_ms() - t0 < ms);
  sink = s;
  return s;
}
