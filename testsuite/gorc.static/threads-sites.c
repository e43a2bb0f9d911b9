/* threads.c with call sites patched in place: the callers' tail call
   (jmp rel32) is rewritten on every update while they run.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#define SC_SETUP gorc_static_call_patch_sites (1)
#include "threads.c"
/* { dg-final { gorc-static-direct call_target } } */
