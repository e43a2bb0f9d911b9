/* gorc-prof test program: known call chains burning CPU.

     prof-target [--wait] [--threads N] [--sigprof] [--deep] [--touch MB] MS
                 [--exec PROG ARG...]

   Every thread burns MS milliseconds of its own CPU time (as many
   samples whatever the machine's load) in
     main -> main_chain -> leaf_work            (the main thread)
     thread_main -> thread_chain -> leaf_work   (N more threads)
     main -> main_chain -> deep_chain x DEEP_LEVELS -> leaf_work  (--deep:
       64 frames of 512 bytes each, deeper than perf's default 8 KB copy)
   --wait: start the threads, print "ready PID" and burn only after
   SIGUSR1 (to be attached to first).  --sigprof: the program uses SIGPROF itself (ITIMER_PROF,
   every 2 ms of CPU; the handler spins in handler_work) and fails unless
   its handler ran.  --touch: MB megabytes written before the burn, so
   that an exec's freeing of the old mappings (in the kernel, the new
   mappings in place, the old program's registers kept) takes a while.
   --exec: then PROG with its ARGs runs in the same process (another
   image), or the program exits 1.  Exits 0.  */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "prof-test.h"

#define DEEP_LEVELS 64

static volatile double sink;
static int burn_ms, deep;
static volatile sig_atomic_t go, ticks;

__attribute__((noinline)) double leaf_work(int n)
{
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += i * 0.5;
    __asm__ volatile("" ::: "memory");
  }
  return s;
}

static double thread_cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void deep_chain(int level)
{
  volatile char frame[512];
  frame[0] = (char)level;
  if (level > 1)
    deep_chain(level - 1);
  else
    while (thread_cpu_ms() < burn_ms)
      sink += leaf_work(20000);
  frame[1] = frame[0];
}

__attribute__((noinline)) void main_chain(void)
{
  if (deep) {
    deep_chain(DEEP_LEVELS);
    return;
  }
  while (thread_cpu_ms() < burn_ms)
    sink += leaf_work(20000);
}

__attribute__((noinline)) void thread_chain(void)
{
  while (thread_cpu_ms() < burn_ms)
    sink += leaf_work(20000);
}

static void *thread_main(void *arg)
{
  (void)arg;
  while (!go)
    usleep(1000);
  thread_chain();
  return NULL;
}

__attribute__((noinline)) void handler_work(void)
{
  sink += leaf_work(400000);
}

static void on_sigprof(int sig)
{
  (void)sig;
  ticks++;
  handler_work();
}


static void use_sigprof(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigprof;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
  setitimer(ITIMER_PROF, &it, NULL);
}

int main(int argc, char **argv)
{
  int threads = 0, wait = 0, sigprof = 0;
  size_t touch_mb = 0;
  char **exec_argv = NULL;
  for (int i = 1; i < argc && !exec_argv; i++) {
    if (strcmp(argv[i], "--exec") == 0 && i + 1 < argc)
      exec_argv = &argv[i + 1];
    else if (strcmp(argv[i], "--wait") == 0)
      wait = 1;
    else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--sigprof") == 0)
      sigprof = 1;
    else if (strcmp(argv[i], "--deep") == 0)
      deep = 1;
    else if (strcmp(argv[i], "--touch") == 0 && i + 1 < argc)
      touch_mb = (size_t)atoi(argv[++i]);
    else
      burn_ms = atoi(argv[i]);
  }
  if (touch_mb) {
    char *mem = malloc(touch_mb << 20);
    if (!mem)
      return 1;
    memset(mem, 1, touch_mb << 20);
    sink += mem[touch_mb << 19];   /* (kept: read) */
  }
  pthread_t t[16];
  go = !wait;
  for (int i = 0; i < threads && i < 16; i++)
    pthread_create(&t[i], NULL, thread_main, NULL);
  if (wait) {
    prof_wait_for_usr1();
    go = 1;
  }
  if (sigprof)
    use_sigprof();
  main_chain();
  for (int i = 0; i < threads && i < 16; i++)
    pthread_join(t[i], NULL);
  if (sigprof) {
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &off, NULL);
    printf("sigprof ticks %d\n", (int)ticks);
    return ticks > 0 ? 0 : 1;
  }
  if (exec_argv) {
    execv(exec_argv[0], exec_argv);
    perror(exec_argv[0]);
    return 1;
  }
  return 0;
}
