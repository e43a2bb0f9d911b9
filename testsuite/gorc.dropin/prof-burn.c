/* gorc-prof test: two threads burning CPU in different call chains; the
   exit status (3) must come back through gorc-prof.
     burn [ROUNDS]   ROUNDS calls of leaf_work per thread (default 6000)
     burn Nms        leaf_work until each thread has used N ms of CPU: as
                     many profiling ticks whatever the machine's load  */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile double sink;

__attribute__((noinline)) double leaf_work(int n)
{
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += i * 0.5;
    __asm__ volatile("" ::: "memory");
  }
  return s;
}

static int cpu_ms;   /* > 0: burn this much CPU time per thread instead */

static double thread_cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Has this thread done ROUND of its ROUNDS (or its CPU time)?  */
static int burnt(int round, int rounds)
{
  return cpu_ms > 0 ? thread_cpu_ms() >= cpu_ms : round >= rounds;
}

__attribute__((noinline)) void main_chain(int rounds)
{
  for (int i = 0; !burnt(i, rounds); i++)
    sink += leaf_work(20000);
}

__attribute__((noinline)) void thread_chain(int rounds)
{
  for (int i = 0; !burnt(i, rounds); i++)
    sink += leaf_work(20000);
}

static void *thread_main(void *p)
{
  thread_chain(*(int *)p);
  return NULL;
}

int main(int argc, char **argv)
{
  static int rounds;
  rounds = argc > 1 ? atoi(argv[1]) : 6000;
  if (argc > 1 && strstr(argv[1], "ms"))
    cpu_ms = rounds;
  pthread_t t;
  if (pthread_create(&t, NULL, thread_main, &rounds) != 0)
    return 1;
  main_chain(rounds);
  pthread_join(t, NULL);
  printf("prof-burn: done\n");
  return 3;
}
