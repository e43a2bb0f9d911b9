/* gorc-prof test program: code that appears while profiled.

     prof-dlopen LIB MS

   Burns MS milliseconds of CPU in main -> main_work, then dlopens LIB
   (this file built with -DPROF_DLOPEN_LIB -shared) and burns MS more in
   main -> lib_chain -> lib_work, its code.  Exits 0.  */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prof-test.h"


#ifdef PROF_DLOPEN_LIB
__attribute__((noinline)) double lib_work(int ms)
{
  double s = 0;
  for (double end = prof_cpu_ms() + ms; prof_cpu_ms() < end;)
    for (int i = 0; i < 100000; i++)
      s += i * 0.5;
  return s;
}

__attribute__((noinline)) double lib_chain(int ms)
{
  return lib_work(ms) + 1;
}
#else
#include <dlfcn.h>

static volatile double sink;

__attribute__((noinline)) static double main_work(int ms)
{
  double s = 0;
  for (double end = prof_cpu_ms() + ms; prof_cpu_ms() < end;)
    for (int i = 0; i < 100000; i++)
      s += i * 0.25;
  return s;
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: prof-dlopen LIB MS\n");
    return 2;
  }
  int ms = atoi(argv[2]);
  sink = main_work(ms);
  void *lib = dlopen(argv[1], RTLD_NOW);
  double (*chain)(int) = lib ? (double (*)(int))dlsym(lib, "lib_chain") : NULL;
  if (!chain) {
    fprintf(stderr, "prof-dlopen: %s\n", dlerror());
    return 1;
  }
  sink = chain(ms);
  return 0;
}
#endif
