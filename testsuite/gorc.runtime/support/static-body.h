/* A static program's walk through its own code (issue 10 item 6): no
   dynamic loader, so libgorc finds the program from the auxiliary
   vector.  rec (DEPTH) recurses through plugin-built frames; at the
   bottom,
   - gorc_backtrace must be complete (the outermost frame, _start, is
     reached) and hold every level's return address in order, main's
     among them, then the C library's start-up frames, all inside the
     program's code;
   - gorc_cursor_init / gorc_cursor_step must give the same addresses;
   - raise (SIGUSR1): the handler's gorc_backtrace_ucontext must be
     complete and continue with the same chain.
   Included by static-exe*.c and static-pie.c, which choose the link.  */

#define _GNU_SOURCE
#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include "rt-test.h"

#define DEPTH 12
#define MAX 64

extern const char __executable_start[], etext[];
static void *exp_ra[DEPTH + 1];
static void *ips[MAX], *handler_ips[MAX];
static volatile int handler_rc;
volatile int sink;

static void
on_sigusr1 (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  handler_rc = gorc_backtrace_ucontext (uc, handler_ips, MAX);
}

/* IPS[0..N) holds the chain exp_ra[0..DEPTH] from some index on, then
   at least the C library's frame that called main; all of it in the
   program's code.  */
static void
check_walk (void **w, int n, const char *what)
{
  int j = 0;
  while (j < n && w[j] != exp_ra[0])
    j++;
  if (j == n) {
    rt_puts (what);
    FAIL (": the chain is not in the walk, frames", n);
  }
  rt_check_chain (w, n, j, exp_ra, DEPTH + 1);
  CHECK (n > j + DEPTH + 1, n);   /* beyond main */
  for (int i = 0; i < n; i++)
    if ((const char *) w[i] <= __executable_start || (const char *) w[i] > etext) {
      rt_puts (what);
      FAIL (": an address outside the program's code, at frame", i);
    }
}

__attribute__((noinline, noclone)) static void
bottom (void)
{
  int rc = gorc_backtrace (ips, MAX);
  if (rc < 0) {
    rt_puts ("gorc_backtrace failed after ");
    rt_putn (gorc_backtrace_count ());
    FAIL (" frames", rc);
  }
  check_walk (ips, rc, "gorc_backtrace");

  struct gorc_cursor c;
  void *cips[MAX];
  int n = 0;
  CHECK (gorc_cursor_init (&c) == 0, 0);
  cips[n++] = (void *) c.ip;
  while (n < MAX && (rc = gorc_cursor_step (&c)) == 1)
    cips[n++] = (void *) c.ip;
  CHECK (rc == 0, rc);
  check_walk (cips, n, "the cursor");

  rt_on_signal (SIGUSR1, on_sigusr1, 0);
  handler_rc = -100;
  raise (SIGUSR1);
  CHECK (handler_rc >= 0, handler_rc);
  check_walk (handler_ips, handler_rc, "the handler's walk");
  printf ("static: %d frames, the chain of %d levels and main's callers\n", n, DEPTH + 1);
}

__attribute__((noinline, noclone)) static int
rec (int n)
{
  char *p = alloca (16 + n * 8);   /* frames of different shapes */
  p[0] = (char) n;
  __asm__ volatile ("" : : "r" (p) : "memory");
  exp_ra[n] = __builtin_return_address (0);
  int r;
  if (n == 0) {
    bottom ();
    r = 0;
  } else
    r = rec (n - 1);
  sink += r + p[0];
  return r + 1;
}

int
main (void)
{
  rec (DEPTH);
  return 0;
}
