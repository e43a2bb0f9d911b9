/* A variable defined in one unit and called from three: one trampoline
   (in the defining unit), every unit's calls go to it, and an update from
   another unit reaches all of them.  Each unit also has a `static`
   variable named `local`: distinct trampolines, no link clash.  Built
   again with multi-b.c compiled without the plugin (it calls through the
   pointer), every unit still sees every update.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
/* { dg-additional-sources "../support/multi-b.c ../support/multi-c.c" } */
#include "../support/multi.h"

NOIPA int mt_add1 (int x) { return x + 1; }
NOIPA int mt_add2 (int x) { return x + 2; }
int (*mt_op) (int) GORC_STATIC_CALL = mt_add1;
static int ax (int x) { return x + 500; }
static int (*local) (int) GORC_STATIC_CALL = ax;
NOIPA int mt_call_a (int x) { return mt_op (x) + local (0); }

int
main (void)
{
  CHECK (mt_call_a (1) == 2 + 500, mt_call_a (1));
  CHECK (mt_call_b (1) == 20, mt_call_b (1));
  CHECK (mt_call_c (1) == 200, mt_call_c (1));
  CHECK (mt_local_b (1) == 1001, mt_local_b (1));
  CHECK (mt_local_c (1) == 2001, mt_local_c (1));
  int r = mt_switch_from_c (1);
#ifdef EXPECT_PLAIN
  CHECK (r == GORC_SC_NOT_PATCHED, r);
#else
  CHECK (r == 0, r);
#endif
  CHECK (mt_call_a (1) == 3 + 500, mt_call_a (1));
  CHECK (mt_call_b (1) == 30, mt_call_b (1));
  CHECK (mt_call_c (1) == 300, mt_call_c (1));
  CHECK (mt_local_b (1) == 1001, mt_local_b (1));
  CHECK (mt_local_c (1) == 3001, mt_local_c (1));
  mt_switch_from_c (0);
  CHECK (mt_call_b (1) == 20, mt_call_b (1));
  CHECK (mt_local_c (1) == 2001, mt_local_c (1));
  return 0;
}
/* { dg-final { gorc-static-direct mt_call_a mt_call_b mt_call_c mt_local_b mt_local_c } } */
/* { dg-final { gorc-static-sections } } */
/* { dg-final { gorc-static-check } } */
/* { dg-final { gorc-static-run-plain noplugin } } */
/* { dg-final { gorc-static-run-mixed multi-b.c } } */
