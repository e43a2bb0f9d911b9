/* An unknown plugin argument is an error that names the option, and the
   plugin then refuses to initialize (GCC's own follow-up error).  */
/* { dg-do compile } */
/* { dg-additional-options "-fplugin-arg-gorc-bogus" } */
/* { dg-error "unknown option\[^\n\]*-fplugin-arg-gorc-bogus" "unknown plugin option named" { target *-*-* } 0 } */
/* { dg-error "failed to initialize plugin" "plugin not initialized" { target *-*-* } 0 } */

int f (void) { return 0; }
