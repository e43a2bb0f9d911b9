/* A -static program walks through its own code: support/static-body.h.  */
/* { dg-do run } */
/* { dg-gorc-runtime static-exe } */
#include "support/static-body.h"
