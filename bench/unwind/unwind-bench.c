/* make bench: cost of one stack walk, per frame, for each unwinder, on the
   same call chain, as ratios to a frame-pointer walk measured in the same
   run.  Under valgrind --tool=callgrind with GORC_BENCH_CALLGRIND=1 each
   method runs a fixed number of walks so that instruction counts per
   frame can be read from the per-function totals.

   Each timed cell is the median of the same measurement at STACK_PADS
   stack depths: where the stack lies relative to the address buffer
   changes a walk's time by up to 2x on some CPUs (loads from the stack
   falsely aliasing earlier stores to the buffer, 4 KiB apart), and
   address-space randomisation would otherwise pick one case per run.
   Each cell's last walk is checked (check_walk): a wrong one prints
   "MISMATCH" and the reason instead of a figure.  */

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
int mixed_nofp(int depth, chain_leaf_fn leaf, void *arg);
int mixed_fp(int depth, chain_leaf_fn leaf, void *arg);
int distinct_nofp(int depth, chain_leaf_fn leaf, void *arg);
int distinct_fp(int depth, chain_leaf_fn leaf, void *arg);

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
/* Not tail calls (the empty asm after them): every walker's frame is the
   first one walked, so that all walk the same frames.  */
__attribute__((noinline)) static int walk_glibc(void)
{
  int n = glibc_backtrace(ips, walk_max);
  __asm__ volatile("");
  return n;
}
__attribute__((noinline)) static int walk_unw(void)
{
  int n = unw_backtrace(ips, walk_max);
  __asm__ volatile("");
  return n;
}

/* libunwind exports _Unwind_Backtrace and _Unwind_GetIP too: libgcc's are
   taken from libgcc_s.so.1 explicitly.  */
static _Unwind_Reason_Code (*libgcc_backtrace)(_Unwind_Trace_Fn, void *);
static _Unwind_Ptr (*libgcc_get_ip)(struct _Unwind_Context *);

struct ub_state { int n; };
static _Unwind_Reason_Code ub_cb(struct _Unwind_Context *ctx, void *arg)
{
  struct ub_state *s = arg;
  if (s->n >= walk_max)
    return _URC_END_OF_STACK;
  ips[s->n++] = (void *)libgcc_get_ip(ctx);
  return _URC_NO_REASON;
}
__attribute__((noinline)) static int walk_libgcc(void)
{
  struct ub_state s = { 0 };
  libgcc_backtrace(ub_cb, &s);
  return s.n;
}

typedef int (*chain_fn)(int, chain_leaf_fn, void *);

#define NCHAINS 3
struct method {
  const char *name;
  int (*walk)(void);
  chain_fn chain[NCHAINS];     /* recursive, mixed, distinct */
};

static struct method methods[] = {
  { "frame-pointer walk", walk_fp, { chain_fp, mixed_fp, distinct_fp } },
  { "gorc_backtrace", walk_gorc, { chain_nofp, mixed_nofp, distinct_nofp } },
  { "glibc backtrace", walk_glibc, { chain_nofp, mixed_nofp, distinct_nofp } },
  { "libgcc _Unwind_Backtrace", walk_libgcc, { chain_nofp, mixed_nofp, distinct_nofp } },
  { "libunwind unw_backtrace", walk_unw, { chain_nofp, mixed_nofp, distinct_nofp } },
};
static const char *const chain_names[NCHAINS] = { "recursive", "mixed", "distinct" };
#define NMETHODS (sizeof methods / sizeof methods[0])
/* The chains built with the plugin: what all but the frame-pointer walk walk.  */
static const chain_fn plugin_chains[NCHAINS] = { chain_nofp, mixed_nofp, distinct_nofp };

struct leaf_arg {
  int (*walk)(void);
  long iters;
  int frames;
  double ns;
  int callgrind;
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
  if (a->callgrind)
    CALLGRIND_TOGGLE_COLLECT;  /* count the walks only */
  double t0 = now_ns();
  for (long i = 0; i < a->iters; i++)
    a->walk();
  a->ns = now_ns() - t0;
  if (a->callgrind)
    CALLGRIND_TOGGLE_COLLECT;
  return a->frames;
}

/* Run CHAIN to DEPTH with PAD more bytes of stack below the caller.  */
__attribute__((noinline)) static void run_padded(chain_fn chain, int depth, struct leaf_arg *a,
                                                 size_t pad)
{
  volatile char *p = __builtin_alloca(pad + 1);
  p[0] = 0;
  chain(depth, leaf, a);
  __asm__ volatile("" ::"r"(p) : "memory");
}

#define STACK_PADS 9
static int cmp_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* ns per frame of one cell: the median over STACK_PADS stack depths,
   each calibrated to about BUDGET_NS / STACK_PADS.  */
static double time_cell(struct method *m, int ch, int depth, long budget_ns, int *frames)
{
  double per_frame[STACK_PADS];
  for (int p = 0; p < STACK_PADS; p++) {
    size_t pad = 16 + (size_t)p * 456;  /* spread over 4 KiB */
    struct leaf_arg a = { m->walk, 1, 0, 0, 0 };
    run_padded(m->chain[ch], depth, &a, pad);
    double per = a.ns > 0 ? a.ns : 1;
    a.iters = (long)(budget_ns / STACK_PADS / per);
    if (a.iters < 10)
      a.iters = 10;
    run_padded(m->chain[ch], depth, &a, pad);
    *frames = a.frames;
    per_frame[p] = a.ns / a.iters / (a.frames ? a.frames : 1);
  }
  qsort(per_frame, STACK_PADS, sizeof per_frame[0], cmp_double);
  return per_frame[STACK_PADS / 2];
}

/* The last walk of METHOD M (FRAMES frames, in ips) against the
   reference walk of libunwind (REF_FRAMES in REF): why it is wrong, or
   NULL.  Each method finds walk_max frames; all but the frame-pointer
   walk (another build of the chain) the same addresses but the first,
   the return into each method's own walk_* function.  */
static const char *check_walk(const struct method *m, int frames, void *const *ref, int ref_frames)
{
  static char why[160];
  if (frames != walk_max) {
    snprintf(why, sizeof why, "%d frames, expected %d", frames, walk_max);
    return why;
  }
  if (m->walk == walk_fp)
    return NULL;
  if (ref_frames != frames) {
    snprintf(why, sizeof why, "libunwind found %d frames", ref_frames);
    return why;
  }
  for (int i = 1; i < frames; i++)
    if (ips[i] != ref[i]) {
      snprintf(why, sizeof why, "frame %d: %p, libunwind %p", i, ips[i], ref[i]);
      return why;
    }
  return NULL;
}

/* Under callgrind (collection off at start), each cell's walks are
   counted alone and dumped with the label "cell METHOD|CHAIN|DEPTH|FRAMES|ITERS";
   run.sh divides.  */
static void run_table(long budget_ns, int callgrind, int print)
{
  static const int depths[] = { 8, 32, 128 };
  if (print)
    printf("%-26s %-9s %6s %7s %10s %8s\n", "method", "chain", "depth", "frames", "ns/frame",
           "vs FP");
  for (int ch = 0; ch < NCHAINS; ch++) {
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
      double fp_per_frame = 0;
      walk_max = depths[d] + 2; /* leaf, DEPTH steps, the chain's entry */
      static void *ref[MAX_FRAMES];
      /* Through the same calls as time_cell's last walk.  */
      struct leaf_arg ref_walk = { walk_unw, 1, 0, 0, 0 };
      run_padded(plugin_chains[ch], depths[d], &ref_walk, 16);
      memcpy(ref, ips, sizeof ref);
      for (size_t m = 0; m < NMETHODS; m++) {
        if (callgrind) {
          struct leaf_arg a = { methods[m].walk, 100, 0, 0, print };
          methods[m].chain[ch](depths[d], leaf, &a);
          if (a.callgrind) {
            char label[160];
            snprintf(label, sizeof label, "cell %s|%s|%d|%d|%ld", methods[m].name,
                     chain_names[ch], depths[d], a.frames, a.iters);
            CALLGRIND_DUMP_STATS_AT(label);
          }
          continue;
        }
        int frames = 0;
        double per_frame = time_cell(&methods[m], ch, depths[d], budget_ns, &frames);
        const char *bad = check_walk(&methods[m], frames, ref, ref_walk.frames);
        if (bad) {
          if (print)
            printf("%-26s %-9s %6d  MISMATCH: %s\n", methods[m].name, chain_names[ch], depths[d],
                   bad);
          continue;
        }
        if (m == 0)
          fp_per_frame = per_frame;
        if (print)
          printf("%-26s %-9s %6d %7d %10.2f %7.2fx\n", methods[m].name, chain_names[ch],
                 depths[d], frames, per_frame, fp_per_frame > 0 ? per_frame / fp_per_frame : 0);
      }
    }
  }
}

struct cold_walk {
  int frames;
  double ns;
};

static int cold_leaf(void *p)
{
  struct cold_walk *c = p;
  double t0 = now_ns();
  c->frames = walk_gorc();
  c->ns = now_ns() - t0;
  return c->frames;
}

/* unwind-bench --cold: one gorc walk of the distinct chain at depth 32,
   the first walk of this process (nothing walked or cached before it but
   what libgorc's start-up did); prints "FRAMES NS".  run.sh takes the
   median over fresh processes.  */
static int run_cold(void)
{
  struct cold_walk c = { 0, 0 };
  walk_max = 32 + 2;
  distinct_nofp(32, cold_leaf, &c);
  printf("%d %.0f\n", c.frames, c.ns);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--cold") == 0)
    return run_cold();
  int callgrind = getenv("GORC_BENCH_CALLGRIND") != NULL;
  long budget_ns = argc > 1 ? atol(argv[1]) : 200000000; /* per cell */
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  glibc_backtrace = libc ? (int (*)(void **, int))dlsym(libc, "backtrace") : NULL;
  void *libgcc = dlopen("libgcc_s.so.1", RTLD_NOW);
  if (libgcc) {
    libgcc_backtrace = (_Unwind_Reason_Code (*)(_Unwind_Trace_Fn, void *))dlsym(libgcc, "_Unwind_Backtrace");
    libgcc_get_ip = (_Unwind_Ptr (*)(struct _Unwind_Context *))dlsym(libgcc, "_Unwind_GetIP");
  }
  if (!libgcc_backtrace || !libgcc_get_ip) {
    fprintf(stderr, "unwind-bench: _Unwind_Backtrace not found in libgcc_s.so.1\n");
    return 2;
  }
  if (!glibc_backtrace) {
    fprintf(stderr, "unwind-bench: backtrace not found in libc.so.6\n");
    return 2;
  }
  if (callgrind)
    run_table(0, 1, 0);  /* first-use costs (libgcc_s, table set-up) out of the counts */
  run_table(budget_ns, callgrind, 1);
  return 0;
}
