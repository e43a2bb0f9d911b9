/* Single-stepping for the libgorc tests: a deterministic way to interrupt
   code at every instruction.  rt_step_run (fn, arg, on_step) runs
   FN (ARG) with the trap flag set: the CPU raises SIGTRAP after each
   instruction, and the handler calls ON_STEP (UC) with the interrupted
   context (in a signal handler: ON_STEP must be async-signal-safe) and
   sets the flag again, until FN returns.  The kernel clears the flag
   while a handler runs, so only the stepped thread's own code is
   stepped, not the handler.  */
#ifndef RT_STEP_H
#define RT_STEP_H
#include <signal.h>
#include <stdatomic.h>
#include <ucontext.h>
#include "rt-test.h"

#define RT_EFLAGS_TF 0x100L

static void (*rt_step_fn) (ucontext_t *uc);
static volatile sig_atomic_t rt_stepping;
static long rt_steps;

static void
rt_on_sigtrap (int sig, siginfo_t *si, void *ucv)
{
  ucontext_t *uc = ucv;
  (void) sig;
  (void) si;
  if (!rt_stepping) {
    uc->uc_mcontext.gregs[REG_EFL] &= ~RT_EFLAGS_TF;
    return;
  }
  rt_steps++;
  rt_step_fn (uc);
  uc->uc_mcontext.gregs[REG_EFL] |= RT_EFLAGS_TF;
}

/* FN (ARG) stepped; returns the number of steps.  */
static inline long
rt_step_run (void (*fn) (void *), void *arg, void (*on_step) (ucontext_t *))
{
  rt_on_signal (SIGTRAP, rt_on_sigtrap, 0);
  rt_step_fn = on_step;
  rt_steps = 0;
  rt_stepping = 1;
  raise (SIGTRAP);    /* the handler sets the flag: stepping from here */
  fn (arg);
  rt_stepping = 0;    /* the next trap clears the flag */
  __asm__ volatile ("" ::: "memory");
  return rt_steps;
}
#endif
