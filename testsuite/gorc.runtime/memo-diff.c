/* gorc_backtrace, which follows the walk memo where it can (memo.h),
   against the cursor (gorc_cursor_step), which never does: walks from
   many depths in a row (so each meets the memo the last one wrote at
   some other state), with buffers that end inside the memo, just at its
   end, or beyond it, and stacks deeper than a memo holds (256 states).
   Every walk must give the cursor's addresses and result.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/rt-test.h"

#define MAX_DEPTH 300
#define MAX_IPS 400
volatile int sink;
static unsigned seed = 12345;

static unsigned next_random(void)
{
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
}

/* The cursor's walk, from the frame of cursor_walk itself.  */
__attribute__((noinline, noclone)) static int cursor_walk(void **ips, int max, int *last_rc)
{
  struct gorc_cursor c;
  int n = 0, rc;
  CHECK(gorc_cursor_init(&c) == 0, 0);
  ips[n++] = (void *)c.ip;
  while (n < max && (rc = gorc_cursor_step(&c)) > 0)
    ips[n++] = (void *)c.ip;
  *last_rc = n < max ? rc : 1;
  return n;
}

static void compare(int depth, int max)
{
  void *ips[MAX_IPS], *want[MAX_IPS];
  int want_rc;
  int rc = gorc_backtrace(ips, max);
  int n = gorc_backtrace_count();
  /* The cursor's walk has one more frame, cursor_walk's own.  */
  int want_n = cursor_walk(want, max + 1, &want_rc);
  if (n + 1 != want_n) {
    rt_puts("depth ");
    rt_putn(depth);
    rt_puts(" max ");
    rt_putn(max);
    FAIL(": frame counts differ, gorc_backtrace's", n);
  }
  CHECK(rc == (want_rc < 0 ? want_rc : n), rc);
  /* ips[0] is this function's call of gorc_backtrace, want[0] is
     cursor_walk's frame; want[1] is its call from here: the same frame
     as ips[0] but another address.  */
  for (int i = 2; i <= n; i++)
    if (ips[i - 1] != want[i])
      FAIL("addresses differ at frame", i);
}

__attribute__((noinline, noclone)) static int chain(int depth, int here)
{
  if (here < depth) {
    int r = chain(depth, here + 1);
    sink += r;
    return r + 1;
  }
  /* First the whole walk twice: the first meets the memo of the last
     round's walks at some state past its own first (the chain's frames
     at one level have one sp and return address whatever the depth) and
     writes its own states in front of the memo's from there; the second
     follows that from its first state.  Then buffers that end inside
     the walk, just at its end and beyond it.  */
  int maxes[6] = { MAX_IPS - 1, MAX_IPS - 1, 3, depth / 2 + 2, depth + 4, depth + 8 };
  for (int i = 0; i < 6; i++)
    compare(depth, maxes[i]);
  return 0;
}

/* Two more frames of two kinds below main, so that the memo's states
   differ in ip as well as in sp between walks.  */
__attribute__((noinline, noclone)) static int via_a(int depth)
{
  int r = chain(depth, 0);
  sink += 1;
  return r;
}

__attribute__((noinline, noclone)) static int via_b(int depth)
{
  int r = chain(depth, 0);
  sink += 2;
  return r;
}

int main(void)
{
  for (int round = 0; round < 400; round++) {
    int depth = (int)(next_random() % MAX_DEPTH);
    if (next_random() & 1)
      sink += via_a(depth);
    else
      sink += via_b(depth);
  }
  return 0;
}
