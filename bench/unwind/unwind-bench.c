/* make bench: cost of one stack walk, per frame, for each unwinder, on the
   same call chain, as ratios to a frame-pointer walk measured in the same
   run.  Under valgrind --tool=callgrind with GORC_BENCH_CALLGRIND=1 each
   method runs a fixed number of walks so that instruction counts per
   frame can be read from the per-function totals.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unwind.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <valgrind/callgrind.h>
#include "gorc.h"

typedef int (*chain_leaf_fn)(void *arg);
int chain_nofp(int depth, chain_leaf_fn leaf, void *arg);
int chain_fp(int depth, chain_leaf_fn leaf, void *arg);

#define MAX_FRAMES 512
static void *ips[MAX_FRAMES];
/* Every method walks the same frames: the chain and no further (libc's
   frames have no frame pointer to follow).  */
static int walk_max;
static int (*glibc_backtrace)(void **, int);

/* Each walker returns the number of frames it found.  */
__attribute__((noinline)) static int walk_fp(void)
{
  /* rbp chain: [rbp] = caller's rbp, [rbp+8] = return address.  */
  uintptr_t *bp = __builtin_frame_address(0);
  int n = 0;
  while (bp && n < walk_max) {
    ips[n++] = (void *)bp[1];
    uintptr_t *next = (uintptr_t *)bp[0];
    if (next <= bp)
      break;
    bp = next;
  }
  return n;
}

__attribute__((noinline)) static int walk_gorc(void)
{
  gorc_backtrace(ips, walk_max);
  return gorc_backtrace_count();
}
__attribute__((noinline)) static int walk_glibc(void) { return glibc_backtrace(ips, walk_max); }
__attribute__((noinline)) static int walk_unw(void) { return unw_backtrace(ips, walk_max); }

struct ub_state { int n; };
static _Unwind_Reason_Code ub_cb(struct _Unwind_Context *ctx, void *arg)
{
  struct ub_state *s = arg;
  if (s->n >= walk_max)
    return _URC_END_OF_STACK;
  ips[s->n++] = (void *)_Unwind_GetIP(ctx);
  return _URC_NO_REASON;
}
__attribute__((noinline)) static int walk_libgcc(void)
{
  struct ub_state s = { 0 };
  _Unwind_Backtrace(ub_cb, &s);
  return s.n;
}

struct method {
  const char *name;
  int (*walk)(void);
  int (*chain)(int, chain_leaf_fn, void *);
};

static struct method methods[] = {
  { "frame-pointer walk", walk_fp, chain_fp },
  { "gorc_backtrace", walk_gorc, chain_nofp },
  { "glibc backtrace", walk_glibc, chain_nofp },
  { "libgcc _Unwind_Backtrace", walk_libgcc, chain_nofp },
  { "libunwind unw_backtrace", walk_unw, chain_nofp },
};
#define NMETHODS (sizeof methods / sizeof methods[0])

struct leaf_arg {
  int (*walk)(void);
  long iters;
  int frames;
  double ns;
};

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int leaf(void *p)
{
  struct leaf_arg *a = p;
  a->frames = a->walk(); /* warm-up, and the frame count */
  double t0 = now_ns();
  for (long i = 0; i < a->iters; i++)
    a->walk();
  a->ns = now_ns() - t0;
  return a->frames;
}

static void run_table(long budget_ns, int callgrind, int print)
{
  static const int depths[] = { 8, 32, 128 };
  if (print)
    printf("%-26s %6s %7s %10s %8s\n", "method", "depth", "frames", "ns/frame", "vs FP");
  for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
    double fp_per_frame = 0;
    walk_max = depths[d] + 2; /* leaf, DEPTH steps, the chain's entry */
    for (size_t m = 0; m < NMETHODS; m++) {
      struct leaf_arg a = { methods[m].walk, 1, 0, 0 };
      if (callgrind) {
        a.iters = 100;
      } else {
        /* calibrate: about BUDGET ns per cell */
        methods[m].chain(depths[d], leaf, &a);
        double per = a.ns > 0 ? a.ns : 1;
        a.iters = (long)(budget_ns / per);
        if (a.iters < 10)
          a.iters = 10;
      }
      methods[m].chain(depths[d], leaf, &a);
      double per_frame = a.ns / a.iters / (a.frames ? a.frames : 1);
      if (m == 0)
        fp_per_frame = per_frame;
      if (print)
        printf("%-26s %6d %7d %10.2f %7.2fx\n", methods[m].name, depths[d], a.frames,
               per_frame, fp_per_frame > 0 ? per_frame / fp_per_frame : 0);
    }
  }
}

int main(int argc, char **argv)
{
  int callgrind = getenv("GORC_BENCH_CALLGRIND") != NULL;
  long budget_ns = argc > 1 ? atol(argv[1]) : 200000000; /* per cell */
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  glibc_backtrace = libc ? (int (*)(void **, int))dlsym(libc, "backtrace") : NULL;
  if (!glibc_backtrace) {
    fprintf(stderr, "unwind-bench: backtrace not found in libc.so.6\n");
    return 2;
  }
  if (callgrind) {
    /* First use costs (libgcc_s loading, table set-up) out of the counts.  */
    run_table(0, 1, 0);
    CALLGRIND_ZERO_STATS;
  }
  run_table(budget_ns, callgrind, 1);
  return 0;
}
