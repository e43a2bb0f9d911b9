#include "multi.h"
static int bx (int x) { return x + 1000; }
static int (*local) (int) GORC_STATIC_CALL = bx;
NOIPA int mt_call_b (int x) { return mt_op (x) * 10; }
NOIPA int mt_local_b (int x) { return local (x); }
