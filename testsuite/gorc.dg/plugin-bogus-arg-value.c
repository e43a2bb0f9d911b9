/* An unknown plugin argument with a value is rejected the same way, and
   every bad argument is reported, not only the first.  */
/* { dg-do compile } */
/* { dg-additional-options "-fplugin-arg-gorc-frobnicate=3 -fplugin-arg-gorc-other" } */
/* { dg-error "unknown option\[^\n\]*frobnicate" "first unknown option named" { target *-*-* } 0 } */
/* { dg-error "unknown option\[^\n\]*-fplugin-arg-gorc-other" "second unknown option named" { target *-*-* } 0 } */
/* { dg-error "failed to initialize plugin" "plugin not initialized" { target *-*-* } 0 } */

int f (void) { return 0; }
