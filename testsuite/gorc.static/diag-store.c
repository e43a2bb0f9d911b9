/* Stores to a static-call variable are errors, with a hint; so is any
   other way of changing it than gorc_static_call_update.  */
/* { dg-do compile } */
/* { dg-gorc-static compile } */
#include <gorc/static_call.h>

int f (int x) { return x; }
int g (int x) { return -x; }
int (*op) (int) GORC_STATIC_CALL = f;
static void (*hook) (void) GORC_STATIC_CALL;

void
set_it (int which)
{
  op = which ? f : g;	/* { dg-error "store to static-call variable .op." } */
  /* { dg-message "change it only with .gorc_static_call_update \\(op, new_target\\)." "hint" { target *-*-* } .-1 } */
  hook = 0;		/* { dg-error "store to static-call variable .hook." } */
  /* { dg-message "gorc_static_call_update" "hint" { target *-*-* } .-1 } */
  op++;			/* { dg-error "store to static-call variable .op." } */
  /* { dg-message "gorc_static_call_update" "hint" { target *-*-* } .-1 } */
}

int use (int x) { return op (x); }
