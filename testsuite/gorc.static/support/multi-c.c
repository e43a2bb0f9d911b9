#include "multi.h"
static int cx (int x) { return x + 2000; }
static int cy (int x) { return x + 3000; }
static int (*local) (int) GORC_STATIC_CALL = cx;
NOIPA int mt_call_c (int x) { return mt_op (x) * 100; }
NOIPA int mt_local_c (int x) { return local (x); }
NOIPA int
mt_switch_from_c (int which)
{
  int r = gorc_static_call_update (mt_op, which ? mt_add2 : mt_add1);
  if (r >= 0)
    r = gorc_static_call_update (local, which ? cy : cx);
  return r;
}
