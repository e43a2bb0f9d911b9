/* The same type checks without the plugin: they are the header's.  */
/* { dg-do compile } */
/* { dg-gorc-no-plugin "the fallback header" } */
/* { dg-gorc-static attribute } */
/* { dg-additional-options "-ftrack-macro-expansion=0" } */
#include "diag-update-type.c"
/* { dg-message "" "In file included from" { target *-*-* } 6 } */
/* { dg-error "static assertion failed" "0" { target *-*-* } 22 } */
/* { dg-error "static assertion failed" "wrong return type" { target *-*-* } 25 } */
/* { dg-error "static assertion failed" "wrong arguments" { target *-*-* } 26 } */
/* { dg-error "static assertion failed" "other pointer type" { target *-*-* } 27 } */
/* { dg-error "static assertion failed" "void vs int" { target *-*-* } 28 } */
