/* Walks from every instruction of calls through PLT stubs, lazily bound
   (support/plt-step.h): the first call of strverscmp goes through its
   .plt entry, PLT0 and ld.so's _dl_runtime_resolve into _dl_fixup; the
   second straight through the entry; lrand48, whose address the program
   also takes, is called through .plt.got.  Every walk equals
   libunwind's.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */

#include "support/plt-step.h"

int
main (int argc, char **argv)
{
  (void) argc;
  rt_run_lazily_bound (argv);
  plt_step_run_calls ();
  CHECK (steps_in[K_PLT] > 0, 0);
  CHECK (steps_in[K_PLT_GOT] > 0, 0);
  CHECK (steps_in[K_LD_SO] > 0, 0);
  return 0;
}
