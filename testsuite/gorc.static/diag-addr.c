/* Taking the address of a static-call variable is an error (in code and
   in initializers), except inside gorc_static_call_update; and
   gorc_static_call_set on an unmarked variable is one too.  (An
   expression statement the C front end drops entirely, like
   `(void) &op;`, has no effect and is not seen.)  */
/* { dg-do compile } */
/* { dg-gorc-static compile } */
#include <gorc/static_call.h>

int f (int x) { return x; }
int (*op) (int) GORC_STATIC_CALL = f;

int (**global_pp) (int) = &op;	/* { dg-error "address taken of static-call variable .op." } */
/* { dg-message "gorc_static_call_update" "hint" { target *-*-* } .-1 } */

extern void sink (void *);

void
leak (void)
{
  sink (&op);			/* { dg-error "address taken of static-call variable .op." } */
  /* { dg-message "gorc_static_call_update" "hint" { target *-*-* } .-1 } */
  int (**pp) (int) = &op;	/* { dg-error "address taken of static-call variable .op." } */
  /* { dg-message "gorc_static_call_update" "hint" { target *-*-* } .-1 } */
  (void) pp;
}

int x;
void
update (void)
{
  gorc_static_call_update (op, f);		/* allowed */
  gorc_static_call_set (&x, 0);		/* { dg-error ".gorc_static_call_update. on .x., which is not marked .GORC_STATIC_CALL." } */
}
