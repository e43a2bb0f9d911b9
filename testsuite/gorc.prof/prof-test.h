/* What gorc-prof's test programs share: the process's CPU time, and the
   wait for SIGUSR1 after saying "ready PID" (to be attached to first).
   Static inline: a program uses what it needs.  */
#ifndef GORC_PROF_TEST_H
#define GORC_PROF_TEST_H

#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* The CPU time the process has used, in milliseconds.  */
static inline double prof_cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile sig_atomic_t prof_usr1;

static inline void prof_on_usr1(int sig)
{
  (void)sig;
  prof_usr1 = 1;
}

/* Print "ready PID" and wait for SIGUSR1, the handler set first.  The
   flag is polled, not waited for with sigsuspend: in a process with
   threads the kernel may give the signal to another thread (one that
   does not block it), which sets the flag but wakes no sigsuspend.  */
static inline void prof_wait_for_usr1(void)
{
  signal(SIGUSR1, prof_on_usr1);
  printf("ready %d\n", (int)getpid());
  fflush(stdout);
  while (!prof_usr1)
    usleep(1000);
}

#endif
