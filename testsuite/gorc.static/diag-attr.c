/* The attribute only goes on a static-storage, non-const, not
   thread-local pointer to function; anything else is an error with a
   hint.  The attribute is checked even without the rewrite option.  */
/* { dg-do compile } */
/* { dg-gorc-static attribute } */
#include <gorc/static_call.h>
#ifndef GORC_STATIC_CALL_PLUGIN
#error "the header does not see the plugin's attribute"
#endif

int f (int x) { return x; }

int not_a_pointer GORC_STATIC_CALL;	/* { dg-error ".gorc_static_call. attribute on .not_a_pointer. needs a variable of pointer-to-function type" } */
/* { dg-message "mark a variable of pointer-to-function type" "hint" { target *-*-* } .-1 } */
int *data_pointer GORC_STATIC_CALL;	/* { dg-error "needs a variable of pointer-to-function type" } */
/* { dg-message "mark a variable" "hint" { target *-*-* } .-1 } */
int (*const const_fp) (int) GORC_STATIC_CALL = f;	/* { dg-error "cannot be used on a const variable" } */
/* { dg-message "mark a variable" "hint" { target *-*-* } .-1 } */
__thread int (*tls_fp) (int) GORC_STATIC_CALL;	/* { dg-error "cannot be used on a thread-local variable" } */
/* { dg-message "mark a variable" "hint" { target *-*-* } .-1 } */
int a_function (int) GORC_STATIC_CALL;	/* { dg-error "applies only to variables" } */
/* { dg-message "mark a variable" "hint" { target *-*-* } .-1 } */
int (*with_arg) (int) __attribute__ ((gorc_static_call (1)));	/* { dg-error "takes no arguments" } */
/* { dg-message "mark a variable" "hint" { target *-*-* } .-1 } */

int
local (int x)
{
  int (*auto_fp) (int) GORC_STATIC_CALL = f;	/* { dg-error "needs a variable with static storage duration" } */
  /* { dg-message "mark a variable" "hint" { target *-*-* } .-1 } */
  return auto_fp (x);
}
