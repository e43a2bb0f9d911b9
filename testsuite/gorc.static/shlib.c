/* A shared library with static calls of its own (its own trampolines and
   descriptor set: hidden, one set per module), updated from inside the
   library and, through the variable's address, from the main program,
   which has static calls of its own too (support/shlib-main.c).  */
/* { dg-do link } */
/* { dg-options "-O2 -fPIC -shared" } */
/* { dg-gorc-static shared } */
#include "support/sc-test.h"

static int lib_a (int x) { return x + 100; }
static int lib_b (int x) { return x + 200; }
/* Exported: the main program reads it and passes its address.  */
int (*lib_op) (int) GORC_STATIC_CALL = lib_a;
static void (*lib_hook) (int *) GORC_STATIC_CALL;
static void bump (int *p) { ++*p; }

NOIPA int lib_call (int x)
{
  int n = 0;
  lib_hook (&n);
  return lib_op (x) + n * 1000;
}
NOIPA int lib_switch (int which)
{
  int r = gorc_static_call_update (lib_op, which ? lib_b : lib_a);
  if (r == 0)
    r = gorc_static_call_update (lib_hook, which ? bump : NULL);
  return r;
}
int (*lib_target (int which)) (int) { return which ? lib_b : lib_a; }
/* { dg-final { gorc-static-direct lib_call } } */
/* { dg-final { gorc-static-sections } } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-run-with-library support/shlib-main.c } } */
