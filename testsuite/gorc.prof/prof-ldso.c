/* gorc-prof test program: most of its time in ld.so.

     prof-ldso MS

   Prints "ready PID", waits for SIGUSR1 (to be attached to first), then
   burns MS milliseconds of its own CPU time looking symbols up with
   dlsym, so that the samples' stacks run main;lookup_loop;dlsym, then
   through ld.so (_dl_lookup_symbol_x): ld.so is the highest of a
   process's mappings but [vsyscall] and the vdso.  Exits 0.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "prof-test.h"

static volatile long sink;

__attribute__((noinline)) static void lookup_loop(double ms)
{
  static const char *const names[] = { "printf", "malloc", "no_such_symbol_here", "qsort" };
  double end = prof_cpu_ms() + ms;
  while (prof_cpu_ms() < end)
    for (int i = 0; i < 1000; i++)
      sink += (long)dlsym(RTLD_DEFAULT, names[i & 3]);
}

int main(int argc, char **argv)
{
  if (argc != 2)
    return 2;
  prof_wait_for_usr1();
  lookup_loop(atof(argv[1]));
  return 0;
}
