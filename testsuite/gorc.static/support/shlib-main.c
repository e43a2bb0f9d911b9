/* Main program of shlib.c: its own static call, the library's calls
   before and after updates made from both sides.  */
#include "sc-test.h"

/* Declared without the attribute: the library's trampoline is hidden, so
   calls from here must go through the pointer.  */
extern int (*lib_op) (int);
int lib_call (int);
int lib_switch (int);
int (*lib_target (int)) (int);

static int m1 (int x) { return x + 1; }
static int m2 (int x) { return x + 2; }
static int (*main_op) (int) GORC_STATIC_CALL = m1;
NOIPA int main_call (int x) { return main_op (x); }

int
main (void)
{
  CHECK (lib_call (1) == 101, lib_call (1));
  CHECK (main_call (1) == 2, 0);
  CHECK (lib_switch (1) == 0, 0);
  CHECK (lib_call (1) == 201 + 1000, lib_call (1));
  CHECK (main_call (1) == 2, 0);
  CHECK (gorc_static_call_update (main_op, m2) == 0, 0);
  CHECK (main_call (1) == 3, 0);
  CHECK (lib_call (1) == 1201, lib_call (1));
  /* The library's variable, updated from here by address.  */
  void *var = &lib_op;
  CHECK (gorc_static_call_set (var, (void (*) (void)) lib_target (0)) == 0, 0);
  CHECK (lib_call (1) == 101 + 1000, lib_call (1));
  CHECK (lib_switch (0) == 0, 0);
  CHECK (lib_call (1) == 101, lib_call (1));
  return 0;
}
