/* A stack overflow in a thread that was running before the crash
   handler's install: the install asks each running thread to set up an
   alternate signal stack (a signal to it alone), so the handler runs on
   the thread's overflow too.  The thread waits in a read(2) across the
   install (the request interrupts it; it goes on).  Linked with
   libgorc.a, which has no pthread_create of its own: the request alone
   gives the altstack.  20 runs, each in a child process: every trace
   complete, to the start routine and clone3.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <pthread.h>
#include "support/crash-child.h"

volatile int sink;
static int go[2];

__attribute__((noinline)) int recurse(int n)
{
  volatile char b[256];
  b[0] = (char)n;
  return recurse(n + 1) + b[0];
}

__attribute__((noinline)) static void *early_thread(void *unused)
{
  char c;
  stack_t cur;
  (void)unused;
  CHECK(read(go[0], &c, 1) == 1, 0);
  CHECK(sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE), cur.ss_flags);
  sink = recurse(0);
  return NULL;
}

static void overflow(void *unused)
{
  pthread_t t;
  (void)unused;
  CHECK(pipe(go) == 0, 0);
  CHECK(pthread_create(&t, NULL, early_thread, NULL) == 0, 0);
  CHECK(gorc_install_crash_handler() == 0, 0);
  CHECK(write(go[1], "g", 1) == 1, 0);
  pthread_join(t, NULL);
}

static char trace[64 * 1024];

int main(void)
{
  static const char *const tail[] = { "early_thread", "start_thread", "clone3" };
  for (int run = 0; run < 20; run++) {
    size_t total;
    int status = crash_child(overflow, NULL, trace, sizeof trace, &total);
    const char *why = !WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV
                          ? "the child did not die by SIGSEGV"
                          : total >= sizeof trace ? "the trace is too long"
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
