/* pac-ret.c with the B key (pacibsp/autibsp; the CIE's 'B' augmentation)
   and leaf functions signed too.  */
/* { dg-do run } */
/* { dg-options "-O2 -mbranch-protection=pac-ret+leaf+b-key -freorder-blocks-and-partition" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {ra=x30 signed} } } */
/* { dg-final { scan-gorc-dump {ra=\[cfa-[0-9]+\] signed} } } */

#include "pac-ret.c"
