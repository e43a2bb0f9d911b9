/* threads.c with the call sites patched in place as well (one aligned
   32-bit store per bl).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
#define SC_SETUP gorc_static_call_patch_sites (1)
#include "threads.c"
