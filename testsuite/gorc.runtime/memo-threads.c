/* More threads than there are walk memos (64, picked by a hash of the
   thread pointer: memo.h), so threads share memos and rewrite each
   other's, all walking at once at depths of their own.  Every walk must
   give its thread's recorded chain and reach the thread's start.  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */

#define _GNU_SOURCE
#include <pthread.h>
#include "support/rt-test.h"

#define NTHREADS 72
#define ITERS 300
#define MAX_DEPTH 24
volatile int sink;

struct ctx {
  int depth;
  void *exp_ra[MAX_DEPTH + 1];
  void *ips[128];
  int first_rc;
};

__attribute__((noinline, noclone)) static int rec(struct ctx *c, int n)
{
  c->exp_ra[n] = __builtin_return_address(0);
  if (n == 0) {
    int rc = gorc_backtrace(c->ips, 128);
    if (rc < 0) {
      rt_puts(gorc_strerror(rc));
      FAIL(" gorc_backtrace", gorc_backtrace_count());
    }
    rt_check_chain(c->ips, rc, 1, c->exp_ra, c->depth + 1);
    if (!c->first_rc)
      c->first_rc = rc;
    CHECK(rc == c->first_rc, rc);
    return rc;
  }
  int r = rec(c, n - 1);
  sink += r;
  return r + 1;
}

static void *run(void *arg)
{
  struct ctx *c = arg;
  for (int i = 0; i < ITERS; i++)
    rec(c, c->depth);
  return 0;
}

int main(void)
{
  static struct ctx ctx[NTHREADS];
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    ctx[i].depth = 4 + i % (MAX_DEPTH - 4);
    CHECK(pthread_create(&t[i], 0, run, &ctx[i]) == 0, i);
  }
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], 0);
  for (int i = 0; i < NTHREADS; i++)
    CHECK(ctx[i].first_rc >= ctx[i].depth + 3, ctx[i].first_rc);
  return 0;
}
