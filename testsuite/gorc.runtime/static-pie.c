/* A -static-pie program (relocated by its own start-up code, no dynamic
   loader) walks through its own code: support/static-body.h.  */
/* { dg-do run } */
/* { dg-gorc-runtime static-pie } */
#include "support/static-body.h"
