/* A stack overflow in the main thread (unbounded recursion), with the
   crash handler installed: the trace says "stack overflow" and is the
   whole stack, the recursion one line "#1-#N  ... in recurse+0x...
   (N times)", then main and on to _start (issue 23: the walk stopped
   after frame #0, as the interrupted sp lies in the guard area, below
   the stack).  20 runs, each in a child process: every one complete.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/crash-child.h"

volatile int sink;

__attribute__((noinline)) int recurse(int n)
{
  volatile char b[256];
  b[0] = (char)n;
  return recurse(n + 1) + b[0];
}

static void overflow(void *unused)
{
  (void)unused;
  crash_limit_stack();
  CHECK(gorc_install_crash_handler() == 0, 0);
  sink = recurse(0);
}

static char trace[64 * 1024];

int main(void)
{
  static const char *const tail[] = { "main", "_start" };
  for (int run = 0; run < 20; run++) {
    size_t total;
    int status = crash_child(overflow, NULL, trace, sizeof trace, &total);
    const char *why = !WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV
                          ? "the child did not die by SIGSEGV"
                          : total >= sizeof trace ? "the trace is too long"
                          /* 8 MiB of frames of at least 264 bytes */
                          : crash_trace_problem(trace, "recurse", 20000, tail, 2, 1);
    if (why) {
      rt_puts(trace);
      rt_puts(why);
      rt_puts("\n");
      FAIL("run", run);
    }
  }
  rt_puts(trace);
  return 0;
}
