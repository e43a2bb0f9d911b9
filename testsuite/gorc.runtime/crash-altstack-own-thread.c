/* A thread that sets its own alternate signal stack keeps it: libgorc's
   pthread_create gives each thread started after the crash handler's
   install an altstack of its own, and the program's sigaltstack replaces
   it; at the thread's end libgorc frees its own, leaving the program's
   alone.  A thread whose stack then overflows on the program's 16 KiB
   altstack still gets the whole trace (the handler prints on a stack of
   its own).  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */

#include <pthread.h>
#include "support/crash-child.h"

volatile int sink;
static char own_altstack[2][16384] __attribute__((aligned(16)));

__attribute__((noinline)) int recurse(int n)
{
  volatile char b[256];
  b[0] = (char)n;
  return recurse(n + 1) + b[0];
}

/* ARG: which of own_altstack to take; the second thread overflows.  */
__attribute__((noinline)) static void *own_altstack_thread(void *arg)
{
  long which = (long)arg;
  stack_t cur, ss = { .ss_sp = own_altstack[which], .ss_size = sizeof own_altstack[which] };
  CHECK(sigaltstack(NULL, &cur) == 0, 0);
  CHECK(!(cur.ss_flags & SS_DISABLE), cur.ss_flags); /* libgorc's */
  CHECK(cur.ss_sp != own_altstack[which], 0);
  CHECK(sigaltstack(&ss, NULL) == 0, 0);
  CHECK(sigaltstack(NULL, &cur) == 0 && cur.ss_sp == own_altstack[which], 0);
  if (which == 1)
    sink = recurse(0);
  return NULL;
}

static void run(void *unused)
{
  pthread_t t;
  (void)unused;
  CHECK(gorc_install_crash_handler() == 0, 0);
  for (long which = 0; which < 2; which++) {
    CHECK(pthread_create(&t, NULL, own_altstack_thread, (void *)which) == 0, which);
    pthread_join(t, NULL);
  }
}

static char trace[64 * 1024];

int main(void)
{
  static const char *const tail[] = { "own_altstack_thread", "start_thread", "clone3" };
  size_t total;
  int status = crash_child(run, NULL, trace, sizeof trace, &total);
  rt_puts(trace);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, status);
  const char *why = crash_trace_problem(trace, "recurse", 5000, tail, 3, 1);
  if (why) {
    rt_puts(why);
    rt_puts("\n");
    FAIL("trace", 0);
  }
  return 0;
}
