/* gorc_backtrace, which follows the walk memo where it can (memo.h),
   against the cursor (gorc_cursor_step), which never does: walks from
   many depths in a row (so each meets the memo the last one wrote at
   some other state), with buffers that end inside the memo, just at its
   end, or beyond it, and stacks deeper than a memo holds (256 states).
   Every walk must give the cursor's addresses and result.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/rt-cursor-compare.h"

#define MAX_DEPTH 300
volatile int sink;
static unsigned seed = 12345;

static unsigned next_random(void)
{
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
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
  int maxes[6] = { RT_COMPARE_MAX - 1, RT_COMPARE_MAX - 1, 3, depth / 2 + 2, depth + 4,
                   depth + 8 };
  for (int i = 0; i < 6; i++)
    rt_compare_with_cursor(depth, maxes[i]);
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
