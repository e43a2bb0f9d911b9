/* gorc-prof test program: overflows gorc-prof's ring buffer on cue.

     prof-fill MS [LIB [held]]

   Run as `GORC_PROF_TEST_HOLD_RING=1 gorc-prof -- prof-fill MS`: gorc-prof
   does not read its ring until asked.  The program burns MS milliseconds
   of its own CPU time (as many samples whatever the machine's load: far
   more than a one-page ring holds), asks gorc-prof (its parent) to read
   with SIGUSR1, waits for its answer, then burns MS / 10 more (at
   least): the kernel writes the count of what it dropped before the
   next record.  It burns on, MS / 10 at a time (20 times at most),
   until gorc-prof answers again: it has read that count (and the maps of this process,
   which must still run then).  Where it may run on two CPUs it fills
   the ring of one and goes on after the answer on the other: the kernel
   reports the loss in the full ring only when it next writes there,
   which then may never be.  With LIB (prof-dlopen.c built with
   -DPROF_DLOPEN_LIB -shared) it dlopens LIB while the ring is full (its
   mmap record is lost for sure) and burns after the answers in main ->
   lib_chain -> lib_work; with "held", it burns MS there before it asks
   too (samples in a library whose mapping gorc-prof has not read).
   Exits 0, 1 when not started by gorc-prof or LIB does not load.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prof-test.h"

static volatile double sink;
static volatile sig_atomic_t answered;   /* gorc-prof's answers so far */

static void on_answer(int sig)
{
  (void)sig;
  answered++;
}

/* Run on CPU number WHICH (0 or 1) of ALLOWED, the CPUs this program
   may run on: does nothing where it may run on one only.  */
static void run_on(const cpu_set_t *allowed, int which)
{
  cpu_set_t one;
  if (CPU_COUNT(allowed) < 2)
    return;
  CPU_ZERO(&one);
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++)
    if (CPU_ISSET(cpu, allowed) && seen++ == which) {
      CPU_SET(cpu, &one);
      sched_setaffinity(0, sizeof one, &one);
      return;
    }
}

__attribute__((noinline)) void fill_work(double ms)
{
  double end = prof_cpu_ms() + ms;
  while (prof_cpu_ms() < end)
    for (int i = 0; i < 10000; i++)
      sink += i * 0.5;
}

int main(int argc, char **argv)
{
  double ms = argc > 1 ? atof(argv[1]) : 300;
  sigset_t usr1, old;
  struct sigaction sa = { 0 };
  sa.sa_handler = on_answer;
  sigaction(SIGUSR1, &sa, NULL);
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigprocmask(SIG_BLOCK, &usr1, &old);
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    CPU_ZERO(&allowed);
  run_on(&allowed, 0);
  fill_work(ms);
  double (*lib_chain)(int) = NULL;
  if (argc > 2) {
    void *lib = dlopen(argv[2], RTLD_NOW);
    lib_chain = lib ? (double (*)(int))dlsym(lib, "lib_chain") : NULL;
    if (!lib_chain) {
      fprintf(stderr, "prof-fill: %s\n", dlerror());
      return 1;
    }
    if (argc > 3 && strcmp(argv[3], "held") == 0)
      sink += lib_chain((int)ms);
  }
  if (kill(getppid(), SIGUSR1) != 0) {
    perror("prof-fill: kill");
    return 1;
  }
  while (!answered)
    sigsuspend(&old);
  sigprocmask(SIG_SETMASK, &old, NULL);
  run_on(&allowed, 1);
  /* at least one burst after the first answer: the second may come at
     once (the loss reported with the record of run_on's moving) */
  int bursts = 0;
  do {
    if (lib_chain)
      sink += lib_chain((int)(ms / 10));
    else
      fill_work(ms / 10);
  } while (++bursts < 20 && answered < 2);
  return 0;
}
