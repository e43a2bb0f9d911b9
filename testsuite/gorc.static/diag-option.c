/* The option takes no value, or 1/yes/0/no; anything else is an error
   naming it.  */
/* { dg-do compile } */
/* { dg-additional-options "-fplugin-arg-gorc-static-calls=maybe" } */
/* { dg-error "option .-fplugin-arg-gorc-static-calls. takes no value, or 1/yes/0/no .not .maybe.." "bad value" { target *-*-* } 0 } */
/* { dg-error "failed to initialize plugin" "plugin not initialized" { target *-*-* } 0 } */

int f (void) { return 0; }
