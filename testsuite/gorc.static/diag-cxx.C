// C++ stores and address-taking are refused as in C.
// { dg-do compile }
// { dg-gorc-static compile }
#include <gorc/static_call.h>

static int fa (int x) { return x + 1; }
int (*cxx_op) (int) GORC_STATIC_CALL = fa;

void
f ()
{
  cxx_op = fa;			// { dg-error "store to static-call variable .cxx_op." }
  // { dg-message "gorc_static_call_update" "hint" { target *-*-* } .-1 }
  int (**p) (int) = &cxx_op;	// { dg-error "address taken of static-call variable .cxx_op." }
  // { dg-message "gorc_static_call_update" "hint" { target *-*-* } .-1 }
  (void) p;
}
