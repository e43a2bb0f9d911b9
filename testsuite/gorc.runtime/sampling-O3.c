/* Every SIGPROF sample of busy -O3 code unwinds exactly as libunwind does
   (support/sampling-body.h).  */
/* { dg-do run } */
/* { dg-options "-O3 -fomit-frame-pointer" } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime static } */

#include "support/sampling-body.h"
