/* Repeated frames in a crash trace: a fault 50 calls deep in a
   recursion prints frame #0, then the 50 return addresses into the
   recursion as one line, "#1-#50  0x... in descend+0x... (...) (50 times)",
   then the frames below it one a line, on to _start; the header does
   not say "stack overflow" (the fault address is not in the guard
   area).  A mutual recursion, ping and pong 25 times, is one cycle of
   two frames: "#1-#50  25 times these 2 frames:", the two below it.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/crash-child.h"

int *volatile null_ptr;

__attribute__((noinline)) int descend(int n)
{
  volatile char b[16];
  b[0] = (char)n;
  if (n == 0)
    return *null_ptr;
  return descend(n - 1) + b[0];
}

__attribute__((noinline)) int ping(int n);

__attribute__((noinline)) int pong(int n)
{
  volatile char b[16];
  b[0] = (char)n;
  if (n == 0)
    return *null_ptr;
  return ping(n - 1) + b[0];
}

__attribute__((noinline)) int ping(int n)
{
  volatile char b[16];
  b[0] = (char)n;
  return pong(n) + b[0];
}

static void fault(void *mutual)
{
  CHECK(gorc_install_crash_handler() == 0, 0);
  crash_sink = mutual ? ping(24) : descend(50);
}

/* Does TRACE have the line of frame NUM (numbered like "  #5  ", or with
   INDENT) in FN?  */
static int has_frame(const char *trace, const char *indent, int num, const char *fn)
{
  char line[64], name[64];
  snprintf(line, sizeof line, "\n%s  #%d%s0x", indent, num, num < 10 ? "  " : " ");
  snprintf(name, sizeof name, " in %s+0x", fn);
  const char *at = strstr(trace, line), *eol = at ? strchr(at + 1, '\n') : NULL;
  const char *in = at ? strstr(at, name) : NULL;
  return in && eol && in < eol;
}

int main(void)
{
  static const char *const tail[] = { "main", "_start" };
  size_t total;
  int status = crash_child(fault, NULL, crash_trace, sizeof crash_trace, &total);
  rt_puts(crash_trace);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, status);
  const char *why = crash_trace_problem(crash_trace, "descend", 50, tail, 2, 0);
  if (why) {
    rt_puts(why);
    rt_puts("\n");
    FAIL("trace", 0);
  }
  CHECK(strstr(crash_trace, "\n  #0  0x") && strstr(crash_trace, " in descend+0x"), 0);
  CHECK(strstr(crash_trace, "\n  #1-#50  0x") != NULL, 0);
  CHECK(strstr(crash_trace, " (50 times)\n  #51 0x") != NULL, 0);

  status = crash_child(fault, (void *)1, crash_trace, sizeof crash_trace, &total);
  rt_puts(crash_trace);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, status);
  CHECK(has_frame(crash_trace, "", 0, "pong"), 0);
  CHECK(strstr(crash_trace, "\n  #1-#48  24 times these 2 frames:\n") != NULL, 0);
  CHECK(has_frame(crash_trace, "  ", 1, "ping"), 0);
  CHECK(has_frame(crash_trace, "  ", 2, "pong"), 0);
  CHECK(has_frame(crash_trace, "", 49, "ping"), 0);
  CHECK(strstr(crash_trace, "\n  (") == NULL, 0);
  return 0;
}
