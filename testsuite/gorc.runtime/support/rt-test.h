/* Helpers for the libgorc tests.  FAIL works in signal handlers.  */
#ifndef RT_TEST_H
#define RT_TEST_H
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gorc.h"

static void rt_puts(const char *s) { (void)!write(2, s, strlen(s)); }
static void rt_putn(long v)
{
  char b[24]; int i = 23; int neg = v < 0; unsigned long u = neg ? -(unsigned long)v : (unsigned long)v;
  b[i] = 0;
  do { b[--i] = '0' + u % 10; u /= 10; } while (u);
  if (neg) b[--i] = '-';
  rt_puts(b + i);
}
#define FAIL(msg, v) do { rt_puts(__FILE__ ":"); rt_putn(__LINE__); rt_puts(": " msg ": "); \
                          rt_putn((long)(v)); rt_puts("\n"); _exit(1); } while (0)
#define CHECK(cond, v) do { if (!(cond)) FAIL(#cond, v); } while (0)

/* HANDLER for SIG (SA_SIGINFO, and FLAGS), no other signal blocked in
   it.  */
static inline void rt_on_signal(int sig, void (*handler)(int, siginfo_t *, void *), int flags)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(sig, &sa, NULL) == 0, sig);
}

/* glibc's __restore_rt: mov $15, %rax; syscall */
static int rt_is_restore_rt(const void *ip)
{
  static const unsigned char b[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
  return memcmp(ip, b, 9) == 0;
}

/* IPS[FROM..] must continue with EXP[0..N): the recorded return addresses.  */
static void rt_check_chain(void **ips, int got, int from, void **exp, int n)
{
  CHECK(got >= from + n, got);
  for (int i = 0; i < n; i++)
    if (ips[from + i] != exp[i])
      FAIL("chain mismatch at frame", from + i);
}

/* Tests of glibc's lazy-binding resolver must run lazily bound: if
   LD_BIND_NOW is set (the harness may set it), run ARGV again without it.  */
static inline void rt_run_lazily_bound(char **argv)
{
  if (getenv("LD_BIND_NOW")) {
    unsetenv("LD_BIND_NOW");
    execv("/proc/self/exe", argv);
    FAIL("execv", 0);
  }
}
#endif
