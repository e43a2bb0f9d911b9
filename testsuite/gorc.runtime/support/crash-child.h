/* Helpers for the crash handler's tests: run a crash in a child process
   and read the trace it prints on stderr.  */
#ifndef CRASH_CHILD_H
#define CRASH_CHILD_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rt-test.h"

/* Run FN(ARG) in a forked child whose stderr is a pipe; its output into
   OUT (NUL-terminated, cut at SIZE - 1 bytes; *TOTAL: how many it
   wrote).  Returns the child's wait status.  */
static int crash_child(void (*fn)(void *), void *arg, char *out, size_t size, size_t *total)
{
  int p[2];
  CHECK(pipe(p) == 0, 0);
  pid_t pid = fork();
  CHECK(pid >= 0, pid);
  if (pid == 0) {
    close(p[0]);
    dup2(p[1], 2);
    close(p[1]);
    fn(arg);
    _exit(0);
  }
  close(p[1]);
  size_t len = 0;
  *total = 0;
  for (;;) {
    char buf[4096];
    ssize_t got = read(p[0], buf, sizeof buf);
    if (got <= 0)
      break;
    size_t keep = (size_t)got < size - 1 - len ? (size_t)got : size - 1 - len;
    memcpy(out + len, buf, keep);
    len += keep;
    *total += (size_t)got;
  }
  out[len] = 0;
  close(p[0]);
  int status;
  CHECK(waitpid(pid, &status, 0) == pid, 0);
  return status;
}

/* The main thread's stack limited to 8 MiB (the harness may run with
   none), so that its overflow comes soon.  */
static void crash_limit_stack(void)
{
  struct rlimit rl;
  CHECK(getrlimit(RLIMIT_STACK, &rl) == 0, 0);
  if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (8u << 20)) {
    rl.rlim_cur = 8u << 20;
    CHECK(setrlimit(RLIMIT_STACK, &rl) == 0, 0);
  }
}

/* A count as the trace prints it, "31,250": its value, -1 if malformed.  */
static long crash_count(const char *s)
{
  long v = 0;
  int digits = 0;
  for (; *s && *s != ' '; s++) {
    if (*s == ',' && digits > 0)
      continue;
    if (*s < '0' || *s > '9')
      return -1;
    v = v * 10 + (*s - '0');
    digits++;
  }
  return digits ? v : -1;
}

/* Is the trace line [LINE, END) a frame of function FN?  glibc's symbol
   tables name some functions by an alias with "__" in front, depending
   on the version (glibc 2.43: __clone3), so that name counts too.  */
static int frame_of(const char *line, const char *end, const char *fn)
{
  char name[128];
  snprintf(name, sizeof name, " in %s+0x", fn);
  const char *found = strstr(line, name);
  if (found && found < end)
    return 1;
  snprintf(name, sizeof name, " in __%s+0x", fn);
  found = strstr(line, name);
  return found && found < end;
}

/* Why TRACE is not a complete, collapsed trace of the recursion through
   RECURSE+0x... of at least MIN_DEPTH frames, after frame #0, followed by
   the frames named TAIL[0..NTAIL) in that order (each " in NAME+0x"),
   the last of them the trace's last line, nothing cut short; with
   OVERFLOW, a header that says "stack overflow".  NULL if it is.  */
static const char *crash_trace_problem(const char *trace, const char *recurse, long min_depth,
                                       const char *const *tail, int ntail, int overflow)
{
  static char why[256];
  char name[128];
  if (strncmp(trace, "gorc: SIGSEGV at address 0x", 27) != 0)
    return "no SIGSEGV header first";
  const char *eol = strchr(trace, '\n');
  if (!eol)
    return "no complete header line";
  const char *said = strstr(trace, ": stack overflow (");
  if (overflow ? !said || said > eol : said != NULL)
    return overflow ? "the header does not say stack overflow" : "the header says stack overflow";
  if (strstr(trace, "\n  (") != NULL)
    return "the trace was cut short (a note in parentheses)";
  if (strncmp(eol + 1, "  #0  0x", 8) != 0)
    return "no frame #0 after the header";
  /* The run: "  #1-#N  0xADDR in RECURSE+0xOFF (MODULE+0xOFF) (COUNT times)".  */
  const char *run = strstr(trace, "\n  #1-#");
  if (!run)
    return "no collapsed run from frame #1";
  long last;
  char *end;
  last = strtol(run + 7, &end, 10);
  snprintf(name, sizeof name, " in %s+0x", recurse);
  const char *run_eol = strchr(run + 1, '\n');
  const char *times = strstr(run, " times)\n");
  const char *open = times;
  while (open && open > run && *open != '(')
    open--;
  if (!run_eol || strncmp(end, "  0x", 4) != 0 || !strstr(run, name) || strstr(run, name) > run_eol
      || !times || times + 7 != run_eol || open <= run)
    return "the run's line is not '#1-#N  0x... in RECURSE+0x... (...) (COUNT times)'";
  long count = crash_count(open + 1);
  if (count != last || count < min_depth) {
    snprintf(why, sizeof why, "run #1-#%ld of %ld times, at least %ld expected", last, count,
             min_depth);
    return why;
  }
  /* Then the frames after the run, numbered on from it, TAIL's names
     among them in order, the last one last.  */
  const char *line = run_eol + 1;
  long frame = last + 1;
  int next = 0;
  for (; *line; frame++) {
    const char *line_end = strchr(line, '\n');
    char num[32];
    if (!line_end)
      return "the last line is not complete";
    snprintf(num, sizeof num, "  #%ld%s0x", frame, frame < 10 ? "  " : " ");
    if (strncmp(line, num, strlen(num)) != 0) {
      snprintf(why, sizeof why, "the line after frame #%ld is not frame #%ld", frame - 1, frame);
      return why;
    }
    if (next < ntail && frame_of(line, line_end, tail[next]))
      next++;
    line = line_end + 1;
  }
  if (next < ntail) {
    snprintf(why, sizeof why, "%s not in the trace after the run, in order", tail[next]);
    return why;
  }
  const char *last_line = line - 1;
  while (last_line > trace && last_line[-1] != '\n')
    last_line--;
  if (!frame_of(last_line, line - 1, tail[ntail - 1]))
    return "the trace does not end with the last expected frame";
  return NULL;
}

/* An unbounded recursion: the stack overflow of the tests.  */
volatile int crash_sink;

__attribute__((noinline, unused)) static int recurse(int n)
{
  volatile char b[256];
  b[0] = (char)n;
  return recurse(n + 1) + b[0];
}

static char crash_trace[64 * 1024];

/* RUNS times: FN(ARG) in a child, which must die by SIGSEGV after
   printing a trace of a stack overflow in recurse (at least MIN_DEPTH
   frames of it) that ends with TAIL[0..NTAIL) (crash_trace_problem).
   Prints the last trace.  */
static void crash_check_overflows(int runs, void (*fn)(void *), void *arg, long min_depth,
                                  const char *const *tail, int ntail)
{
  for (int run = 0; run < runs; run++) {
    size_t total;
    int status = crash_child(fn, arg, crash_trace, sizeof crash_trace, &total);
    const char *why = !WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV
                          ? "the child did not die by SIGSEGV"
                          : total >= sizeof crash_trace ? "the trace is too long"
                          : crash_trace_problem(crash_trace, "recurse", min_depth, tail, ntail, 1);
    if (why) {
      rt_puts(crash_trace);
      rt_puts(why);
      rt_puts("\n");
      FAIL("run", run);
    }
  }
  rt_puts(crash_trace);
}

#endif
