/* gorc-prof test program: most of its time in ld.so.

     prof-ldso MS

   Prints "ready PID", waits for SIGUSR1 (to be attached to first), then
   burns MS milliseconds of its own CPU time looking symbols up with
   dlsym, so that the samples' stacks run main;lookup_loop;dlsym, then
   through ld.so (_dl_lookup_symbol_x): ld.so is the highest of a
   process's mappings but [vsyscall] and the vdso.  Exits 0.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;
static volatile long sink;

static void on_usr1(int sig)
{
  (void)sig;
  go = 1;
}

static double cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void lookup_loop(double ms)
{
  static const char *const names[] = { "printf", "malloc", "no_such_symbol_here", "qsort" };
  double end = cpu_ms() + ms;
  while (cpu_ms() < end)
    for (int i = 0; i < 1000; i++)
      sink += (long)dlsym(RTLD_DEFAULT, names[i & 3]);
}

int main(int argc, char **argv)
{
  sigset_t usr1, old;
  if (argc != 2)
    return 2;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigprocmask(SIG_BLOCK, &usr1, &old);
  signal(SIGUSR1, on_usr1);
  printf("ready %d\n", (int)getpid());
  fflush(stdout);
  while (!go)
    sigsuspend(&old);
  lookup_loop(atof(argv[1]));
  return 0;
}
