/* The walk memo (runtime/src/memo.h) must not lend a stack its last
   walk's outer frames once they changed.  main calls one of two
   functions of the same frame size from the same place, so the walk from
   the leaf starts at the same ip and sp either way, meets the memo the
   last walk wrote at its first state, and only the return-address slot
   of mid's frame (into outer_a or outer_b) tells the two stacks apart.
   Every walk must name the outer function it came through.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-options "-O2 -fomit-frame-pointer -fno-ipa-icf" } */

#include "support/rt-test.h"

#define ROUNDS 50
volatile int sink;
static void *leaf_sp[2];
static void *mid_ra[2];   /* mid's return address: into outer_a or outer_b */
static int round_outer;

__attribute__((noinline, noclone)) static int leaf(void)
{
  void *ips[64];
  leaf_sp[round_outer] = __builtin_frame_address(0);
  int rc = gorc_backtrace(ips, 64);
  if (rc < 0) {
    rt_puts(gorc_strerror(rc));
    FAIL(" gorc_backtrace", round_outer);
  }
  /* ips[0] is in leaf, ips[1] in mid, ips[2] in the outer function.  */
  CHECK(rc >= 4, rc);
  if (ips[2] != mid_ra[round_outer])
    FAIL("the walk names the other outer function, round of", round_outer);
  return rc;
}

__attribute__((noinline, noclone)) static int mid(void)
{
  mid_ra[round_outer] = __builtin_return_address(0);
  int r = leaf();
  sink += r;
  return r;
}

__attribute__((noinline, noclone)) static int outer_a(int x)
{
  int r = mid();
  sink += x;
  return r + 1;
}

__attribute__((noinline, noclone)) static int outer_b(int x)
{
  int r = mid();
  sink -= x;
  return r + 2;
}

int main(void)
{
  int (*outer[2])(int) = { outer_a, outer_b };
  for (int i = 0; i < ROUNDS; i++) {
    round_outer = i & 1;
    /* Twice each: the second walk meets a memo of its own stack.  */
    sink += outer[round_outer](i);
    sink += outer[round_outer](i);
  }
  /* The test tests the memo only if both stacks start at one sp.  */
  CHECK(leaf_sp[0] == leaf_sp[1], 0);
  CHECK(mid_ra[0] != mid_ra[1], 0);
  return 0;
}
