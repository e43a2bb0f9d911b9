/* Walks interrupted by walks while libgorc's caches are written: the PC
   cache (written by a walk that misses it, read by every walk, also by a
   handler's walk that interrupted a walk writing it) and the module slots
   (filled when a walk meets a module, rewritten when the library opened
   and closed every 40 walks comes back).  Here gorc_backtrace runs in a
   loop from two call sites with different chains, and walks in signal
   handlers interrupt the loop's walks.  Every walk of the loop must give
   exactly the chain its call site gave the first time, and every handler
   walk must give the interrupted chain below the signal frame.

   The interruptions are driven, not waited for:
   - every few walks the chain raises SIGPROF at a chosen depth, and the
     handler's walk must follow the chain from there;
   - some walks run single-stepped (the trap flag), and at every
     instruction of gorc_backtrace a SIGTRAP handler walks: nested walks
     at every point of a walk writing the caches, which must all follow
     the interrupted chain.  Both handlers walk through one function, so
     that their first frames are the same and meet each other's cache
     entries.
   A sampler thread sends SIGPROF too, counted but not required.  The
   loop runs on the main thread (gorc_backtrace's own path) and then on
   another thread (the cursor path).  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>
#include "support/rt-sampler.h"

#define DEPTH 24
#define MAX 96
#define WALKS 2000          /* loop walks per phase */
#define DLOPEN_EVERY 40     /* a library opened and closed before every 40th walk */
#define RAISE_EVERY 3       /* every 3rd walk raises SIGPROF inside its chain */
#define STEP_EVERY 400      /* three of every 400 walks are single-stepped */
#define TF 0x100            /* the trap flag in rflags */

/* The chain each call site gave first: ref[site][0..ref_n[site]).  */
static void *ref[2][MAX];
static int ref_n[2];

/* The loop's orders for its current walk (0: none).  */
static int raise_depth, step_walk;

/* A raised SIGPROF: while ON, a handler walk must find ANCHOR (the
   return address into the chain) followed by ref[site][from..].  CALLS
   raises, SEEN handler walks that did (a sampled SIGPROF may come while
   ON too).  */
static struct {
  volatile int on, site, from, calls, seen;
  void *volatile anchor;
} raised;

/* A single-stepped walk: IN while the trapped instructions are
   gorc_backtrace's; WALKS nested walks, THROUGH of them through the
   chain.  */
static struct {
  volatile int site, in, walks, through;
} step;

static atomic_int timer_samples, timer_through;
static int raised_total, stepped_total, step_walks_total;

static int site_walk(int site);
static void raise_here(int site, int depth);

__attribute__((noinline)) static int chain_a(int depth)
{
  volatile char pad[40];
  pad[depth % 40] = (char)depth;
  if (depth == raise_depth)
    raise_here(0, depth);
  int r = depth <= 1 ? site_walk(0) : chain_a(depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + pad[depth % 40];
}

__attribute__((noinline)) static int chain_b(int depth)
{
  volatile char pad[200];
  pad[depth % 200] = (char)depth;
  __asm__ volatile("" ::: "rbx", "r12", "r13");
  if (depth == raise_depth)
    raise_here(1, depth);
  int r = depth <= 1 ? site_walk(1) : chain_b(depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + pad[depth % 200];
}

/* Set or clear the trap flag: with it set, every instruction is followed
   by a SIGTRAP.  (A sampled walk from between pushfq and popfq takes the
   flags for the return address and stops with an error: only walks that
   meet a chain are checked.)  */
__attribute__((noinline)) static void trap_flag(int on)
{
  if (on)
    __asm__ volatile("pushfq\n\torq %0, (%%rsp)\n\tpopfq" : : "i"(TF) : "memory", "cc");
  else
    __asm__ volatile("pushfq\n\tandq %0, (%%rsp)\n\tpopfq" : : "i"(~TF) : "memory", "cc");
}

/* One walk from SITE's chain, compared with the first one.  */
__attribute__((noinline)) static int site_walk(int site)
{
  void *ips[MAX];
  int stepped = step_walk && ref_n[site] != 0;
  step.site = site;
  step.in = 0;
  /* Unconditional calls: one path to the one call of gorc_backtrace, so
     every walk from here has the same first frame.  The count is the
     return value: gorc_backtrace_count() would be the handler's if a
     signal came just after the walk.  */
  trap_flag(stepped);
  int n = gorc_backtrace(ips, MAX);
  trap_flag(0);
  CHECK(n >= 0, n);
  CHECK(n > DEPTH + 2 && n < MAX, n);
  if (ref_n[site] == 0) {
    memcpy(ref[site], ips, n * sizeof ips[0]);
    /* A sampled SIGPROF's handler reads ref[site] once ref_n[site] is
       set: without the fence the compiler may store the count before the
       copy (seen: a handler compared with a half-written chain).  */
    atomic_signal_fence(memory_order_release);
    ref_n[site] = n;
    return 1;
  }
  CHECK(n == ref_n[site], n - ref_n[site]);
  for (int i = 0; i < n; i++)
    if (ips[i] != ref[site][i])
      FAIL("a walk differs from its call site's first walk at frame", i);
  return 1;
}

/* A handler's walk, into IPS[0..MAX + 32); returns gorc_backtrace's
   result and stores the count in *N.  Both handlers walk through here.  */
__attribute__((noinline)) static int handler_walk(void **ips, int *n)
{
  int rc = gorc_backtrace(ips, MAX + 32);
  *n = gorc_backtrace_count();
  CHECK(rc >= -GORC_EINIT && *n >= 0 && *n <= MAX + 32, rc);
  __asm__ volatile("" ::: "memory");
  return rc;
}

/* Whether a handler walk IPS[0..N) (result RC) met ANCHOR; if it did, it
   must go on exactly as SITE's chain from ref[site][FROM] to its end.  */
static int follows(void **ips, int rc, int n, const void *anchor, int site, int from)
{
  for (int i = 0; i < n; i++) {
    if (ips[i] != anchor)
      continue;
    CHECK(rc >= 0, rc);
    CHECK(n - i - 1 == ref_n[site] - from, n - i - 1);
    for (int k = from; k < ref_n[site]; k++)
      if (ips[i + 1 + k - from] != ref[site][k])
        FAIL("a handler walk left the interrupted chain at frame", i + 1 + k - from);
    return 1;
  }
  return 0;
}

/* Raise SIGPROF here, in SITE's chain at DEPTH: raise returns after the
   handler has run.  */
__attribute__((noinline)) static void raise_here(int site, int depth)
{
  int seen = raised.seen;
  raised.calls++;
  raised.anchor = __builtin_return_address(0);
  raised.site = site;
  raised.from = depth + 1;
  raised.on = 1;
  CHECK(raise(SIGPROF) == 0, depth);
  raised.on = 0;
  CHECK(raised.seen > seen, depth);
  __asm__ volatile("" ::: "memory");
}

/* SIGPROF, raised by the chain or sent by the sampler.  A raised one
   must follow the chain from where it was raised; a sampled one that
   met a chain's deepest call of site_walk (ref[site][1]) must follow
   that chain.  */
static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
  (void)sig;
  (void)si;
  (void)uc;
  void *ips[MAX + 32];
  int n;
  int rc = handler_walk(ips, &n);
  if (raised.on) {
    if (!follows(ips, rc, n, raised.anchor, raised.site, raised.from))
      FAIL("a raised SIGPROF's walk missed the chain at depth", raised.from - 1);
    raised.seen++;
    return;
  }
  atomic_fetch_add(&timer_samples, 1);
  for (int site = 0; site < 2; site++)
    if (ref_n[site] != 0 && follows(ips, rc, n, ref[site][1], site, 2)) {
      atomic_fetch_add(&timer_through, 1);
      return;
    }
}

/* SIGTRAP after every instruction of a single-stepped walk: from the
   entry of gorc_backtrace until it returns into site_walk (ref[site][0]),
   walk, and the walk must follow the chain.  */
static void on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
  (void)sig;
  (void)si;
  ucontext_t *uc = ucv;
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  if (pc == (uintptr_t)gorc_backtrace)
    step.in = 1;
  else if (pc == (uintptr_t)ref[step.site][0])
    step.in = 0;
  if (!step.in)
    return;
  void *ips[MAX + 32];
  int n;
  int rc = handler_walk(ips, &n);
  step.walks++;
  if (follows(ips, rc, n, ref[step.site][1], step.site, 2))
    step.through++;
}

/* SIGTRAP's handler, with SIGPROF blocked in it: a sampled SIGPROF
   between its walk and gorc_backtrace_count would change the count.  */
static void on_sigtrap_install(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigtrap;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGPROF);
  CHECK(sigaction(SIGTRAP, &sa, NULL) == 0, 0);
}

/* Set raise_depth and step_walk for walk I, which follows a dlopen if
   AFTER_DLOPEN; returns whether it is single-stepped.  Raises go to
   every depth in turn.  Of every STEP_EVERY walks three are stepped: the
   first after a dlopen, with nothing raised before it (it rewrites the
   cached view and every first-frame entry), one with a raise before it
   (the handler's walk wrote entries, at the nested walks' first frame
   among them) and one with neither (only the entries where the two
   sites differ are rewritten).  Nothing before both sites have a
   chain.  */
static int plan_walk(int i, int after_dlopen)
{
  int s = i % STEP_EVERY;
  step_walk = i >= 2 && ((after_dlopen && s == DLOPEN_EVERY - 1) ||
                         s == STEP_EVERY / 2 + 1 || s == STEP_EVERY / 2 + 2);
  int quiet = step_walk && after_dlopen;
  raise_depth = i >= 2 && i % RAISE_EVERY == 0 && !quiet ? 1 + i / RAISE_EVERY % DEPTH : 0;
  return step_walk;
}

/* Walk WALKS times from the two sites in turn, with the interruptions
   planned above; count what the handlers saw.  */
static void *loop(void *arg)
{
  (void)arg;
  int raised_before = raised.calls;
  ref_n[0] = ref_n[1] = 0;
  step.walks = step.through = 0;
  int stepped = 0, raises = 0;
  for (int i = 0; i < WALKS; i++) {
    int after_dlopen = i % DLOPEN_EVERY == DLOPEN_EVERY - 1;
    if (after_dlopen) {
      void *h = dlopen("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
      CHECK(h != NULL, i);
      CHECK(dlclose(h) == 0, i);
    }
    stepped += plan_walk(i, after_dlopen);
    raises += raise_depth != 0;
    CHECK((i % 2 ? chain_b(DEPTH) : chain_a(DEPTH)) > 0, i);
  }
  raise_depth = step_walk = 0;
  CHECK(raised.calls - raised_before == raises, raised.calls - raised_before);
  /* Every nested walk, at every instruction, went through the chain.  */
  CHECK(step.walks > stepped, step.walks);
  CHECK(step.through == step.walks, step.walks - step.through);
  raised_total += raises;
  stepped_total += step.walks;
  step_walks_total += stepped;
  return NULL;
}

static void report(const char *what)
{
  printf("%s: %d raised walks, %d nested walks in %d stepped walks, "
         "%d sampled (%d through the chains)\n",
         what, raised_total, stepped_total, step_walks_total, atomic_load(&timer_samples),
         atomic_load(&timer_through));
}

int main(void)
{
  on_sigtrap_install();
  rt_run_sampled_here(loop, 20000, on_sigprof);
  report("main thread");
  rt_run_sampled(loop, 20000, on_sigprof);
  report("all");
  return 0;
}
