/* libgorc on aarch64: a walk through a shared library built with the
   plugin (support/a64-lib.c, its own records and module slot) and back
   into the program by a callback: the same frames as libgcc's
   _Unwind_Backtrace (and libunwind's, where installed, without pointer
   authentication), twice (the second walk from the PC cache), and the
   program's own return addresses where it recorded them.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-gorc-runtime-library runtime/support/a64-lib.c "-O2 -fomit-frame-pointer" } */

#include <stdio.h>
#include "oracle.h"

#define NIPS 64

typedef int (*a64_cb) (int);
int a64_lib_call (a64_cb cb, int n);

static void *ips[NIPS], *ref[NIPS];
static void *into_main;
volatile int sink;

__attribute__((noinline, noclone)) static int
callback (int n)
{
  for (int round = 0; round < 2; round++)
    {
      int rc = gorc_backtrace (ips, NIPS);
      if (rc < 0)
	{
	  fprintf (stderr, "%s after %d frames\n", gorc_strerror (rc), gorc_backtrace_count ());
	  FAIL ("gorc_backtrace failed", rc);
	}
      /* in callback, then into lib_big, a64_lib_call, outer, main ...  */
      CHECK (rc >= 6, rc);
      CHECK (ips[4] == into_main, round);
      a64_same_frames (ips, rc, 1, ref, a64_gcc_walk (ref, NIPS), "libgcc");
      if (A64_ASK_LIBUNWIND)
	a64_same_frames (ips, rc, 1, ref, a64_unw_walk (ref, NIPS), "libunwind");
    }
  return n + 1;
}

__attribute__((noinline, noclone)) static int
outer (int n)
{
  into_main = __builtin_return_address (0);
  int r = a64_lib_call (callback, n);
  sink += r;
  return r + 1;
}

int
main (void)
{
  for (int n = 0; n < 4; n++)
    outer (n);
  return 0;
}
