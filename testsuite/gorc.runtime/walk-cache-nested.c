/* libgorc keeps per thread, from one walk to the next, the view of the
   module last walked and the state words of a walk's first frames, and
   only the outermost walk of a thread writes them.  Here gorc_backtrace
   runs in a loop from two call sites with different first frames (so the
   first-frame entries are rewritten on every walk), a library is opened
   and closed every 40 walks (so the registry generation changes and the
   cached view must be found again), and SIGPROF keeps interrupting the
   loop, whose handler walks with gorc_backtrace too, often from inside
   an interrupted walk that is writing those caches.  Every walk of the
   loop must give exactly the chain its call site gave the first time,
   and every handler walk that went through that chain must give the
   same chain below the signal frame.  The loop runs on the main thread
   (gorc_backtrace's own path) and then on another thread (the cursor
   path).  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include "support/rt-sampler.h"

#define DEPTH 24
#define MAX 96
#define MIN_WALKS 6000
#define MAX_WALKS 400000
#define MIN_CHECKED 100    /* handler walks through a chain, per phase */

/* The chain each call site gave first: ref[site][0..ref_n[site]).  */
static void *ref[2][MAX];
static int ref_n[2];
static atomic_int checked_samples, samples;

static int site_walk(int site);

__attribute__((noinline)) static int chain_a(int depth)
{
  volatile char pad[40];
  pad[depth % 40] = (char)depth;
  int r = depth <= 1 ? site_walk(0) : chain_a(depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + pad[depth % 40];
}

__attribute__((noinline)) static int chain_b(int depth)
{
  volatile char pad[200];
  pad[depth % 200] = (char)depth;
  __asm__ volatile("" ::: "rbx", "r12", "r13");
  int r = depth <= 1 ? site_walk(1) : chain_b(depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + pad[depth % 200];
}

/* One walk from SITE's chain, compared with the first one.  */
__attribute__((noinline)) static int site_walk(int site)
{
  void *ips[MAX];
  /* The count is the return value: gorc_backtrace_count() would be the
     handler's if SIGPROF came just after the walk.  */
  int n = gorc_backtrace(ips, MAX);
  CHECK(n >= 0, n);
  CHECK(n > DEPTH + 2 && n < MAX, n);
  if (ref_n[site] == 0) {
    memcpy(ref[site], ips, n * sizeof ips[0]);
    ref_n[site] = n;
    return 1;
  }
  CHECK(n == ref_n[site], n - ref_n[site]);
  for (int i = 0; i < n; i++)
    if (ips[i] != ref[site][i])
      FAIL("a walk differs from its call site's first walk at frame", i);
  return 1;
}

/* A handler walk that met one of the chains (the return address into a
   chain's deepest call of site_walk, ref[site][1]) must go on exactly as
   that chain did.  */
static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
  (void)sig;
  (void)si;
  (void)uc;
  void *ips[MAX + 32];
  int rc = gorc_backtrace(ips, MAX + 32);
  int n = gorc_backtrace_count();
  CHECK(rc >= -GORC_EINIT && n >= 0 && n <= MAX + 32, rc);
  atomic_fetch_add(&samples, 1);
  for (int site = 0; site < 2; site++) {
    if (ref_n[site] == 0)
      continue;
    for (int i = 0; i < n; i++) {
      if (ips[i] != ref[site][1])
        continue;
      CHECK(rc >= 0, rc);
      CHECK(n - i == ref_n[site] - 1, n - i);
      for (int k = 1; k < ref_n[site]; k++)
        if (ips[i + k - 1] != ref[site][k])
          FAIL("a handler walk left the interrupted chain at frame", i + k - 1);
      atomic_fetch_add(&checked_samples, 1);
      return;
    }
  }
}

/* Walk until enough handler walks went through the chains.  */
static void *loop(void *arg)
{
  (void)arg;
  int checked_before = atomic_load(&checked_samples);
  ref_n[0] = ref_n[1] = 0;
  for (int i = 0; i < MAX_WALKS; i++) {
    if (i >= MIN_WALKS && atomic_load(&checked_samples) - checked_before >= MIN_CHECKED)
      break;
    if (i % 40 == 39) {
      void *h = dlopen("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
      CHECK(h != NULL, i);
      CHECK(dlclose(h) == 0, i);
    }
    CHECK((i % 2 ? chain_b(DEPTH) : chain_a(DEPTH)) > 0, i);
  }
  return NULL;
}

int main(void)
{
  rt_run_sampled_here(loop, 20000, on_sigprof);
  int main_checked = atomic_load(&checked_samples);
  printf("main thread: %d samples, %d through the chains\n", atomic_load(&samples),
         main_checked);
  rt_run_sampled(loop, 20000, on_sigprof);
  printf("all: %d samples, %d through the chains\n", atomic_load(&samples),
         atomic_load(&checked_samples));
  CHECK(main_checked >= MIN_CHECKED, main_checked);
  CHECK(atomic_load(&checked_samples) - main_checked >= MIN_CHECKED,
        atomic_load(&checked_samples) - main_checked);
  return 0;
}
