/* A SIGILL handler on an alternate signal stack, in the main thread and in
   a second thread: gorc_backtrace inside the handler must walk the
   handler, the signal frame (__restore_rt), the interrupted instruction and
   the recorded chain on the thread stack, to the outermost frame.
   gorc_backtrace_ucontext from the altstack must give the same tail.
   altstack-local.c includes this file with ALTSTACK_IN_MAIN_STACK (the
   altstack a local array of the main thread), altstack-thread-local.c
   with ALTSTACK_IN_THREAD_STACK (a local array of each thread's, and
   walks halfway down the recursion first, so that the thread's stack is
   known above the altstack but not down to the trap).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <ucontext.h>
#include "support/rt-test.h"

#define DEPTH 30
static __thread void *exp_ra[DEPTH + 1];
static __thread void *ips[256], *ips2[256];
static __thread sigjmp_buf env;
static __thread int handled;
volatile int sink;

__attribute__((noinline, noclone)) static void
handler (int sig, siginfo_t *si, void *ucv)
{
  (void) sig; (void) si;
  ucontext_t *uc = ucv;
  void *ip = (void *) uc->uc_mcontext.gregs[REG_RIP];
  stack_t ss;
  CHECK (sigaltstack (0, &ss) == 0 && (ss.ss_flags & SS_ONSTACK), ss.ss_flags);
  CHECK ((char *) &ss >= (char *) ss.ss_sp && (char *) &ss < (char *) ss.ss_sp + ss.ss_size, 0);
  int rc = gorc_backtrace (ips, 256);
  if (rc < 0)
    {
      rt_puts (gorc_strerror (rc));
      FAIL (" gorc_backtrace", gorc_backtrace_count ());
    }
  CHECK (rc >= DEPTH + 4, rc);
  CHECK (rt_is_restore_rt (ips[1]), 1);
  CHECK (ips[2] == ip, 2);
  rt_check_chain (ips, rc, 3, exp_ra, DEPTH + 1);
  int rc2 = gorc_backtrace_ucontext (ucv, ips2, 256);
  CHECK (rc2 == rc - 2, rc2);
  for (int i = 0; i < rc2; i++)
    CHECK (ips2[i] == ips[i + 2], i);
  handled++;
  siglongjmp (env, 1);
}

__attribute__((noinline, noclone)) static int
rec (int n)
{
  exp_ra[n] = __builtin_return_address (0);
#ifdef ALTSTACK_IN_THREAD_STACK
  if (n == DEPTH / 2)
    {
      void *w[256];
      CHECK (gorc_backtrace (w, 256) >= DEPTH / 2 + 3, n);
    }
#endif
  if (n == 0)
    __builtin_trap ();
  int r = rec (n - 1);
  sink += r;
  return r + 1;
}

static void *
run (void *arg)
{
  (void) arg;
  stack_t ss;
  ss.ss_size = 65536;
#if defined ALTSTACK_IN_MAIN_STACK || defined ALTSTACK_IN_THREAD_STACK
  char local_stack[65536] __attribute__ ((aligned (16)));
  ss.ss_sp = local_stack;
#else
  ss.ss_sp = malloc (ss.ss_size);
#endif
  ss.ss_flags = 0;
  CHECK (ss.ss_sp && sigaltstack (&ss, 0) == 0, 0);
  for (int i = 0; i < 3; i++)
    if (sigsetjmp (env, 1) == 0)
      rec (DEPTH);
  CHECK (handled == 3, handled);
#ifdef ALTSTACK_IN_THREAD_STACK
  stack_t off;
  memset (&off, 0, sizeof off);
  off.ss_flags = SS_DISABLE;
  CHECK (sigaltstack (&off, 0) == 0, 0);   /* local_stack goes */
#endif
  return 0;
}

int
main (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction (SIGILL, &sa, 0);
  run (0);
#if defined ALTSTACK_IN_MAIN_STACK && !defined ALTSTACK_IN_THREAD_STACK
  stack_t off;
  memset (&off, 0, sizeof off);
  off.ss_flags = SS_DISABLE;
  CHECK (sigaltstack (&off, 0) == 0, 0);   /* local_stack is gone */
#else
  pthread_t t;
  CHECK (pthread_create (&t, 0, run, 0) == 0, 0);
  pthread_join (t, 0);
#endif
  return 0;
}
