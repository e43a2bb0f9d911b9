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

static char own_altstack[2][16384] __attribute__((aligned(16)));

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
    crash_sink = recurse(0);
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

int main(void)
{
  static const char *const tail[] = { "own_altstack_thread", "start_thread", "clone3" };
  crash_check_overflows(1, run, NULL, 5000, tail, 3);
  return 0;
}
