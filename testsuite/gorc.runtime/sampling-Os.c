/* Every SIGPROF sample of busy -Os code unwinds exactly as libunwind does
   (support/sampling-body.h).  */
/* { dg-do run } */
/* { dg-options "-Os -fomit-frame-pointer" } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime static } */

#include "support/sampling-body.h"
