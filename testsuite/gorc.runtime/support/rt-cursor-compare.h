/* gorc_backtrace against the cursor (gorc_cursor_step), which never uses
   the walk memo (runtime/src/memo.h): the memo tests walk with both from
   one frame and compare.  */
#ifndef RT_CURSOR_COMPARE_H
#define RT_CURSOR_COMPARE_H
#include "rt-test.h"

#define RT_COMPARE_MAX 400

/* The cursor's walk from this function's own frame, up to MAX addresses;
   *LAST_RC gets the last step's result (1 when it stopped at MAX).  */
static __attribute__((noinline, noclone, unused)) int
rt_cursor_walk(void **ips, int max, int *last_rc)
{
  struct gorc_cursor c;
  int n = 0, rc = 1;
  CHECK(gorc_cursor_init(&c) == 0, 0);
  ips[n++] = (void *)c.ip;
  while (n < max && (rc = gorc_cursor_step(&c)) > 0)
    ips[n++] = (void *)c.ip;
  *last_rc = n < max ? rc : 1;
  return n;
}

/* gorc_backtrace with a buffer of MAX (< RT_COMPARE_MAX) against the
   cursor from the same frame: the same addresses and the same result.
   DEPTH names the walk in a failure.  */
static __attribute__((noinline, noclone, unused)) void
rt_compare_with_cursor(int depth, int max)
{
  void *ips[RT_COMPARE_MAX], *want[RT_COMPARE_MAX];
  int want_rc, n;
  /* The count from the call itself: the memo tests' signal handlers walk
     too, and one between gorc_backtrace and gorc_backtrace_count would
     change the thread's count (gorc.h).  */
  int rc = gorc_backtrace2(ips, max, &n);
  /* The cursor's walk has one more frame, rt_cursor_walk's own.  */
  int want_n = rt_cursor_walk(want, max + 1, &want_rc);
  if (n + 1 != want_n) {
    rt_puts("depth ");
    rt_putn(depth);
    rt_puts(" max ");
    rt_putn(max);
    FAIL(": frame counts differ, gorc_backtrace's", n);
  }
  CHECK(rc == (want_rc < 0 ? want_rc : n), rc);
  /* ips[0] is this function's call of gorc_backtrace, want[0] is
     rt_cursor_walk's frame; want[1] is its call from here: the same
     frame as ips[0] but another address.  */
  for (int i = 2; i <= n; i++)
    if (ips[i - 1] != want[i])
      FAIL("addresses differ at frame", i);
}
#endif
