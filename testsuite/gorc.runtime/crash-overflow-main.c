/* A stack overflow in the main thread (unbounded recursion), with the
   crash handler installed: the trace says "stack overflow" and is the
   whole stack, the recursion one line "#1-#N  ... in recurse+0x...
   (N times)", then main and on to _start (issue 23: the walk stopped
   after frame #0, as the interrupted sp lies in the guard area, below
   the stack).  20 runs, each in a child process: every one complete.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/crash-child.h"


static void overflow(void *unused)
{
  (void)unused;
  crash_limit_stack();
  CHECK(gorc_install_crash_handler() == 0, 0);
  crash_sink = recurse(0);
}

int main(void)
{
  static const char *const tail[] = { "main", "_start" };
  /* 8 MiB of frames of at least 264 bytes */
  crash_check_overflows(20, overflow, NULL, 20000, tail, 2);
  return 0;
}
