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


__attribute__((noinline)) static void *overflowing_thread(void *unused)
{
  (void)unused;
  crash_sink = recurse(0);
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

int main(void)
{
  static const char *const tail[] = { "overflowing_thread", "start_thread", "clone3" };
  /* 2 MiB of frames of at least 264 bytes */
  crash_check_overflows(20, overflow, NULL, 5000, tail, 3);
  return 0;
}
