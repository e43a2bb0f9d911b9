/* dlopen.c through the memfd alias: each round's updates write the
   reloaded library's page, never the alias of the unloaded one.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-ldl" } */
#define SC_METHOD GORC_SC_VIA_ALIAS
#include "dlopen.c"
