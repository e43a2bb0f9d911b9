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

static int go[2];

__attribute__((noinline)) static void *early_thread(void *unused)
{
  char c;
  stack_t cur;
  (void)unused;
  CHECK(read(go[0], &c, 1) == 1, 0);
  CHECK(sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE), cur.ss_flags);
  crash_sink = recurse(0);
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

int main(void)
{
  static const char *const tail[] = { "early_thread", "start_thread", "clone3" };
  crash_check_overflows(20, overflow, NULL, 5000, tail, 3);
  return 0;
}
