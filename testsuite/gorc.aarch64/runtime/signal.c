/* libgorc on aarch64: walks from a signal context.  SIGPROF is raised
   twice: by raise() (the signal arrives in libc, whose frames only
   .eh_frame describes) and by a kill system call in a leaf function
   that keeps its return address in x30 (the records say so at the svc:
   only the interrupted context knows x30).  The handler walks
   gorc_backtrace_ucontext (from the interrupted pc) and gorc_backtrace
   (from the handler, through the signal trampoline: the vDSO's
   __kernel_rt_sigreturn, or under qemu-user a page of qemu's, and the
   ucontext of struct rt_sigframe), and both must equal libgcc's
   _Unwind_Backtrace (and libunwind's, where installed, without pointer
   authentication) address for address from the interrupted frame on,
   and contain the chain of return addresses recorded on the way.  Both
   with the handler on the thread's stack and on an alternate stack.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <stdio.h>
#include <sys/syscall.h>
#include "oracle.h"

#define NIPS 64

static void *ips[NIPS], *ref[NIPS];
static void *exp_ra[2];		/* into outer (mid's), into main (outer's) */
static volatile int walks;
static char altstack[65536] __attribute__((aligned (16)));
static volatile int on_altstack;	/* the handler runs on altstack */

static void
check_walk (int rc, const char *what)
{
  if (rc < 0)
    {
      fprintf (stderr, "%s: %s after %d frames\n", what, gorc_strerror (rc),
	       gorc_backtrace_count ());
      FAIL ("walk failed", rc);
    }
}

/* The walks from the handler: IPS from the interrupted pc (ucontext),
   then from the handler itself.  */
static void
handler (int sig, siginfo_t *si, void *uc)
{
  (void) sig, (void) si;
  char here;
  CHECK ((&here >= altstack && &here < altstack + sizeof altstack) == on_altstack, on_altstack);
  void *pc = (void *) ((ucontext_t *) uc)->uc_mcontext.pc;
  int k = a64_gcc_walk (ref, NIPS);

  int rc = gorc_backtrace_ucontext (uc, ips, NIPS);
  check_walk (rc, "gorc_backtrace_ucontext");
  CHECK (ips[0] == pc, rc);
  a64_same_frames (ips, rc, 0, ref, k, "libgcc, from the ucontext");
  int at = 0;
  while (at < rc && ips[at] != exp_ra[0])
    at++;
  rt_check_chain (ips, rc, at, exp_ra, 2);

  rc = gorc_backtrace (ips, NIPS);
  check_walk (rc, "gorc_backtrace in the handler");
  a64_same_frames (ips, rc, 1, ref, k, "libgcc, from the handler");
  if (A64_ASK_LIBUNWIND)
    {
      k = a64_unw_walk (ref, NIPS);
      a64_same_frames (ips, rc, 1, ref, k, "libunwind, from the handler");
    }
  walks++;
}

/* A leaf: the return address stays in x30 across the svc.  */
__attribute__((noinline, noclone)) static void
leaf_kill (long pid)
{
  register long x0 __asm__ ("x0") = pid;
  register long x1 __asm__ ("x1") = SIGPROF;
  register long x8 __asm__ ("x8") = SYS_kill;
  __asm__ volatile ("svc #0" : "+r" (x0) : "r" (x1), "r" (x8) : "memory");
}

__attribute__((noinline, noclone)) static void
mid (int how)
{
  exp_ra[0] = __builtin_return_address (0);
  if (how)
    leaf_kill (getpid ());
  else
    raise (SIGPROF);
  __asm__ volatile ("" : : : "memory");	/* no tail call */
}

__attribute__((noinline, noclone)) static void
outer (int how)
{
  exp_ra[1] = __builtin_return_address (0);
  mid (how);
  __asm__ volatile ("" : : : "memory");
}

int
main (void)
{
  stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
  CHECK (sigaltstack (&ss, NULL) == 0, 0);
  for (int on_alt = 0; on_alt < 2; on_alt++)
    {
      on_altstack = on_alt;
      rt_on_signal (SIGPROF, handler, on_alt ? SA_ONSTACK : 0);
      for (int how = 0; how < 2; how++)
	{
	  outer (how);
	  __asm__ volatile ("" : : : "memory");
	}
    }
  CHECK (walks == 4, walks);
  return 0;
}
