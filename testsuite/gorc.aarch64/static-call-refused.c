/* Static calls are not ported to aarch64 yet: with the rewrite on, the
   attribute is an error at the variable, never a miscompiled call.  */
/* { dg-do compile } */
/* { dg-options "-O2 -fplugin-arg-gorc-static-calls -fdiagnostics-plain-output" } */

static int one (int x) { return x + 1; }

int (*hook) (int) __attribute__ ((gorc_static_call)) = one; /* { dg-error "static calls are not supported on aarch64 yet" } */

int
call (int x)
{
  return hook (x);
}
