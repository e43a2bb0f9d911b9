/* Walks before libgorc's own constructor has run (issue 15, e):
   examples/demo-sampled starts its sampler from a constructor that runs
   before libgorc's (libgorc.a linked after it), and a sample that
   arrived there (in pthread_create, as the sampler thread was being
   created) stopped after 1-2 frames: the main thread's stack bounds were
   not noted yet, so only the page of the sample's sp was read.  This
   constructor has a priority, so it runs before every constructor
   without one, libgorc's among them, and walks from a chain deeper than
   a page: gorc_backtrace must give the whole chain, and
   gorc_backtrace_ucontext from a signal raised at its bottom must equal
   libunwind's walk, to the outermost frame.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */

#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <ucontext.h>
#include "support/rt-trace.h"

#define DEPTH 40
#define MAX 128
static void *exp_ra[DEPTH + 1];
static volatile int walks;
volatile int sink;

static void
on_prof (int sig, siginfo_t *si, void *uc)
{
  void *ours[MAX], *theirs[MAX];
  int rc;
  (void) sig;
  (void) si;
  if (rt_ucontext_walks_differ (uc, ours, theirs, MAX, &rc, "SIGPROF in a constructor", NULL, NULL))
    FAIL ("a walk before libgorc's constructor differs from libunwind's", rc);
  walks++;
}

/* Frames of 256 bytes: the chain spans several pages.  */
__attribute__((noinline, noclone)) static int
rec (int n)
{
  volatile char pad[256];
  pad[n & 255] = (char) n;
  exp_ra[n] = __builtin_return_address (0);
  if (n == 0) {
    void *ips[MAX];
    int rc = gorc_backtrace (ips, MAX);
    if (rc < 0) {
      rt_puts (gorc_strerror (rc));
      FAIL (" gorc_backtrace before libgorc's constructor", gorc_backtrace_count ());
    }
    rt_check_chain (ips, rc, 1, exp_ra, DEPTH + 1);
    raise (SIGPROF);
    return pad[0];
  }
  int r = rec (n - 1);
  sink += r;
  return r + pad[n & 255];
}

__attribute__((constructor (101))) static void
walk_early (void)
{
  rt_on_signal (SIGPROF, on_prof, 0);
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  rec (DEPTH);
}

int
main (void)
{
  CHECK (walks == 1, walks);
  printf ("walks from a constructor before libgorc's reach the outermost frame\n");
  return 0;
}
