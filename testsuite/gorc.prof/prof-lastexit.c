/* gorc.prof: a process whose first thread exits first (its own exit, not
   the process's), and whose last thread then does WORK steps (a fixed
   amount of work, not of time) and ends the process (exit_group).  With
   "wait", it prints "ready" once it can take a SIGUSR1, and the first
   thread exits only at that signal: a test stops
   gorc-prof meanwhile, so that it reads the first thread's exit record
   when the whole process has gone, as when exit_group's other threads
   die after the first.
     prof-lastexit [WORK [wait]]  */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* cleared by the kernel when the first thread has exited (its
   set_tid_address), with a futex wake */
static volatile int first_alive = 1;
static volatile unsigned long sink;

static void *last_thread(void *arg)
{
  long steps = (long)arg;
  while (first_alive == 1)
    syscall(SYS_futex, &first_alive, FUTEX_WAIT, 1, NULL, NULL, 0);
  for (long i = 0; i < steps; i++)
    sink = sink * 6364136223846793005ul + 1442695040888963407ul;
  _exit(0);
}

int main(int argc, char **argv)
{
  pthread_t t;
  long steps = argc > 1 ? atol(argv[1]) : 20000000;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  /* (blocked in both threads: sigwait takes it) */
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  if (pthread_create(&t, NULL, last_thread, (void *)steps) != 0) {
    fprintf(stderr, "prof-lastexit: pthread_create failed\n");
    return 1;
  }
  int signo;
  if (argc > 2 && strcmp(argv[2], "wait") == 0) {
    printf("ready\n");
    fflush(stdout);
    sigwait(&usr1, &signo);
  }
  syscall(SYS_set_tid_address, &first_alive);
  syscall(SYS_exit, 0);
}
