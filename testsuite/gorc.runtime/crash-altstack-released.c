/* The alternate signal stacks that the crash handler's install gives to
   the threads already running (on a request signal to each) are freed
   once those threads have ended: at the start of the next thread made
   by pthread_create.  Until then they stay mapped (nothing else frees
   them).  Each thread reports its altstack's address; after the threads
   are joined and the kernel says they are gone (tgkill: ESRCH), each
   altstack is still mapped (msync), and after one more thread started
   and joined, none is.  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "support/rt-test.h"

#define EARLY_THREADS 8

static int go[2];
static struct {
  int tid;
  char *altstack;
} early[EARLY_THREADS];

static void *early_thread(void *arg)
{
  int i = (int)(long)arg;
  char c;
  stack_t cur;
  early[i].tid = (int)syscall(SYS_gettid);
  /* The install's request interrupts this read; it goes on after.  */
  CHECK(read(go[0], &c, 1) == 1, i);
  CHECK(sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE), cur.ss_flags);
  early[i].altstack = cur.ss_sp;
  return NULL;
}

static void *nothing(void *unused)
{
  return unused;
}

static int mapped(char *p)
{
  long page = sysconf(_SC_PAGESIZE);
  if (msync((void *)((uintptr_t)p & -page), page, MS_ASYNC) == 0)
    return 1;
  CHECK(errno == ENOMEM, errno);
  return 0;
}

int main(void)
{
  pthread_t threads[EARLY_THREADS], t;
  int ready;
  CHECK(pipe(go) == 0, 0);
  for (int i = 0; i < EARLY_THREADS; i++)
    CHECK(pthread_create(&threads[i], NULL, early_thread, (void *)(long)i) == 0, i);
  /* Every thread has said its tid before the install (it is then
     in or near its read, where the request finds it).  */
  do {
    ready = 0;
    for (int i = 0; i < EARLY_THREADS; i++)
      ready += __atomic_load_n(&early[i].tid, __ATOMIC_ACQUIRE) != 0;
  } while (ready < EARLY_THREADS);
  CHECK(gorc_install_crash_handler() == 0, 0);
  CHECK(write(go[1], "gggggggg", EARLY_THREADS) == EARLY_THREADS, 0);
  for (int i = 0; i < EARLY_THREADS; i++) {
    CHECK(pthread_join(threads[i], NULL) == 0, i);
    while (syscall(SYS_tgkill, getpid(), early[i].tid, 0) == 0)
      sched_yield();
    CHECK(errno == ESRCH, errno);
    CHECK(mapped(early[i].altstack), i);
  }
  CHECK(pthread_create(&t, NULL, nothing, NULL) == 0, 0);
  CHECK(pthread_join(t, NULL) == 0, 0);
  for (int i = 0; i < EARLY_THREADS; i++)
    if (mapped(early[i].altstack))
      FAIL("the altstack of an ended thread of the install is still mapped", i);
  printf("%d altstacks of the install's threads freed\n", EARLY_THREADS);
  return 0;
}
