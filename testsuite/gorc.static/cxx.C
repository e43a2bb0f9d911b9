// C++: the attribute, the rewrite, the update macro (a lambda) and the
// store diagnostic work the same.
// { dg-do run }
// { dg-gorc-static run }
#include <gorc/static_call.h>
#include <cstdio>
#include <cstdlib>

static int fa (int x) { return x + 1; }
static int fb (int x) { return x + 2; }
int (*cxx_op) (int) GORC_STATIC_CALL = fa;
namespace n { void (*hook) () GORC_STATIC_CALL; }

__attribute__ ((noipa)) int call_op (int x) { n::hook (); return cxx_op (x); }

int
main ()
{
  if (call_op (1) != 2)
    std::abort ();
  if (gorc_static_call_update (cxx_op, fb) != 0)
    std::abort ();
  if (call_op (1) != 3)
    std::abort ();
  return 0;
}
// { dg-final { gorc-static-direct _Z7call_opi } }
// { dg-final { gorc-static-check } }
