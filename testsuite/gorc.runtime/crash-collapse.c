/* Repeated frames in a crash trace: a fault 50 calls deep in a
   recursion prints frame #0, then the 50 return addresses into the
   recursion as one line, "#1-#50  0x... in descend+0x... (...) (50 times)",
   then the frames below it one a line, on to _start; the header does
   not say "stack overflow" (the fault address is not in the guard
   area).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/crash-child.h"

int *volatile null_ptr;
volatile int sink;

__attribute__((noinline)) int descend(int n)
{
  volatile char b[16];
  b[0] = (char)n;
  if (n == 0)
    return *null_ptr;
  return descend(n - 1) + b[0];
}

static void fault(void *unused)
{
  (void)unused;
  CHECK(gorc_install_crash_handler() == 0, 0);
  sink = descend(50);
}

static char trace[64 * 1024];

int main(void)
{
  static const char *const tail[] = { "main", "_start" };
  size_t total;
  int status = crash_child(fault, NULL, trace, sizeof trace, &total);
  rt_puts(trace);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, status);
  const char *why = crash_trace_problem(trace, "descend", 50, tail, 2, 0);
  if (why) {
    rt_puts(why);
    rt_puts("\n");
    FAIL("trace", 0);
  }
  CHECK(strstr(trace, "\n  #0  0x") && strstr(trace, " in descend+0x"), 0);
  CHECK(strstr(trace, "\n  #1-#50  0x") != NULL, 0);
  CHECK(strstr(trace, " (50 times)\n  #51 0x") != NULL, 0);
  return 0;
}
