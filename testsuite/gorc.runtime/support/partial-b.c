/* The second object of index-partial-link.c: functions in .text,
   .text.unlikely (a cold function, and the cold part of a split one) and
   .text.startup (a constructor).  */
#include "partial-chain.h"

__attribute__((noinline, noclone)) int
b_text (const char *steps, int x)
{
  volatile char pad[24];
  rt_push ();
  pad[x & 7] = (char) x;
  int r = chain_next (steps, x + 1) + pad[x & 7];
  rt_pop ();
  return r;
}

__attribute__((noinline, noclone, cold)) int
b_cold (const char *steps, int x)
{
  rt_push ();
  int r = chain_next (steps, x * 3);
  rt_pop ();
  return r + 1;
}

/* The call on goes through a cold function, so GCC moves that path to
   b_split.cold (in .text.unlikely).  */
__attribute__((noinline, noclone)) int
b_split (const char *steps, int x)
{
  int r;
  rt_push ();
  if (steps[0] != 0) {
    volatile long big[8];
    big[x & 7] = x;
    r = b_cold (steps, x + 2) + (int) big[x & 7];
  } else {
    r = probe (x);
  }
  rt_pop ();
  return r * 5;
}

__attribute__((constructor)) static void
b_ctor (void)
{
  rt_push ();
  chain_sink = chain_next ("sCt", 3);
  rt_pop ();
}
