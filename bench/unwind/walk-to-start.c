/* make bench: what a user pays for one whole stack walk, from a leaf to
   _start, per walk and per frame.  The chain under the leaf is linked in:
   CHAIN_ENTRY(CHAIN_DEPTH, leaf, arg) makes CHAIN_DEPTH frames and then
   calls leaf (chain8.c: main -> f1 -> f2 -> f3 -> leaf; chain.c's
   depth-32 chains; a chain through generated shared libraries).  main
   calls the chain itself, so a walk from the leaf to _start finds
   CHAIN_DEPTH + 5 frames: the leaf, the chain, main,
   __libc_start_call_main, __libc_start_main and _start.

   Built twice.  Without frame pointers, with the plugin: gorc_backtrace,
   libunwind's unw_backtrace and glibc's backtrace(), each called from the
   leaf in a loop.  With -DFRAME_POINTERS and the chain built with frame
   pointers: a frame-pointer walk, which stops at main's return into
   glibc (glibc's start-up code keeps no frame pointer): CHAIN_DEPTH + 3
   frames.

   walk-to-start [BUDGET_MS]: for each of STACK_PADS stack placements (a
   VLA in main moves the whole chain), every method in turn times a batch
   of walks; prints per method "METHOD FRAMES NS_PER_WALK", the median over
   the placements.  Each method's walk is checked before timing and after
   each timed batch: the expected number of frames, and (without frame pointers) the same
   addresses as unw_backtrace (but the first: each method returns to its
   own call in the leaf); a method that fails prints
   "METHOD MISMATCH REASON" instead.
   walk-to-start --cold METHOD: the first walk of this process, once;
   prints "METHOD FRAMES NS".
   walk-to-start --count METHOD WALKS, under valgrind --tool=callgrind
   --collect-atstart=no: the walk checked, then WALKS walks with callgrind
   collecting (and nothing else); prints "METHOD FRAMES WALKS" (or
   "METHOD MISMATCH REASON").

   Built with -DWALK_LIBGCC (aarch64, bench/unwind/aarch64.sh: no
   libunwind for arm64 here, and no valgrind under qemu-user): the
   methods are gorc_backtrace and libgcc's _Unwind_Backtrace, which is
   also the reference the walks are checked against; --count runs its
   walks without counting them.  */

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>
#include <unwind.h>
#ifdef WALK_LIBGCC
#define CALLGRIND_TOGGLE_COLLECT ((void)0)
#else
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <valgrind/callgrind.h>
#endif
#include "gorc.h"

typedef int (*chain_leaf_fn)(void *arg);
typedef int (*chain_entry_fn)(int depth, chain_leaf_fn leaf, void *arg);
#ifdef CHAIN_DLOPEN
/* The chain is in a library the program dlopens (CHAIN_DLOPEN, its file):
   modules that may be unloaded, which gorc checks once per walk.  */
#define STR(x) #x
#define XSTR(x) STR(x)
static chain_entry_fn chain_entry(void)
{
  void *lib = dlopen(CHAIN_DLOPEN, RTLD_NOW | RTLD_LOCAL);
  chain_entry_fn entry = lib ? (chain_entry_fn)dlsym(lib, XSTR(CHAIN_ENTRY)) : NULL;
  if (!entry) {
    fprintf(stderr, "walk-to-start: %s\n", dlerror());
    exit(2);
  }
  return entry;
}
#else
int CHAIN_ENTRY(int depth, chain_leaf_fn leaf, void *arg);
static chain_entry_fn chain_entry(void)
{
  return CHAIN_ENTRY;
}
#endif

#define MAX_FRAMES 512
#define STACK_PADS 9

enum method { M_FP, M_GORC, M_UNW, M_GLIBC, M_GCC, NMETHODS };
static const char *const method_names[NMETHODS] = {
  "frame-pointer", "gorc_backtrace", "unw_backtrace", "glibc_backtrace", "_Unwind_Backtrace"
};
#ifdef FRAME_POINTERS
static const enum method methods[] = { M_FP };
#define EXPECTED_FRAMES (CHAIN_DEPTH + 3)
#elif defined(WALK_LIBGCC)
static const enum method methods[] = { M_GORC, M_GCC };
#define EXPECTED_FRAMES (CHAIN_DEPTH + 5)
#else
static const enum method methods[] = { M_GORC, M_UNW, M_GLIBC };
#define EXPECTED_FRAMES (CHAIN_DEPTH + 5)
#endif
/* The walk the others are checked against.  */
#ifdef WALK_LIBGCC
#define M_REF M_GCC
#else
#define M_REF M_UNW
#endif
#define NRUN (sizeof methods / sizeof methods[0])

/* main's frame: the frame-pointer walk stops at its return address.  Past
   it are glibc's start-up frames, whose rbp is no frame pointer (main's
   saved rbp is whatever they had in it).  */
static uintptr_t *outermost_frame;

/* backtrace(3) over the rbp chain: [rbp] = the caller's rbp, [rbp+8] =
   the return address.  */
__attribute__((noinline)) static int fp_backtrace(void **ips, int max)
{
  uintptr_t *bp = __builtin_frame_address(0);
  int n = 0;
  while (n < max) {
    ips[n++] = (void *)bp[1];
    uintptr_t *next = (uintptr_t *)bp[0];
    if (bp == outermost_frame || next <= bp)
      break;
    bp = next;
  }
  return n;
}

struct gcc_walk {
  void **ips;
  int n, max;
};

static _Unwind_Reason_Code gcc_frame(struct _Unwind_Context *ctx, void *arg)
{
  struct gcc_walk *w = arg;
  if (w->n >= w->max)
    return _URC_END_OF_STACK;
  w->ips[w->n++] = (void *)_Unwind_GetIP(ctx);
  return _URC_NO_REASON;
}

/* libgcc's walk as backtrace(3): from its caller (_Unwind_Backtrace's
   first frame is this function's, dropped), without the 0 that aarch64's
   libgcc reports past _start.  */
__attribute__((noinline)) static int gcc_backtrace(void **ips, int max)
{
  void *all[MAX_FRAMES + 1];
  struct gcc_walk w = { all, 0, max + 1 < MAX_FRAMES + 1 ? max + 1 : MAX_FRAMES + 1 };
  _Unwind_Backtrace(gcc_frame, &w);
  int n = w.n > 0 ? w.n - 1 : 0;
  while (n > 0 && all[n] == NULL)
    n--;
  memcpy(ips, all + 1, n * sizeof *ips);
  return n;
}

/* glibc's backtrace(), taken from libc.so.6 explicitly: libunwind
   exports a backtrace() of its own, which the program would bind to.  */
static int (*glibc_backtrace)(void **, int);

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* What the leaf is asked to do: ITERS walks of METHOD into IPS.  */
struct leaf_job {
  enum method method;
  long iters;
  void **ips;
  int frames;     /* the last walk's count (negative: gorc's error) */
  double ns;      /* all ITERS walks */
  int callgrind;  /* count the ITERS walks' instructions (and only them) */
};

/* The leaf calls each walker directly, so that the walk starts here and
   finds the same frames whichever the method.  */
__attribute__((noinline)) static int leaf(void *p)
{
  struct leaf_job *job = p;
  int n = 0;
  if (job->callgrind)
    CALLGRIND_TOGGLE_COLLECT;
  double t0 = now_ns();
  switch (job->method) {
  case M_FP:
    for (long i = 0; i < job->iters; i++)
      n = fp_backtrace(job->ips, MAX_FRAMES);
    break;
  case M_GORC:
    for (long i = 0; i < job->iters; i++)
      n = gorc_backtrace(job->ips, MAX_FRAMES);
    break;
  case M_UNW:
#ifndef WALK_LIBGCC
    for (long i = 0; i < job->iters; i++)
      n = unw_backtrace(job->ips, MAX_FRAMES);
#endif
    break;
  case M_GCC:
    for (long i = 0; i < job->iters; i++)
      n = gcc_backtrace(job->ips, MAX_FRAMES);
    break;
  case M_GLIBC:
    for (long i = 0; i < job->iters; i++)
      n = glibc_backtrace(job->ips, MAX_FRAMES);
    break;
  case NMETHODS:
    break;
  }
  job->ns = now_ns() - t0;
  if (job->callgrind)
    CALLGRIND_TOGGLE_COLLECT;
  job->frames = n;
  return n;
}

static int cmp_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* Why METHOD's walk WALK (N frames) is wrong, or NULL.  REF: the
   reference method's walk (REF_N frames), or NULL in the frame-pointer
   build.  */
static const char *check_walk(enum method method, void **walk, int n, void **ref, int ref_n)
{
  static char why[160];
  if (n < 0) {
    snprintf(why, sizeof why, "the walk failed: %s", gorc_strerror(n));
    return why;
  }
  if (n != EXPECTED_FRAMES) {
    snprintf(why, sizeof why, "%d frames, expected %d", n, EXPECTED_FRAMES);
    return why;
  }
  if (ref && method != M_REF) {
    if (ref_n != n) {
      snprintf(why, sizeof why, "%d frames, %s %d", n, method_names[M_REF], ref_n);
      return why;
    }
    /* Frame 0 is the return address into the leaf: each method's own
       call site there.  */
    for (int i = 1; i < n; i++)
      if (walk[i] != ref[i]) {
        snprintf(why, sizeof why, "frame %d: %p, %s %p", i, walk[i], method_names[M_REF],
                 ref[i]);
        return why;
      }
  }
  return NULL;
}

/* The run, as the jobs main hands to the chain one after the other: main
   has a single call of the chain, so that every walk finds the same
   return address into main.  */
enum phase {
  P_COLD,        /* the process's first walk */
  P_REFERENCE,   /* M_REF's walk, the addresses the others must find */
  P_CHECK,       /* each method's walk, checked (and the method warmed up) */
  P_CALIBRATE,   /* each method: 10 walks, to size its batches */
  P_TIME,        /* placements outer, methods inner: a disturbance hits all */
  P_COUNT,       /* each method: walks counted by callgrind */
  P_DONE
};
static const enum phase timing_run[] = { P_REFERENCE, P_CHECK, P_CALIBRATE, P_TIME, P_DONE };
static const enum phase counting_run[] = { P_REFERENCE, P_CHECK, P_COUNT, P_DONE };
static const enum phase cold_run[] = { P_COLD, P_DONE };

struct plan {
  const enum phase *phases;    /* the run: one of the above */
  const enum phase *phase;     /* the current one */
  size_t step;                 /* within the phase */
  enum method run[NMETHODS];   /* the methods measured, in turn */
  size_t nrun;
  double budget_ns;            /* P_TIME: for all batches together */
  long count_walks;            /* P_COUNT: walks per method */
  struct leaf_job job;         /* what the chain runs now */
  size_t pad;                  /* with this many bytes of stack below main's */
  size_t placement;            /* P_TIME: which of the STACK_PADS */
  void *ips[MAX_FRAMES];
  void *ref[MAX_FRAMES];
  int ref_n;
  const char *bad[NMETHODS];   /* why a method's walk is wrong */
  long iters[NMETHODS];        /* walks per timed batch */
  double per_walk[NMETHODS][STACK_PADS];
};

static void plan_job(struct plan *pl, enum method m, long iters, void **ips, size_t pad)
{
  pl->job = (struct leaf_job){ m, iters, ips, 0, 0, 0 };
  pl->pad = pad;
}

/* Check the last walk of the job just run; the first reason a method's
   walk is wrong is kept.  */
static void check_job(struct plan *pl)
{
  struct leaf_job *job = &pl->job;
#ifdef FRAME_POINTERS
  const char *why = check_walk(job->method, pl->ips, job->frames, NULL, 0);
#else
  const char *why = check_walk(job->method, pl->ips, job->frames, pl->ref, pl->ref_n);
#endif
  if (why && !pl->bad[job->method])
    pl->bad[job->method] = strdup(why);
}

/* Take the result of the job just run.  */
static void plan_result(struct plan *pl)
{
  struct leaf_job *job = &pl->job;
  switch (*pl->phase) {
  case P_REFERENCE:
    pl->ref_n = job->frames;
    break;
  case P_CHECK:
    check_job(pl);
    break;
  case P_CALIBRATE: {
    double one = job->ns / job->iters > 1 ? job->ns / job->iters : 1;
    long n = (long)(pl->budget_ns / STACK_PADS / pl->nrun / one);
    pl->iters[job->method] = n < 10 ? 10 : n;
    break;
  }
  case P_TIME:
    check_job(pl);  /* the last walk of the batch, at this placement */
    pl->per_walk[job->method][pl->placement] = job->ns / job->iters;
    break;
  case P_COLD:
  case P_COUNT:
  case P_DONE:
    break;
  }
}

static size_t phase_steps(const struct plan *pl)
{
  switch (*pl->phase) {
  case P_COLD:
    return 1;
  case P_REFERENCE:
#ifdef FRAME_POINTERS
    return 0;
#else
    return 1;
#endif
  case P_TIME:
    return STACK_PADS * pl->nrun;
  case P_CHECK:
  case P_CALIBRATE:
  case P_COUNT:
    return pl->nrun;
  case P_DONE:
    break;
  }
  return 0;
}

/* The next job, or NULL when the run is over.  */
static struct leaf_job *plan_next(struct plan *pl)
{
  while (*pl->phase != P_DONE && pl->step >= phase_steps(pl)) {
    pl->phase++;
    pl->step = 0;
  }
  enum method m = pl->run[pl->step % pl->nrun];
  switch (*pl->phase) {
  case P_REFERENCE:
    plan_job(pl, M_REF, 1, pl->ref, 16);
    break;
  case P_COLD:
  case P_CHECK:
    plan_job(pl, m, 1, pl->ips, 16);
    break;
  case P_CALIBRATE:
    plan_job(pl, m, 10, pl->ips, 16);
    break;
  case P_TIME:
    pl->placement = pl->step / pl->nrun;
    plan_job(pl, m, pl->iters[m], pl->ips, 16 + pl->placement * 456); /* over 4 KiB */
    break;
  case P_COUNT:
    plan_job(pl, m, pl->count_walks, pl->ips, 16);
    pl->job.callgrind = 1;
    break;
  case P_DONE:
    return NULL;
  }
  pl->step++;
  return &pl->job;
}

static void report_times(struct plan *pl)
{
  for (size_t r = 0; r < pl->nrun; r++) {
    enum method m = pl->run[r];
    if (pl->bad[m]) {
      printf("%s MISMATCH %s\n", method_names[m], pl->bad[m]);
      continue;
    }
    qsort(pl->per_walk[m], STACK_PADS, sizeof pl->per_walk[m][0], cmp_double);
    printf("%s %d %.1f\n", method_names[m], EXPECTED_FRAMES, pl->per_walk[m][STACK_PADS / 2]);
  }
}

/* The method named NAME, or NMETHODS.  */
static enum method method_named(const char *name)
{
  int m = 0;
  while (m < NMETHODS && strcmp(name, method_names[m]) != 0)
    m++;
  return (enum method)m;
}

static int usage(void)
{
  fprintf(stderr, "usage: walk-to-start [BUDGET_MS] | --cold METHOD | --count METHOD WALKS\n"
                  "  METHOD: one of this build's:");
  for (size_t r = 0; r < sizeof methods / sizeof methods[0]; r++)
    fprintf(stderr, " %s", method_names[methods[r]]);
  fprintf(stderr, "\n");
  return 2;
}

/* Set PL up from the command line; false if it is wrong.  */
static int plan_init(struct plan *pl, int argc, char **argv)
{
  int cold = argc == 3 && strcmp(argv[1], "--cold") == 0;
  int count = argc == 4 && strcmp(argv[1], "--count") == 0;
  if (cold || count) {
    enum method m = method_named(argv[2]);
    int built = 0;
    for (size_t r = 0; r < sizeof methods / sizeof methods[0]; r++)
      built |= methods[r] == m;
    if (!built)
      return 0;
    pl->run[0] = m;
    pl->nrun = 1;
    pl->phases = pl->phase = cold ? cold_run : counting_run;
    pl->count_walks = count ? atol(argv[3]) : 0;
    return cold || pl->count_walks > 0;
  }
  if (argc > 2 || (argc == 2 && atof(argv[1]) <= 0))
    return 0;
  memcpy(pl->run, methods, sizeof methods);
  pl->nrun = sizeof methods / sizeof methods[0];
  pl->phases = pl->phase = timing_run;
  pl->budget_ns = (argc > 1 ? atof(argv[1]) : 100) * 1e6;
  return 1;
}

int main(int argc, char **argv)
{
  static struct plan plan;
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  glibc_backtrace = libc ? (int (*)(void **, int))dlsym(libc, "backtrace") : NULL;
  if (!glibc_backtrace) {
    fprintf(stderr, "walk-to-start: backtrace not found in libc.so.6\n");
    return 2;
  }
  if (!plan_init(&plan, argc, argv))
    return usage();
  outermost_frame = __builtin_frame_address(0);
  chain_entry_fn entry = chain_entry();

  while (plan_next(&plan)) {
    volatile char stack_pad[plan.pad + 1];
    stack_pad[0] = 0;
    entry(CHAIN_DEPTH, leaf, &plan.job);
    __asm__ volatile("" ::"r"(stack_pad) : "memory");
    plan_result(&plan);
  }

  enum method m = plan.run[0];
  if (plan.phases == cold_run) {
    printf("%s %d %.0f\n", method_names[m], plan.job.frames, plan.job.ns);
    return plan.job.frames == EXPECTED_FRAMES ? 0 : 1;
  }
  if (plan.phases == counting_run) {
    if (plan.bad[m])
      printf("%s MISMATCH %s\n", method_names[m], plan.bad[m]);
    else
      printf("%s %d %ld\n", method_names[m], EXPECTED_FRAMES, plan.count_walks);
    return 0;
  }
  report_times(&plan);
  return 0;
}
