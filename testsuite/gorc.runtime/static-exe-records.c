/* A -static program without .eh_frame for its own code: the walk reads
   the gorc records only (support/static-body.h).  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-asynchronous-unwind-tables" } */
/* { dg-gorc-runtime static-exe } */
#include "support/static-body.h"
