/* gorc_backtrace2 and gorc_backtrace_ucontext2 (gorc.h): the count comes
   from the call itself.  It is stored on success, on a walk cut at MAX,
   on a bad argument, with a null COUNT allowed; the walks are those of
   gorc_backtrace and gorc_backtrace_ucontext; and a signal handler that
   walks (changing the thread's gorc_backtrace_count) leaves it alone.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/rt-test.h"

#define MAX_IPS 64
static int handler_count = -1, handler_rc;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
  void *ips[MAX_IPS], *ips2[MAX_IPS];
  int n;
  (void)sig;
  (void)si;
  int rc = gorc_backtrace_ucontext(uc, ips, MAX_IPS);
  int rc2 = gorc_backtrace_ucontext2(uc, ips2, MAX_IPS, &n);
  CHECK(rc > 0 && rc2 == rc && n == rc, rc2);
  for (int i = 0; i < n; i++)
    CHECK(ips[i] == ips2[i], i);
  /* A walk of another depth: the thread's count becomes 1.  */
  handler_rc = gorc_backtrace_ucontext2(uc, ips, 1, &handler_count);
}

__attribute__((noinline, noclone)) static int walk_both(void **ips, void **ips2, int max, int *n)
{
  int rc = gorc_backtrace(ips, max);
  int rc2 = gorc_backtrace2(ips2, max, n);
  CHECK(rc2 == rc && *n == gorc_backtrace_count(), rc2);
  return rc;
}

int main(void)
{
  void *ips[MAX_IPS], *ips2[MAX_IPS];
  int n = -1;

  /* A whole walk: the same frames (ips[0] is each call's own site).  */
  int rc = walk_both(ips, ips2, MAX_IPS, &n);
  CHECK(rc >= 3 && n == rc, n);
  for (int i = 1; i < n; i++)
    CHECK(ips[i] == ips2[i], i);

  /* Cut at MAX.  */
  n = -1;
  CHECK(gorc_backtrace2(ips2, 2, &n) == 2 && n == 2, n);
  /* Bad arguments: an error, and a count of 0.  */
  n = -1;
  CHECK(gorc_backtrace2(ips2, -1, &n) == -GORC_EINVAL && n == 0, n);
  n = -1;
  CHECK(gorc_backtrace2(NULL, 4, &n) == -GORC_EINVAL && n == 0, n);
  n = -1;
  CHECK(gorc_backtrace_ucontext2(NULL, ips2, 4, &n) == -GORC_EINVAL && n == 0, n);
  /* No count wanted (from main: one frame fewer than from walk_both).  */
  CHECK(gorc_backtrace2(ips2, MAX_IPS, NULL) == rc - 1, rc);

  /* A handler's walk after ours: the thread's count is the handler's,
     ours stays.  */
  rt_on_signal(SIGUSR1, on_usr1, 0);
  rc = gorc_backtrace2(ips2, MAX_IPS, &n);
  raise(SIGUSR1);
  CHECK(handler_rc == 1 && handler_count == 1, handler_count);
  CHECK(gorc_backtrace_count() == 1, gorc_backtrace_count());
  CHECK(rc > 1 && n == rc, n);
  return 0;
}
