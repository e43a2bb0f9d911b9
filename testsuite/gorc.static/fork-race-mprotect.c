/* fork-race.c with the mprotect fallback (GORC_STATIC_CALL_NO_ALIAS=1):
   here every update, not only the first, holds the mutex while the
   other thread forks.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <stdlib.h>
#define SC_SETUP setenv ("GORC_STATIC_CALL_NO_ALIAS", "1", 1)
#include "fork-race.c"
