/* make bench (bench/unwind/run.sh, part "sampled"): what a sampling
   profiler pays per sample in a real program, gorc against libunwind.

   Preloaded after libgorc (LD_PRELOAD=libgorc.so:sampled.so) into a
   single-threaded program that knows nothing of it.  A helper thread
   sends the main thread SIGPROF every GORC_SAMPLED_US microseconds
   (default 50; ITIMER_PROF would fire only at the kernel's tick, a few
   hundred times a second); the handler walks the interrupted context twice, with
   gorc_backtrace_ucontext and with libunwind's cursor (unw_init_local2
   with UNW_INIT_SIGNAL_FRAME, then unw_step: what a profiler inside the
   process calls), in turns (one sample gorc first, the next libunwind
   first), each timed with CLOCK_MONOTONIC, and compares the addresses.
   At exit it writes one line to stderr, totals over the samples:

     gorc-sampled: SAMPLES FRAMES GORC_NS UNW_NS DIFFERENT GORC_ERRORS

   FRAMES: addresses libunwind found; DIFFERENT: samples where the two
   disagree (the count or an address); GORC_ERRORS: samples where gorc's
   walk returned an error.  The cost of reading the clock is measured at
   start and taken off each walk's time.  */

#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "gorc.h"

#define MAX_FRAMES 256

static struct {
  long samples, frames, different, gorc_errors;
  int64_t gorc_ns, unw_ns;
} totals;
static int64_t clock_cost_ns;
static pthread_t target, ticker;
static atomic_int stop;
static long interval_us;

static int64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int walk_gorc(void *uc, void **ips, int64_t *ns)
{
  int64_t t0 = now_ns();
  int rc = gorc_backtrace_ucontext(uc, ips, MAX_FRAMES);
  *ns += now_ns() - t0 - clock_cost_ns;
  if (rc < 0) {
    totals.gorc_errors++;
    return gorc_backtrace_count();
  }
  return rc;
}

static int walk_unw(void *uc, void **ips, int64_t *ns)
{
  int64_t t0 = now_ns();
  unw_cursor_t c;
  int n = 0;
  if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
    do {
      unw_word_t ip;
      if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0)
        break;
      ips[n++] = (void *)ip;
    } while (n < MAX_FRAMES && unw_step(&c) > 0);
  }
  *ns += now_ns() - t0 - clock_cost_ns;
  return n;
}

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
  static void *gorc_ips[MAX_FRAMES], *unw_ips[MAX_FRAMES];
  int n_gorc, n_unw;
  (void)sig;
  (void)si;
  if (totals.samples & 1) {
    n_unw = walk_unw(uc, unw_ips, &totals.unw_ns);
    n_gorc = walk_gorc(uc, gorc_ips, &totals.gorc_ns);
  } else {
    n_gorc = walk_gorc(uc, gorc_ips, &totals.gorc_ns);
    n_unw = walk_unw(uc, unw_ips, &totals.unw_ns);
  }
  totals.samples++;
  totals.frames += n_unw;
  if (n_gorc != n_unw || memcmp(gorc_ips, unw_ips, (size_t)n_unw * sizeof(void *)) != 0)
    totals.different++;
}

/* The clock's own cost: the least of many back-to-back reads.  */
static int64_t measure_clock_cost(void)
{
  int64_t least = INT64_MAX;
  for (int i = 0; i < 1000; i++) {
    int64_t t0 = now_ns(), t1 = now_ns();
    if (t1 - t0 < least)
      least = t1 - t0;
  }
  return least;
}

static void *tick(void *arg)
{
  struct timespec ts = { 0, interval_us * 1000 };
  (void)arg;
  while (!atomic_load(&stop)) {
    pthread_kill(target, SIGPROF);
    nanosleep(&ts, NULL);
  }
  return NULL;
}

__attribute__((constructor)) static void sampled_start(void)
{
  const char *us_s = getenv("GORC_SAMPLED_US");
  struct sigaction sa;
  interval_us = us_s ? atol(us_s) : 50;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  clock_cost_ns = measure_clock_cost();
  target = pthread_self();
  if (sigaction(SIGPROF, &sa, NULL) == 0)
    pthread_create(&ticker, NULL, tick, NULL);
}

__attribute__((destructor)) static void sampled_report(void)
{
  atomic_store(&stop, 1);
  pthread_join(ticker, NULL);
  fprintf(stderr, "gorc-sampled: %ld %ld %lld %lld %ld %ld\n", totals.samples, totals.frames,
          (long long)totals.gorc_ns, (long long)totals.unw_ns, totals.different,
          totals.gorc_errors);
}
