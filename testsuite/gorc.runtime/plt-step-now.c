/* Walks from every instruction of calls through PLT stubs bound at load
   (support/plt-step.h; -z now, -fcf-protection -z ibtplt): calls go
   through .plt.sec straight to the target, and lrand48, whose address is
   also taken, through .plt.got; nothing goes through ld.so.  Every walk
   equals libunwind's.  */
/* { dg-do run } */
/* { dg-options "-O2 -fcf-protection" } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-Wl,-z,ibtplt -Wl,-z,now -Wl,--no-as-needed -lunwind" } */

#include "support/plt-step.h"

int
main (void)
{
  plt_step_run_calls ();
  CHECK (steps_in[K_PLT_SEC] > 0, 0);
  CHECK (steps_in[K_PLT_GOT] > 0, 0);
  CHECK (steps_in[K_LD_SO] == 0, steps_in[K_LD_SO]);
  return 0;
}
