/* Bad ranges keep the module (issue 12, item 7), whatever the plugin
   emits: a hand-written module (support/bad-ranges.s, records only, no
   .eh_frame) has ranges of length 0 at the start of good functions, one
   before and one after the good range in the index, and a range whose
   body is malformed, next to good ranges.  Walks through the good
   functions must be exact to the outermost frame; a walk through the
   malformed range, or starting in it, stops there with -GORC_ECORRUPT
   and reports no frame it did not know.  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-asynchronous-unwind-tables" } */
/* { dg-gorc-runtime static } */
/* { dg-gorc-runtime-library "support/bad-ranges.s" } */

#define _GNU_SOURCE
#include <stdio.h>
#include <ucontext.h>
#include "support/rt-test.h"

typedef int (*callback) (void);
int good_push (callback cb);
int good_frame (callback cb);
int bad_body (callback cb);
int good_last (callback cb);

#define MAX 64
static void *caller_ra;		/* call_through's return address */
static int expect_corrupt;
static int walks;

/* The walk from inside a function of the module.  ips[1] is in the
   module's function, ips[2] in call_through, ips[3] call_through's
   return address into main: exact only if the module's frame was.  */
__attribute__((noinline, noclone)) static int
probe (void)
{
  void *ips[MAX];
  int rc = gorc_backtrace (ips, MAX);
  int n = gorc_backtrace_count ();
  CHECK (n >= 2 && ips[1] == __builtin_return_address (0), n);
  walks++;
  if (expect_corrupt) {
    CHECK (rc == -GORC_ECORRUPT, rc);
    CHECK (n == 2, n);
    return 0;
  }
  if (rc < 0) {
    rt_puts (gorc_strerror (rc));
    FAIL (": a walk through a good range, frames", n);
  }
  CHECK (rc == n && rc >= 5 && rc < MAX, rc);
  CHECK (ips[3] == caller_ra, 0);
  return rc;
}

__attribute__((noinline, noclone)) static int
call_through (int (*fn) (callback))
{
  caller_ra = __builtin_return_address (0);
  return fn (probe) + 1;
}

/* A walk that starts inside bad_body (after its push), from a context
   whose other registers are this function's.  */
static void
walk_from_bad_range (void)
{
  ucontext_t uc;
  void *ips[MAX];
  CHECK (getcontext (&uc) == 0, 0);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t) ((char *) bad_body + 1);
  int rc = gorc_backtrace_ucontext (&uc, ips, MAX);
  CHECK (rc == -GORC_ECORRUPT, rc);
  CHECK (gorc_backtrace_count () == 1, gorc_backtrace_count ());
}

int
main (void)
{
  int total = call_through (good_push) + call_through (good_frame) + call_through (good_last);
  expect_corrupt = 1;
  call_through (bad_body);
  expect_corrupt = 0;
  /* The good ranges again, after the bad one was met.  */
  total += call_through (good_last) + call_through (good_frame) + call_through (good_push);
  walk_from_bad_range ();
  CHECK (walks == 7, walks);
  printf ("%d frames through good ranges\n", total);
  return 0;
}
