/* Walks from every instruction of calls through IBT PLT stubs, lazily
   bound (support/plt-step.h; -fcf-protection -z ibtplt): calls go through
   .plt.sec (endbr64; bnd jmp *GOT), the first one on through its lazy
   .plt entry, PLT0 and ld.so's resolver; lrand48, whose address is also
   taken, through .plt.got.  Every walk equals libunwind's.  */
/* { dg-do run } */
/* { dg-options "-O2 -fcf-protection" } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-Wl,-z,ibtplt -Wl,--no-as-needed -lunwind" } */

#include "support/plt-step.h"

int
main (int argc, char **argv)
{
  (void) argc;
  rt_run_lazily_bound (argv);
  plt_step_run_calls ();
  CHECK (steps_in[K_PLT_SEC] > 0, 0);
  CHECK (steps_in[K_PLT] > 0, 0);
  CHECK (steps_in[K_PLT_GOT] > 0, 0);
  CHECK (steps_in[K_LD_SO] > 0, 0);
  return 0;
}
