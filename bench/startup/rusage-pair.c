/* make bench: the start-up cost of a preloaded library.

   Usage: rusage-pair ROUNDS PRELOAD CMD [ARG]...

   Runs CMD 2 x ROUNDS times, interleaved: without LD_PRELOAD and with
   LD_PRELOAD=PRELOAD, the order swapped every round so that load from
   elsewhere on the machine hits both alike.  Each run's CPU time (user +
   system) and peak RSS come from wait4's rusage of that one child.  Prints
   one line, the medians over the rounds:

     CPU_US_WITHOUT CPU_US_WITH MAXRSS_KB_WITHOUT MAXRSS_KB_WITH

   CMD's output goes to /dev/null.  Exit status 1 (and a message on stderr)
   when a run fails, 2 on bad usage.  */

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ROUNDS 101

struct sample {
  long cpu_us;
  long maxrss_kb;
};

/* Runs ARGV once, LD_PRELOAD set to PRELOAD or (NULL) unset; fills S.
   Returns 0, or -1 when the run could not start or did not exit 0.  */
static int run_once(char **argv, const char *preload, struct sample *s)
{
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    if (preload)
      setenv("LD_PRELOAD", preload, 1);
    else
      unsetenv("LD_PRELOAD");
    execvp(argv[0], argv);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid)
    return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  s->cpu_us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec +
              ru.ru_stime.tv_usec;
  s->maxrss_kb = ru.ru_maxrss;
  return 0;
}

static int cmp_long(const void *x, const void *y)
{
  long a = *(const long *)x, b = *(const long *)y;
  return a < b ? -1 : a > b;
}

static long median(long *v, int n)
{
  qsort(v, n, sizeof v[0], cmp_long);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
  if (argc < 4 || atoi(argv[1]) < 1 || atoi(argv[1]) > MAX_ROUNDS) {
    fprintf(stderr, "usage: rusage-pair ROUNDS(1..%d) PRELOAD CMD [ARG]...\n", MAX_ROUNDS);
    return 2;
  }
  int rounds = atoi(argv[1]);
  const char *preload = argv[2];
  char **cmd = argv + 3;
  long cpu[2][MAX_ROUNDS], rss[2][MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < 2; k++) {
      int with = (r + k) % 2; /* round 0: without first; round 1: with first */
      struct sample s;
      if (run_once(cmd, with ? preload : NULL, &s) < 0) {
        fprintf(stderr, "rusage-pair: %s failed %s LD_PRELOAD=%s\n", cmd[0],
                with ? "with" : "without", preload);
        return 1;
      }
      cpu[with][r] = s.cpu_us;
      rss[with][r] = s.maxrss_kb;
    }
  }
  printf("%ld %ld %ld %ld\n", median(cpu[0], rounds), median(cpu[1], rounds),
         median(rss[0], rounds), median(rss[1], rounds));
  return 0;
}
