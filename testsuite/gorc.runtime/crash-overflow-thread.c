/* A stack overflow in a thread made by pthread_create after the crash
   handler's install: libgorc's pthread_create gave the thread an
   alternate signal stack, so the handler runs (issue 23: the process
   died by SIGSEGV without a word).  The trace says "stack overflow",
   collapses the recursion into one line and goes on to the thread's
   start routine, start_thread and clone3.  20 runs, each in a child
   process: every one complete.  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */

#include <pthread.h>
#include "support/crash-child.h"

volatile int sink;

__attribute__((noinline)) int recurse(int n)
{
  volatile char b[256];
  b[0] = (char)n;
  return recurse(n + 1) + b[0];
}

__attribute__((noinline)) static void *overflowing_thread(void *unused)
{
  (void)unused;
  sink = recurse(0);
  return NULL;
}

static void overflow(void *unused)
{
  pthread_t t;
  pthread_attr_t attr;
  (void)unused;
  CHECK(gorc_install_crash_handler() == 0, 0);
  /* 2 MiB: not the default, so the limit of the walk is the thread's.  */
  CHECK(pthread_attr_init(&attr) == 0, 0);
  CHECK(pthread_attr_setstacksize(&attr, 2u << 20) == 0, 0);
  CHECK(pthread_create(&t, &attr, overflowing_thread, NULL) == 0, 0);
  pthread_join(t, NULL);
}

static char trace[64 * 1024];

int main(void)
{
  static const char *const tail[] = { "overflowing_thread", "start_thread", "clone3" };
  for (int run = 0; run < 20; run++) {
    size_t total;
    int status = crash_child(overflow, NULL, trace, sizeof trace, &total);
    const char *why = !WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV
                          ? "the child did not die by SIGSEGV"
                          : total >= sizeof trace ? "the trace is too long"
                          /* 2 MiB of frames of at least 264 bytes */
                          : crash_trace_problem(trace, "recurse", 5000, tail, 3, 1);
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
