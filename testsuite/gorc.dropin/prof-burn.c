/* gorc-prof test: two threads burning CPU in different call chains; the
   exit status (3) must come back through gorc-prof.  */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

__attribute__((noinline)) void main_chain(int rounds)
{
  for (int i = 0; i < rounds; i++)
    sink += leaf_work(20000);
}

__attribute__((noinline)) void thread_chain(int rounds)
{
  for (int i = 0; i < rounds; i++)
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
  pthread_t t;
  if (pthread_create(&t, NULL, thread_main, &rounds) != 0)
    return 1;
  main_chain(rounds);
  pthread_join(t, NULL);
  printf("prof-burn: done\n");
  return 3;
}
