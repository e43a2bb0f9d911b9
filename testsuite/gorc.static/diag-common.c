/* With -fcommon a tentative definition is a common symbol: every unit
   would print its trampoline, so it is refused.  */
/* { dg-do compile } */
/* { dg-gorc-static compile } */
/* { dg-additional-options "-fcommon" } */
#include <gorc/static_call.h>

int (*common_fp) (int) GORC_STATIC_CALL;	/* { dg-error "static-call variable .common_fp. is a common symbol" } */
/* { dg-message "give it an initializer, or compile with .-fno-common." "hint" { target *-*-* } .-1 } */
int f (int x) { return x; }
int (*initialized_fp) (int) GORC_STATIC_CALL = f;	/* not common: fine */

int use (int x) { return common_fp (x) + initialized_fp (x); }
