/* The walk memo (memo.h) under signals: the main thread walks again and
   again (each walk against the cursor, which never uses the memo) while a
   helper thread sends it SIGPROF, whose handler walks the interrupted
   context with the same thread's memo, and so rewrites it under the
   walks it interrupts (which must then go on in the inner loop).  Every
   walk must be right: the main thread's equal to the cursor's, the
   handler's ending in the same outermost frames as a walk from main.
   How many signals arrive is the machine's business; none is needed.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "support/rt-cursor-compare.h"

#define MAX_IPS 256
#define OUTER 3   /* __libc_start_call_main, __libc_start_main, _start */
volatile int sink;
static void *outer_ips[OUTER];
static atomic_int stop, handled;
static pthread_t main_thread;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
  void *ips[MAX_IPS];
  int n;
  (void)sig;
  (void)si;
  /* Its own count (not the thread's gorc_backtrace_count, which the
     walks it interrupts read).  */
  int rc = gorc_backtrace_ucontext2(uc, ips, MAX_IPS, &n);
  if (rc < 0) {
    rt_puts(gorc_strerror(rc));
    FAIL(" in the handler's walk", n);
  }
  CHECK(rc >= OUTER, rc);
  for (int i = 0; i < OUTER; i++)
    if (ips[rc - OUTER + i] != outer_ips[i])
      FAIL("the handler's walk ends elsewhere, frame", rc - OUTER + i);
  atomic_fetch_add(&handled, 1);
}

static void *ticker(void *arg)
{
  struct timespec ts = { 0, 30000 };
  (void)arg;
  while (!atomic_load(&stop)) {
    pthread_kill(main_thread, SIGPROF);
    nanosleep(&ts, NULL);
  }
  return NULL;
}

__attribute__((noinline, noclone)) static int chain(int depth, int here)
{
  if (here < depth) {
    int r = chain(depth, here + 1);
    sink += r;
    return r + 1;
  }
  rt_compare_with_cursor(depth, RT_COMPARE_MAX - 1);
  return 0;
}

int main(void)
{
  void *ips[MAX_IPS];
  int rc = gorc_backtrace(ips, MAX_IPS);
  CHECK(rc > OUTER, rc);
  for (int i = 0; i < OUTER; i++)
    outer_ips[i] = ips[rc - OUTER + i];
  main_thread = pthread_self();
  rt_on_signal(SIGPROF, on_prof, SA_RESTART);
  pthread_t t;
  CHECK(pthread_create(&t, 0, ticker, 0) == 0, 0);
  for (int round = 0; round < 3000; round++)
    sink += chain(round % 40, 0);
  atomic_store(&stop, 1);
  pthread_join(t, 0);
  /* Not a condition: the count only says what the run tested.  */
  rt_puts("memo-signals: walks in the handler: ");
  rt_putn(atomic_load(&handled));
  rt_puts("\n");
  return 0;
}
