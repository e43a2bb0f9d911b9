/* Walks from every instruction of glibc's __restore_rt (issue 15, d):
   a context whose ip is its first instruction or its syscall (+7) is a
   signal frame like its return address.  A SIGUSR1 handler sets the trap
   flag before it returns, so the CPU raises SIGTRAP after each of its
   last instructions, after its return into __restore_rt (ip at +0) and
   after the mov (ip at +7, the syscall); rt_sigreturn then restores the
   interrupted flags, and the stepping ends.  Every walk from a trap must
   equal libunwind's, to the outermost frame, and both instructions of
   __restore_rt must have been walked from.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */

#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <ucontext.h>
#include "support/rt-trace.h"

#define MAX 64
#define EFLAGS_TF 0x100L
#define SYSCALL_OFFSET 7   /* mov $15, %rax is 7 bytes */

static uintptr_t restore_rt;   /* the SIGUSR1 handler's return address */
static volatile int steps, at_start, at_syscall;
static volatile int past_syscall;   /* in this round */

static void
on_trap (int sig, siginfo_t *si, void *ucv)
{
  ucontext_t *uc = ucv;
  void *ours[MAX], *theirs[MAX];
  int rc;
  (void) sig;
  (void) si;
  uintptr_t ip = (uintptr_t) uc->uc_mcontext.gregs[REG_RIP];
  if (rt_ucontext_walks_differ (uc, ours, theirs, MAX, &rc, "trap", NULL, NULL)) {
    rt_puts ("  interrupted at __restore_rt+");
    rt_putn ((long) (ip - restore_rt));
    rt_puts ("\n");
    FAIL ("a walk from a stepped instruction differs from libunwind's", steps);
  }
  steps++;
  if (ip == restore_rt)
    at_start++;
  else if (ip == restore_rt + SYSCALL_OFFSET)
    at_syscall++, past_syscall = 1;
  else if (past_syscall)
    /* Past rt_sigreturn (a trap the kernel may report on its return).  */
    uc->uc_mcontext.gregs[REG_EFL] &= ~EFLAGS_TF;
}

__attribute__((noinline, noclone)) static void
on_usr1 (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  (void) uc;
  restore_rt = (uintptr_t) __builtin_return_address (0);
  past_syscall = 0;
  CHECK (rt_is_restore_rt ((void *) restore_rt), 0);
  /* From here every instruction traps, the return and __restore_rt
     included.  */
  __asm__ volatile ("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
}

__attribute__((noinline, noclone)) static void
raise_usr1 (void)
{
  raise (SIGUSR1);
  __asm__ volatile ("" ::: "memory");
}

int
main (void)
{
  rt_on_signal (SIGTRAP, on_trap, 0);
  rt_on_signal (SIGUSR1, on_usr1, 0);
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  for (int i = 0; i < 3; i++)
    raise_usr1 ();
  CHECK (at_start == 3, at_start);
  CHECK (at_syscall == 3, at_syscall);
  printf ("%d walks from stepped instructions equal libunwind's, 3 at __restore_rt, 3 at its syscall\n",
          steps);
  return 0;
}
