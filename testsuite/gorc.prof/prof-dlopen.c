/* gorc-prof test program: code that appears while profiled.

     prof-dlopen LIB MS [LIB2]

   Burns MS milliseconds of CPU in main -> main_work, then dlopens LIB
   (this file built with -DPROF_DLOPEN_LIB -shared) and burns MS more in
   main -> lib_chain -> lib_work, its code.  With LIB2 (another such
   build), then dlcloses LIB, dlopens LIB2 (mapped where LIB was, as a
   rule), prints "bases LIB's LIB2's" (their load addresses) and burns MS
   more in its lib_chain.  Exits 0.  */
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

/* LIB's lib_chain (into *LOADED, its handle; BASE, its load address),
   or NULL.  */
static double (*open_chain(const char *lib, void **loaded, void **base))(int)
{
  Dl_info info;
  *loaded = dlopen(lib, RTLD_NOW);
  double (*chain)(int) = *loaded ? (double (*)(int))dlsym(*loaded, "lib_chain") : NULL;
  if (!chain || !dladdr((void *)chain, &info)) {
    fprintf(stderr, "prof-dlopen: %s\n", dlerror());
    return NULL;
  }
  *base = info.dli_fbase;
  return chain;
}

int main(int argc, char **argv)
{
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: prof-dlopen LIB MS [LIB2]\n");
    return 2;
  }
  int ms = atoi(argv[2]);
  void *lib, *base, *base2;
  sink = main_work(ms);
  double (*chain)(int) = open_chain(argv[1], &lib, &base);
  if (!chain)
    return 1;
  sink = chain(ms);
  if (argc == 4) {
    dlclose(lib);
    if (!(chain = open_chain(argv[3], &lib, &base2)))
      return 1;
    printf("bases %p %p\n", base, base2);
    fflush(stdout);
    sink = chain(ms);
  }
  return 0;
}
#endif
