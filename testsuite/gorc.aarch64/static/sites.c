/* Call sites patched in place on aarch64 (mprotect updates): every bl or
   b to a trampoline is rewritten with one aligned 32-bit store to go to
   the target directly, to the trampoline when the target is beyond
   +-128 MB of the site, and back to the trampoline when site patching is
   turned off again.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
#include "support/a64-sc.h"

NOIPA static int one (void) { return 1; }
NOIPA static int two (void) { return 2; }
int (*op) (void) GORC_STATIC_CALL = one;
A64_TRAMP (op);
NOIPA static int call_op (void) { return op () + 10; }

int
main (void)
{
  a64_mprotect_mode ();
  gorc_static_call_patch_sites (1);
  CHECK (gorc_static_call_update (op, two) == 0, 0);
  CHECK (gorc_static_call_sites_patched () >= 1, gorc_static_call_sites_patched ());
  CHECK (call_op () == 12, 0);
  CHECK (gorc_static_call_update (op, NULL) == 0, 0);
  CHECK (call_op () == 10, 0);
  int (*far) (void) = a64_far_code ((uintptr_t) op_tramp);
  CHECK (gorc_static_call_update (op, far) == 0, 0);
  CHECK (gorc_static_call_sites_patched () >= 1, 0);  /* to the trampoline */
  CHECK (call_op () == 52, 0);
  CHECK (gorc_static_call_update (op, one) == 0, 0);
  CHECK (call_op () == 11, 0);
  gorc_static_call_patch_sites (0);
  CHECK (gorc_static_call_update (op, two) == 0, 0);
  CHECK (gorc_static_call_sites_patched () == 0, gorc_static_call_sites_patched ());
  CHECK (call_op () == 12, 0);
  a64_no_wx ();
  return 0;
}
/* { dg-final { gorc-check objects } } */
