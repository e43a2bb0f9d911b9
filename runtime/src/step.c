/* libgorc: the general step, one frame at a time, from the state the
   walk looked up (walk.c): a signal frame, else the step rules of
   gorc/step.h (gorc-prof's and the BPF walker's too) over the cursor's
   checked reads (cursor.h).  Any state: DRAP rules, the aux register, a
   return address in the link register, the outermost frame.

   A frame that returns into the signal trampoline (the port's
   GORC_RT_SIGRETURN_CODE) is a signal frame: the step reads the
   interrupted registers from the ucontext in it
   (gorc_step_signal_frame) and follows the one jump between the
   alternate signal stack and the thread's stack.  */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "cursor.h"

/* ---- signal frames ---- */

static const uint8_t sigreturn_code[GORC_RT_SIGRETURN_LEN] = GORC_RT_SIGRETURN_CODE;

/* Copy LEN (at most 4096) bytes at A into BUF, where process_vm_readv
   is missing (qemu-user answers ENOSYS): when both ends' pages are
   readable (probe).  */
static int read_probed(uint64_t a, void *buf, size_t len)
{
  if (!gorc_rt_stack_probe(a & ~(uint64_t)7) || !gorc_rt_stack_probe((a + len - 1) & ~(uint64_t)7))
    return 0;
  memcpy(buf, (const void *)(uintptr_t)a, len);
  return 1;
}

/* Copy LEN bytes at A into BUF if the kernel lets us: process_vm_readv
   fails instead of faulting (one syscall, for the rare reads that no
   bound or module covers).  */
static int read_safely(uint64_t a, void *buf, size_t len)
{
  struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)a, len };
  int saved_errno = errno;   /* the interrupted code's, in a handler */
  long got = syscall(SYS_process_vm_readv, (long)getpid(), &local, 1L, &remote, 1L, 0L);
  int ok = got == (long)len || (got < 0 && errno == ENOSYS && read_probed(a, buf, len));
  errno = saved_errno;
  return ok;
}

/* Does the signal trampoline (GORC_RT_SIGRETURN_CODE: glibc's
   __restore_rt, the vDSO's __kernel_rt_sigreturn) start at START, in M's
   code, or outside every module (M NULL) where the port says it may be?
   Read safely: the module may be unloaded by another thread's dlclose
   at any moment.  */
static int sigreturn_at(const struct gorc_rt_module *m, uint64_t start)
{
  uint8_t code[sizeof sigreturn_code];
  if (m ? !gorc_rt_module_has_code(m, start, sizeof code) : !GORC_RT_SIGRETURN_OUTSIDE_MODULES)
    return 0;
  return read_safely(start, code, sizeof code) && memcmp(code, sigreturn_code, sizeof code) == 0;
}

/* Is IP, in M's code (or in none: M NULL), an instruction of the signal
   trampoline?  A return address (INTERRUPTED 0) can only be its start;
   an interrupted context may also stand at its system call.  */
static int is_sigreturn(const struct gorc_rt_module *m, uint64_t ip, int interrupted)
{
  return sigreturn_at(m, ip)
         || (interrupted && sigreturn_at(m, ip - GORC_RT_SIGRETURN_SYSCALL_OFF));
}

/* Is M the vDSO, when the port's signal trampoline is there with CFI of
   its own (GORC_RT_SIGRETURN_VDSO_CFI)?  That CFI unwinds through the
   frame record the kernel builds and skips the interrupted pc: the walk
   reads the ucontext instead.  */
static int vdso_with_sigreturn(const struct gorc_rt_module *m)
{
  return GORC_RT_SIGRETURN_VDSO_CFI && m->map_lo == getauxval(AT_SYSINFO_EHDR);
}

/* C's frame returns into the signal trampoline: the interrupted context
   is the ucontext of the signal frame at sp, its registers read as
   stack (C's range grows in probe mode).  */
static int signal_frame(struct gorc_cursor *c)
{
  struct gorc_frame_regs from = cursor_regs(c), to;
  if (gorc_step_signal_frame(c, &from, &to) != 0)
    return -GORC_EBADFRAME;
  uint64_t sp = to.sp;
  /* The walk started on the main thread's stack without asking for the
     altstack (bounds.c); an altstack that lives inside that
     stack (a local array of main) shows only here.  */
  if (!cstate(c)->ahi)
    gorc_rt_query_altstack(c);
  int from_alt = in_range(c->sp, cstate(c)->alo, cstate(c)->ahi);
  int to_alt = in_range(sp, cstate(c)->alo, cstate(c)->ahi);
  if (from_alt && !to_alt) {
    if (cstate(c)->flags & F_ALTJUMP)
      return -GORC_EDIRECTION;
    if (cstate(c)->flags & F_LO_SOFT) {
      /* Non-main thread: the interrupted sp now gives the low bound; the
         stack runs from there to the thread pointer.  */
      uint64_t hi = cstate(c)->hi;
      if ((sp & 7) || sp >= hi || hi - sp >= (1ull << 30) || !gorc_rt_stack_probe(sp))
        return -GORC_EBADFRAME;
      cstate(c)->lo = (sp - BELOW_SP) & ~(uint64_t)7;
      cstate(c)->flags &= ~(uint64_t)F_LO_SOFT;
    }
    cstate(c)->flags |= F_ALTJUMP;
    if ((cstate(c)->flags & F_THREAD) && sp < cstate(c)->lo && sp < cstate(c)->hi) {
      /* A thread whose altstack lies inside its own stack, above the
         frames the handler interrupted (the walk started on the
         altstack, within the range known to be this thread's stack):
         the stack goes on down to the interrupted sp.  */
      if ((sp & 7) || cstate(c)->hi - sp >= (1ull << 30) || !gorc_rt_stack_probe(sp))
        return -GORC_EBADFRAME;
      cstate(c)->lo = (sp - BELOW_SP) & ~(uint64_t)7;
    }
  } else if (sp <= c->sp) {
    return -GORC_EDIRECTION;
  }
  /* In probe mode the interrupted sp is usually above the range read so
     far (the signal frame lies below it): probe up to it.  */
  if (!on_stack(c, sp))
    return -GORC_EBADFRAME;
  cursor_take(c, &to, cstate(c)->flags & ~(uint64_t)F_AUX_SKIPPED);
  return 1;
}

/* ---- the step by state ---- */

/* A step rule's error as the API's (or -WALK_AGAIN: aux is needed, and
   only not known because the inner loop skipped it).  */
static int step_error(const struct gorc_cursor *c, int rc)
{
  switch (rc) {
  case GORC_STEP_EAUX:
    return (cstate(c)->flags & F_AUX_SKIPPED) ? -WALK_AGAIN : -GORC_EBADFRAME;
  case GORC_STEP_EUNDEFINED:
    return -GORC_EUNDEFINED;
  case GORC_STEP_EDIRECTION:
    return -GORC_EDIRECTION;
  default:
    return -GORC_EBADFRAME;
  }
}

int gorc_rt_step_frame(struct gorc_cursor *c, const struct gorc_rt_frame_state *fs)
{
  uint64_t flags = cstate(c)->flags;
  const struct gorc_rt_module *m = fs->has_module ? &fs->m : NULL;
  /* A return address must be code of a loaded module: anything else is
     a corrupt stack (or record), not a frame.  */
  if (!(flags & F_NOADJ) && (!m || !gorc_rt_module_has_code(m, fs->pc, 1))) {
    if (!m && is_sigreturn(NULL, c->ip, 0))
      return signal_frame(c);
    cstate(c)->flags |= F_NOT_CODE;
    return -GORC_EBADFRAME;
  }
  /* A signal frame: the return address is the signal trampoline (or an
     interrupted context stands in it).  glibc's .eh_frame rule for it is
     an expression (UNDEFINED here), and code without any rule has none,
     so only then are its bytes compared (and only inside the module's
     code), and in a vDSO whose trampoline has CFI of its own.  */
  if ((fs->found != 1 || fs->st.cfa_kind == GORC_CFA_UNDEFINED || (m && vdso_with_sigreturn(m)))
      && is_sigreturn(m, c->ip, (flags & F_NOADJ) != 0))
    return signal_frame(c);
  if (fs->found < 0)
    return fs->found;
  if (fs->found == 0)
    return -GORC_ENORECORD;
  return gorc_rt_step_by_state(c, &fs->st);
}

/* The general step of C's frame, whose state is ST (gorc/step.h).  */
int gorc_rt_step_by_state(struct gorc_cursor *c, const struct gorc_state *st)
{
  struct gorc_frame_regs f = cursor_regs(c);
  int rc = gorc_step_by_state(c, &f, st);
  if (rc == GORC_STEP_OUTERMOST) {
    cstate(c)->flags |= F_END;
    return 0;
  }
  if (rc < 0)
    return step_error(c, rc);
  /* A rule other than "same" decides aux, whatever the loop skipped.  */
  uint64_t flags = cstate(c)->flags;
  if (st->aux_kind != GORC_AUX_SAME)
    flags &= ~(uint64_t)F_AUX_SKIPPED;
  cursor_take(c, &f, flags);
  return 1;
}
