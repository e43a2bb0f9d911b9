/* Updates of a trampoline in a dlopened library: from inside the library,
   and from the program with the variable's address (dlsym); then dlclose,
   load it again (likely at the same address: libgorc must notice that its
   alias of the old mapping is gone) and update again, several rounds.  */
/* { dg-do run } */
/* { dg-gorc-static shared } */
/* { dg-additional-options "-ldl" } */
#include <dlfcn.h>
#include "support/sc-test.h"

int
main (void)
{
  for (int round = 0; round < 5; round++)
    {
      /* A full path: libgorc's own dlopen wrapper is the caller of libc's
	 dlopen, so this program's DT_RUNPATH would not be searched.  */
      void *h = dlopen (SC_LIB_DIR "/libgorc-sc-dl.so", RTLD_NOW);
      if (!h)
	FAIL (dlerror (), round);
      int (*call) (int) = (int (*) (int)) dlsym (h, "dl_call");
      int (*sw) (int) = (int (*) (int)) dlsym (h, "dl_switch");
      int (*(*target) (int)) (int) = (int (*(*) (int)) (int)) dlsym (h, "dl_target");
      void *var = dlsym (h, "dl_op");
      CHECK (call && sw && target && var, round);
      CHECK (call (1) == 11, call (1));	/* fresh copy: the initial target */
      CHECK (sw (1) == 0, round);
      CHECK (gorc_static_call_last_method () == GORC_SC_VIA_ALIAS, round);
      CHECK (call (1) == 21, call (1));
      CHECK (gorc_static_call_set (var, (void (*) (void)) target (0)) == 0, round);
      CHECK (call (1) == 11, call (1));
      CHECK (gorc_static_call_set (var, (void (*) (void)) target (1)) == 0, round);
      CHECK (call (1) == 21, call (1));
      CHECK (dlclose (h) == 0, round);
    }
  return 0;
}
