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

// A reference bound to the variable (std::function's constructor takes
// its argument by reference) is refused too, with a hint to bind a copy;
// the copy is accepted.
#include <functional>

int
g ()
{
  std::function<int (int)> byref = cxx_op;	// { dg-error "reference bound to static-call variable .cxx_op." }
  // { dg-message "bind a copy instead" "hint" { target *-*-* } .-1 }
  int (*&r) (int) = cxx_op;	// { dg-error "reference bound to static-call variable .cxx_op." }
  // { dg-message "bind a copy instead" "hint" { target *-*-* } .-1 }
  auto copy = cxx_op;
  std::function<int (int)> bycopy = copy;
  return byref (1) + r (2) + bycopy (3);
}
