/* A shared library built with the rewrite (support/sc-lib.c): its own
   trampoline block, descriptors and note, found by libgorc through
   dl_iterate_phdr; the program updates the library's variable (to a
   target in the program: b when within +-128 MB of the library's
   trampoline, else the nop state), the library's calls follow
   (mprotect updates: support/a64-sc.h).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-gorc-runtime-library static/support/sc-lib.c "-O2 -fplugin-arg-gorc-static-calls" } */
#include "support/a64-sc.h"

extern int (*lib_op) (int) GORC_STATIC_CALL;
int lib_call (int x);
int lib_one (int x);
NOIPA static int main_two (int x) { return x + 2; }

int
main (void)
{
  a64_mprotect_mode ();
  CHECK (lib_call (1) == 2, 0);
  CHECK (gorc_static_call_update (lib_op, main_two) == 0, 0);
  CHECK (lib_call (1) == 3, 0);
  CHECK (gorc_static_call_update (lib_op, NULL) == 0, 0);
  CHECK (lib_call (1) == 0, 0);
  CHECK (gorc_static_call_update (lib_op, lib_one) == 0, 0);
  CHECK (lib_call (1) == 2, 0);
  a64_no_wx ();
  return 0;
}
