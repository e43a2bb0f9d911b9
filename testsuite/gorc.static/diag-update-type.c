/* gorc_static_call_update checks the new target's type at compile time
   (the header's static assertion: with and without the plugin).  NULL
   is ((void *) 0) here; a plain 0 is an int and refused.  Without
   -ftrack-macro-expansion=0 GCC puts the error on the header's line,
   with a note "in expansion of macro" at the call.  */
/* { dg-do compile } */
/* { dg-gorc-static compile } */
/* { dg-additional-options "-ftrack-macro-expansion=0" } */
#include <gorc/static_call.h>

int f (int x) { return x; }
long wrong_ret (int x) { return x; }
int wrong_args (int x, int y) { return x + y; }
int (*op) (int) GORC_STATIC_CALL = f;
void (*hook) (void) GORC_STATIC_CALL;

void
update (int (*same) (int), long (*other) (int))
{
  gorc_static_call_update (op, f);
  gorc_static_call_update (op, same);
  gorc_static_call_update (op, 0);	/* { dg-error "static assertion failed: .gorc_static_call_update: the new target" } */
  gorc_static_call_update (op, (void *) 0);
  gorc_static_call_update (hook, (void *) 0);
  gorc_static_call_update (op, wrong_ret);	/* { dg-error "static assertion failed" } */
  gorc_static_call_update (op, wrong_args);	/* { dg-error "static assertion failed" } */
  gorc_static_call_update (op, other);	/* { dg-error "static assertion failed" } */
  gorc_static_call_update (hook, f);	/* { dg-error "static assertion failed" } */
}
