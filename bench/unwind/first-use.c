/* make bench: what the first walk through a module with many records
   costs, and a lookup after it.  libgorc reads nothing of a module before
   a walk meets it; the first lookup reads its program headers and checks
   its record index once (module.c), later ones bisect the index in place.
   Times three lookups of one address of a generated library: the first
   (the module unknown), the second (the module known, the PC cache not
   used: the module, then its state, as the walk asks them), and the fast-word lookup that fills the PC cache
   and then hits it.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include "gorc.h"
#include "internal.h"

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The cost of the state of PC the long way (its module, then its state
   there, as the walk looks them up): one lookup, in ns.  */
static double state_ns(uint64_t pc, int *rc)
{
  struct gorc_state s;
  struct gorc_rt_module m;
  double t0 = now_ns();
  *rc = gorc_rt_module_find(pc, &m) == 0 ? gorc_rt_module_state(&m, pc, &s) : 0;
  return now_ns() - t0;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: first-use LIBRARY SYMBOL\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW);
  void *fn = lib ? dlsym(lib, argv[2]) : NULL;
  if (!fn) {
    fprintf(stderr, "first-use: %s\n", dlerror());
    return 1;
  }
  uint64_t pc = (uint64_t)(uintptr_t)fn + 4;
  int rc1, rc2;
  double first = state_ns(pc, &rc1), again = state_ns(pc, &rc2);
  struct gorc_rt_walk_modules wm;
  unsigned slot = gorc_rt_walk_modules_init(&wm);
  gorc_rt_word(&wm, pc, &slot);
  double t0 = now_ns();
  enum { HITS = 1000 };
  unsigned sum = 0;
  for (int i = 0; i < HITS; i++)
    sum += gorc_rt_cache_word_of(slot, pc);
  double hit = (now_ns() - t0) / HITS;
  if (rc1 != 1 || rc2 != 1 || !sum) {
    fprintf(stderr, "first-use: lookups failed (%d, %d)\n", rc1, rc2);
    return 1;
  }
  printf("%.0f %.0f %.2f\n", first, again, hit);
  return 0;
}
