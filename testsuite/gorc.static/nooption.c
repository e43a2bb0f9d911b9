/* With the plugin but without -fplugin-arg-gorc-static-calls the
   attribute is accepted and nothing changes: the code is byte for byte
   the code without the plugin, calls stay indirect, and stores are
   allowed (the variable is a plain pointer).  */
/* { dg-do run } */
/* { dg-gorc-static nooption } */
#include "support/sc-test.h"

NOIPA int f (int x) { return x + 1; }
NOIPA int g (int x) { return x + 2; }
int (*op) (int) GORC_STATIC_CALL = f;

NOIPA int call_op (int x) { return op (x) * 3; }
NOIPA void set_op (int (*fn) (int)) { op = fn; }

int
main (void)
{
  CHECK (call_op (1) == 6, call_op (1));
  set_op (g);
  CHECK (call_op (1) == 9, call_op (1));
  CHECK (gorc_static_call_update (op, f) == GORC_SC_NOT_PATCHED, 0);
  CHECK (call_op (1) == 6, call_op (1));
  return 0;
}
/* { dg-final { gorc-code-identical } } */
/* { dg-final { gorc-static-indirect call_op } } */
