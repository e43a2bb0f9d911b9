/* threads.c with the mprotect fallback (GORC_STATIC_CALL_NO_ALIAS=1):
   the trampoline page is made writable+executable for each store.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <stdlib.h>
#define SC_SETUP setenv ("GORC_STATIC_CALL_NO_ALIAS", "1", 1)
#define SC_METHOD GORC_SC_VIA_MPROTECT
#include "threads.c"
/* { dg-final { gorc-static-direct call_target } } */
