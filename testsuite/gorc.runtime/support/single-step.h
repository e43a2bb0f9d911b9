/* Single-stepping for tests (x86-64 Linux): run a function with the trap
   flag set, so that every instruction it executes (its callees, PLT stubs
   and the dynamic linker's resolver included) raises SIGTRAP, and hand
   each interrupted context to a callback.

     static void cb(const ucontext_t *uc, void *arg) { ... }
     gorc_single_step(fn, cb, arg);

   The callback runs in the SIGTRAP handler, once per instruction, before
   the instruction at uc's rip executes.  It may clear gorc_ss_active to
   stop stepping early; otherwise stepping stops when FN returns.  The
   handler replaces any SIGTRAP handler for the duration.  Deterministic:
   no timers, every instruction is seen exactly once.  */

#ifndef GORC_SINGLE_STEP_H
#define GORC_SINGLE_STEP_H

#include <signal.h>
#include <stddef.h>
#include <ucontext.h>

#define GORC_SS_EFLAGS_TF 0x100

typedef void (*gorc_ss_callback)(const ucontext_t *uc, void *arg);

static volatile sig_atomic_t gorc_ss_active;
static gorc_ss_callback gorc_ss_cb;
static void *gorc_ss_arg;
static unsigned long gorc_ss_steps;

static void gorc_ss_handler(int sig, siginfo_t *si, void *ucv)
{
  ucontext_t *uc = ucv;
  (void)sig;
  (void)si;
  if (gorc_ss_active) {
    gorc_ss_steps++;
    gorc_ss_cb(uc, gorc_ss_arg);
  }
  /* The flag may have been cleared by the callback or by the caller.  */
  if (gorc_ss_active)
    uc->uc_mcontext.gregs[REG_EFL] |= GORC_SS_EFLAGS_TF;
  else
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)GORC_SS_EFLAGS_TF;
}

static inline void gorc_ss_set_tf(void)
{
  __asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
}

static inline void gorc_ss_clear_tf(void)
{
  __asm__ volatile("pushfq\n\tandq $~0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
}

/* Step through FN, calling CB at each instruction.  Returns the number
   of instructions seen, or 0 when the handler could not be installed.  */
static inline unsigned long gorc_single_step(void (*fn)(void), gorc_ss_callback cb, void *arg)
{
  struct sigaction sa, old;
  sa.sa_sigaction = gorc_ss_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGTRAP, &sa, &old) != 0)
    return 0;
  gorc_ss_cb = cb;
  gorc_ss_arg = arg;
  gorc_ss_steps = 0;
  gorc_ss_active = 1;
  gorc_ss_set_tf();
  fn();
  gorc_ss_active = 0;
  gorc_ss_clear_tf();
  sigaction(SIGTRAP, &old, NULL);
  return gorc_ss_steps;
}

#endif
