/* Updates of a trampoline in a dlopened library (support/sc-dl.c), from
   the program with the variable's address (dlsym); then dlclose, load it
   again (likely at the same address: libgorc must notice that its alias
   of the old mapping is gone) and update again, five rounds.  The
   trampoline's state is read as data each time; the calls are checked
   in mprotect mode (support/a64-sc.h), dlopen-alias.c runs the same
   rounds through the memfd alias.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-ldl" } */
#include <dlfcn.h>
#include "support/a64-sc.h"

#ifndef SC_METHOD
#define SC_METHOD GORC_SC_VIA_MPROTECT
#endif

int
main (void)
{
  if (SC_METHOD == GORC_SC_VIA_MPROTECT)
    a64_mprotect_mode ();
  for (int round = 0; round < 5; round++)
    {
      void *h = dlopen (SC_LIB_DIR "/libgorc-sc-dl-a64.so", RTLD_NOW);
      if (!h)
	FAIL (dlerror (), round);
      int (*call) (int) = (int (*) (int)) dlsym (h, "dl_call");
      int (*(*target) (int)) (int) = (int (*(*) (int)) (int)) dlsym (h, "dl_target");
      const uint32_t *(*tramp) (void) = (const uint32_t *(*) (void)) dlsym (h, "dl_tramp");
      void *var = dlsym (h, "dl_op");
      CHECK (call && target && tramp && var, round);
      const uint32_t *t = tramp ();
      CHECK (a64_branch_dest (t) == (uintptr_t) target (0), a64_insn (t));
      CHECK (call (1) == 11, call (1));	/* fresh copy: the initial target */
      CHECK (gorc_static_call_set (var, (void (*) (void)) target (1)) == 0, round);
      CHECK (gorc_static_call_last_method () == SC_METHOD, round);
      CHECK (a64_branch_dest (t) == (uintptr_t) target (1), a64_insn (t));
      if (SC_METHOD == GORC_SC_VIA_MPROTECT)
	CHECK (call (1) == 21, call (1));
      CHECK (gorc_static_call_set (var, NULL) == 0, round);
      CHECK (a64_branch_dest (t) != 0 && a64_branch_dest (t) < (uintptr_t) t, a64_insn (t));
      if (SC_METHOD == GORC_SC_VIA_MPROTECT)
	CHECK (call (1) == 0, call (1));
      CHECK (dlclose (h) == 0, round);
    }
  return 0;
}
