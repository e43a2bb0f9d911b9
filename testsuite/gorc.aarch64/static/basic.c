/* Static calls on aarch64 (mprotect updates, see support/a64-sc.h): the
   trampoline's state is one b to the target, to the unit's return-0 stub
   for NULL, or a nop into the tail through the variable for a target
   beyond +-128 MB; every state is reached by the calls, for a variable
   with external linkage and for a static one.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
#include "support/a64-sc.h"

NOIPA static int one (void) { return 1; }
NOIPA static int two (void) { return 2; }
int (*op) (void) GORC_STATIC_CALL = one;
A64_TRAMP (op);
static int (*local_op) (void) GORC_STATIC_CALL;
NOIPA static int call_op (void) { return op (); }
NOIPA static int call_local_op (void) { return local_op (); }

int
main (void)
{
  a64_mprotect_mode ();
  /* Initial state: b one; the tail's adrp x16 follows.  */
  CHECK ((uintptr_t) op_tramp % 16 == 0, (uintptr_t) op_tramp);
  CHECK (a64_branch_dest (op_tramp) == (uintptr_t) one, a64_insn (op_tramp));
  CHECK ((a64_insn (op_tramp + 1) & 0x9f00001fu) == 0x90000010u, a64_insn (op_tramp + 1));
  CHECK (call_op () == 1, 0);
  CHECK (call_local_op () == 0, 0);   /* NULL: the return-0 stub */

  CHECK (gorc_static_call_update (op, two) == 0, 0);
  CHECK (gorc_static_call_last_method () == GORC_SC_VIA_MPROTECT, gorc_static_call_last_method ());
  CHECK (a64_branch_dest (op_tramp) == (uintptr_t) two, a64_insn (op_tramp));
  CHECK (op == two && call_op () == 2, 0);

  CHECK (gorc_static_call_update (op, NULL) == 0, 0);
  uintptr_t ret0 = a64_branch_dest (op_tramp);
  CHECK (ret0 != 0 && ret0 < (uintptr_t) op_tramp, a64_insn (op_tramp));
  CHECK (call_op () == 0, 0);

  /* Beyond +-128 MB: nop, through the variable.  */
  int (*far) (void) = a64_far_code ((uintptr_t) op_tramp);
  CHECK (gorc_static_call_update (op, far) == 0, 0);
  CHECK (a64_insn (op_tramp) == A64_NOP, a64_insn (op_tramp));
  CHECK (call_op () == 42, 0);
  CHECK (gorc_static_call_update (op, one) == 0, 0);
  CHECK (a64_branch_dest (op_tramp) == (uintptr_t) one, a64_insn (op_tramp));
  CHECK (call_op () == 1, 0);

  CHECK (gorc_static_call_update (local_op, two) == 0, 0);
  CHECK (call_local_op () == 2, 0);
  CHECK (gorc_static_call_update (local_op, far) == 0, 0);
  CHECK (call_local_op () == 42, 0);
  a64_no_wx ();
  return 0;
}
/* { dg-final { gorc-check objects } } */
