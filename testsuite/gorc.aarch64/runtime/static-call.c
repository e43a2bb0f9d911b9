/* libgorc on aarch64: static calls are not patched there (the aarch64
   plugin refuses the attribute, so no variable has a trampoline).
   gorc_static_call_set still sets a variable: it stores the pointer and
   says GORC_SC_NOT_PATCHED, and calls through the variable reach the
   new target.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <gorc/static_call.h>
#include "oracle.h"

static int one (int x) { return x + 1; }
static int two (int x) { return x + 2; }

int (*hook) (int) = one;

int
main (void)
{
  CHECK (hook (1) == 2, 0);
  int rc = gorc_static_call_set ((void *) &hook, (void (*) (void)) two);
  CHECK (rc == GORC_SC_NOT_PATCHED, rc);
  CHECK (gorc_static_call_last_method () == GORC_SC_VIA_NONE, 1);
  CHECK (hook (1) == 3, 2);
  rc = gorc_static_call_set ((void *) &hook, NULL);
  CHECK (rc == GORC_SC_NOT_PATCHED && hook == NULL, rc);
  return 0;
}
