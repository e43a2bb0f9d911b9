/* gorc_backtrace_ucontext from signal handlers: SIGUSR1 raised at depth 50
   (the interrupted code is in libc, unwound through its .eh_frame), then
   SIGILL from a trap at depth 50 (interrupted in our code: IPS[0] must be
   the trapping instruction, IPS[1..] the recorded return addresses).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include "support/rt-test.h"

#define DEPTH 50
static void *exp_ra[DEPTH + 1];
static void *ips[256];
static sigjmp_buf env;
static int mode;		/* 0: raise SIGUSR1, 1: trap */
static volatile int handled;
volatile int sink;

static void
handler (int sig, siginfo_t *si, void *ucv)
{
  (void) si;
  ucontext_t *uc = ucv;
  void *ip = (void *) uc->uc_mcontext.gregs[REG_RIP];
  int rc = gorc_backtrace_ucontext (ucv, ips, 256);
  if (rc < 0)
    {
      rt_puts (gorc_strerror (rc));
      FAIL (" gorc_backtrace_ucontext", gorc_backtrace_count ());
    }
  CHECK (rc == gorc_backtrace_count (), rc);
  CHECK (ips[0] == ip, 0);
  if (sig == SIGILL)
    {
      CHECK (((unsigned char *) ip)[0] == 0x0f && ((unsigned char *) ip)[1] == 0x0b, 0);
      rt_check_chain (ips, rc, 1, exp_ra, DEPTH + 1);
    }
  else
    {
      /* Interrupted in libc: find our innermost frame, then the chain.  */
      int i = 1;
      while (i < rc && ips[i] != exp_ra[0])
	i++;
      CHECK (i < rc && i <= 8, i);
      rt_check_chain (ips, rc, i, exp_ra, DEPTH + 1);
    }
  /* Same walk with a cursor: registers as in the ucontext.  */
  struct gorc_cursor c;
  CHECK (gorc_cursor_init_ucontext (&c, ucv) == 0, 0);
  CHECK ((void *) c.ip == ip, 0);
  CHECK (c.sp == (unsigned long) uc->uc_mcontext.gregs[REG_RSP], 0);
  CHECK (c.bp == (unsigned long) uc->uc_mcontext.gregs[REG_RBP], 0);
  handled++;
  if (sig == SIGILL)
    siglongjmp (env, 1);
}

__attribute__((noinline, noclone)) static int
rec (int n)
{
  exp_ra[n] = __builtin_return_address (0);
  if (n == 0)
    {
      if (mode == 0)
	raise (SIGUSR1);
      else
	__builtin_trap ();
      return 0;
    }
  int r = rec (n - 1);
  sink += r;
  return r + 1;
}

int
main (void)
{
  rt_on_signal (SIGUSR1, handler, 0);
  rt_on_signal (SIGILL, handler, 0);
  mode = 0;
  rec (DEPTH);
  CHECK (handled == 1, handled);
  mode = 1;
  if (sigsetjmp (env, 1) == 0)
    rec (DEPTH);
  CHECK (handled == 2, handled);
  return 0;
}
