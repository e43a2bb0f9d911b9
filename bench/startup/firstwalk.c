/* make bench: the first walk through a large module never walked before.

   Preloaded after libgorc (LD_PRELOAD=libgorc.so:firstwalk.so; this
   library needs libgorc.so, so libgorc's constructor runs first), into a
   program that has done nothing with libgorc yet (cc1 in the bench).  The
   constructor arms a one-shot ITIMER_PROF timer of GORC_FIRSTWALK_MS
   milliseconds of CPU time (default 20).  Its SIGPROF handler walks the
   interrupted context with gorc_backtrace_ucontext twice (the first walk,
   then the same context again, warm), then writes one line to stderr and
   ends the process with _exit(0) (the program's own work is not measured):

     gorc-firstwalk: FIRST_NS WARM_NS FRAMES RESULT ANON_KB FILE_KB MINFLT

   FIRST_NS, WARM_NS: CLOCK_MONOTONIC time of each walk; FRAMES: addresses
   the first walk stored; RESULT: its return value (negative: why it
   stopped); ANON_KB, FILE_KB: growth of RssAnon (libgorc's own memory:
   its PC cache, its module slots) and of RssFile (pages of the modules'
   own tables, read in place, and of libgorc's code) over the first walk;
   MINFLT: minor page faults during the first walk (pages it touched for
   the first time).  */

#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "gorc.h"

#define MAX_FRAMES 512

static void *ips[MAX_FRAMES];

static long long now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* FIELD ("RssAnon:", "RssFile:") in kB from /proc/self/status, -1 when
   unreadable (open and read only: async-signal-safe).  */
static long status_kb(const char *field)
{
  static char buf[4096];
  int fd = open("/proc/self/status", O_RDONLY);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = 0;
  char *p = strstr(buf, field);
  if (!p)
    return -1;
  p += strlen(field);
  while (*p == ' ' || *p == '\t')
    p++;
  long kb = 0;
  while (*p >= '0' && *p <= '9')
    kb = kb * 10 + (*p++ - '0');
  return kb;
}

static long minor_faults(void)
{
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : -1;
}

/* Appends V in decimal and a space to *P (no stdio in a handler).  */
static void put_long(char **p, long long v)
{
  char tmp[24];
  int n = 0;
  unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
  do
    tmp[n++] = (char)('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    *(*p)++ = '-';
  while (n > 0)
    *(*p)++ = tmp[--n];
  *(*p)++ = ' ';
}

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
  (void)sig;
  (void)si;
  long anon0 = status_kb("RssAnon:"), file0 = status_kb("RssFile:");
  long flt0 = minor_faults();
  long long t0 = now_ns();
  int rc = gorc_backtrace_ucontext(uc, ips, MAX_FRAMES);
  long long t1 = now_ns();
  int frames = gorc_backtrace_count();
  long flt1 = minor_faults();
  long anon1 = status_kb("RssAnon:"), file1 = status_kb("RssFile:");
  long long t2 = now_ns();
  gorc_backtrace_ucontext(uc, ips, MAX_FRAMES);
  long long t3 = now_ns();

  char line[256], *p = line;
  memcpy(p, "gorc-firstwalk: ", 16);
  p += 16;
  put_long(&p, t1 - t0);
  put_long(&p, t3 - t2);
  put_long(&p, frames);
  put_long(&p, rc);
  put_long(&p, anon0 >= 0 && anon1 >= 0 ? anon1 - anon0 : -1);
  put_long(&p, file0 >= 0 && file1 >= 0 ? file1 - file0 : -1);
  put_long(&p, flt0 >= 0 && flt1 >= 0 ? flt1 - flt0 : -1);
  p[-1] = '\n';
  if (write(2, line, (size_t)(p - line)) < 0)
    _exit(1);
  _exit(0);
}

__attribute__((constructor)) static void arm(void)
{
  const char *ms_env = getenv("GORC_FIRSTWALK_MS");
  long ms = ms_env ? atol(ms_env) : 20;
  if (ms < 1)
    ms = 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, NULL);
  struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };
  setitimer(ITIMER_PROF, &it, NULL);
}
