/* libgorc: the stack bounds of a walk.  Where a cursor starts, which
   stack it may read ([lo, hi), and the alternate signal stack): the main
   thread's (noted at load), a thread's (up to its thread pointer), or
   only what the kernel shows readable, grown by probes, for a context
   that may be made up (gorc_rt_cursor_start).  */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cursor.h"

/* Does the kernel let us read the 8 bytes at A (8-aligned)?  (For a
   stack bound we could not know in advance.)  rt_sigprocmask copies its
   set from A with the page-fault path, then refuses an invalid HOW
   without changing anything: EFAULT says unreadable.  process_vm_readv
   would not do here: it refuses the lowest page of a stack that grows on
   demand, which is readable.  */
static int probe(uint64_t a)
{
  int saved_errno = errno;   /* the interrupted code's, in a handler */
  int readable = syscall(SYS_rt_sigprocmask, -1L, (const void *)(uintptr_t)a, (void *)0, 8L) != 0
                 && errno != EFAULT;
  errno = saved_errno;
  return readable;
}

/* The altstack's bounds into alo/ahi, if this thread runs on it.  */
static void query_altstack(struct gorc_cursor *c)
{
  stack_t ss;
  /* Only fails for a bad argument, and then leaves errno alone.  */
  if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE) && (ss.ss_flags & SS_ONSTACK)) {
    cstate(c)->alo = (uint64_t)(uintptr_t)ss.ss_sp;
    cstate(c)->ahi = (uint64_t)(uintptr_t)ss.ss_sp + ss.ss_size;
  }
}

/* Per thread: the lowest sp at which a walk from its caller's own
   registers found this thread on its own stack, not on the altstack (0:
   none yet).  From there up to the thread pointer is the thread's stack
   block, so a later walk starting in that range need not ask for the
   altstack: one system call less per walk.  The walk's bounds are the
   same as if it had asked: [sp - BELOW_SP, tp).  (An altstack inside
   that range lies inside the thread's stack; signal_frame asks for it
   when a walk meets it, and extends the low bound down to the frames
   the handler interrupted.)  glibc initialises a thread's TLS afresh
   when it reuses a stack block.  */
static __thread uint64_t thread_stack_low __attribute__((tls_model("initial-exec")));

/* SP_IS_OWN: SP is the caller's own stack pointer (not an interrupted
   context's), so the altstack query tells whether SP is on the altstack.  */
static void set_thread_bounds(struct gorc_cursor *c, uint64_t sp, int sp_is_own)
{
  /* The thread pointer tells threads apart without a call (on x86-64 it
     is pthread_self(); on aarch64 pthread_self() lies below it).  */
  uint64_t tp = (uint64_t)(uintptr_t)__builtin_thread_pointer();
  int is_main = gorc_rt_main_self_known ? tp == gorc_rt_main_self
                                        : syscall(SYS_gettid) == getpid();
  /* On the main thread's own stack no older frame is on the altstack
     (a handler runs on the altstack only above the frames it
     interrupted), so the altstack need not be asked for: no system call
     in the common case.  */
  if (is_main && gorc_rt_main_hi && sp >= gorc_rt_main_lo && sp < gorc_rt_main_hi) {
    cstate(c)->lo = gorc_rt_main_lo;
    cstate(c)->hi = gorc_rt_main_hi;
    return;
  }
  uint64_t lo = (sp - BELOW_SP) & ~(uint64_t)7;
  if (!is_main && thread_stack_low && sp >= thread_stack_low && tp > sp) {
    cstate(c)->lo = lo;
    cstate(c)->hi = tp;
    cstate(c)->flags |= F_THREAD;
    return;
  }
  query_altstack(c);
  int on_alt = in_range(sp, cstate(c)->alo, cstate(c)->ahi);
  if (is_main && gorc_rt_main_hi && on_alt) {
    cstate(c)->lo = gorc_rt_main_lo;
    cstate(c)->hi = gorc_rt_main_hi;
    return;
  }
  /* glibc puts a thread's TCB and static TLS, where the thread pointer
     points (x86-64: at the TCB; aarch64: just above struct pthread), at
     the top of its stack block: [sp, tp) is mapped stack.  */
  if (!is_main && on_alt) {
    cstate(c)->lo = cstate(c)->hi = tp;
    cstate(c)->flags |= F_LO_SOFT;
    return;
  }
  if (!is_main && tp > sp && tp - sp < (1ull << 30)) {
    cstate(c)->lo = lo;
    cstate(c)->hi = tp;
    cstate(c)->flags |= F_THREAD;
    if (sp_is_own && !cstate(c)->ahi && (!thread_stack_low || sp < thread_stack_low))
      thread_stack_low = sp;
  } else {
    /* Unknown stack (a coroutine, a foreign thread): only sp's page.  */
    cstate(c)->lo = lo;
    cstate(c)->hi = (sp | 4095) + 1;
  }
}

/* The highest address a probed stack may grow to: the top of the stack
   C's walk is on (0: none known).  */
static uint64_t probe_limit(const struct gorc_cursor *c)
{
  uint64_t tp = (uint64_t)(uintptr_t)__builtin_thread_pointer();
  if (cstate(c)->flags & F_THREAD)
    return tp;
  if (gorc_rt_main_self_known && tp == gorc_rt_main_self && cstate(c)->lo >= gorc_rt_main_lo
      && cstate(c)->lo < gorc_rt_main_hi)
    return gorc_rt_main_hi;
  return 0;
}

#define PROBE_MAX_PAGES 64

/* A read at A above the probed range [lo, hi): probe the pages up to
   A's (at most PROBE_MAX_PAGES of them) and grow the range.  */
static int extend_probed(const struct gorc_cursor *c, uint64_t a)
{
  uint64_t hi = cstate(c)->hi, limit = probe_limit(c);
  if (a < hi || a + 8 > limit || ((a + 8 - hi) >> 12) >= PROBE_MAX_PAGES)
    return -1;
  for (; hi < a + 8; hi += 4096)
    if (!probe(hi))
      return -1;
  cstate(c)->hi = hi;
  return 0;
}

/* Is the stack at SP, where an interrupted context (a ucontext) says a
   walk starts, known to be mapped from SP up?  It is when the walking
   code's own frame is below SP on the same stack, or SP lies where an
   earlier walk of this thread found its own stack.  Otherwise the walk
   reads only what the kernel shows readable (F_PROBE): a made-up or
   corrupt context never makes it fault.  */
static int start_trusted(const struct gorc_cursor *c, uint64_t sp)
{
  uint64_t own = (uint64_t)(uintptr_t)__builtin_frame_address(0);
  if (in_range(sp, cstate(c)->alo, cstate(c)->ahi))
    return 1;
  if (in_range(own, cstate(c)->alo, cstate(c)->ahi))
    return 0;
  /* Not on the altstack (asked above when it mattered): the walking
     code's frame is on the same stack as SP when it lies below it, up to
     the same top.  */
  if (cstate(c)->flags & F_THREAD)
    return (thread_stack_low && sp >= thread_stack_low)
           || (own < sp && sp < cstate(c)->hi && cstate(c)->hi - own < (1ull << 30));
  return own < sp && own >= cstate(c)->lo && sp < cstate(c)->hi;
}

/* Start C's walk at an untrusted SP in probe mode: from sp to the end of
   its page, if the kernel lets us read it, and the red zone below it if
   that is readable too (an interrupted leaf or epilogue may have a saved
   register there: after "pop %rbp" the caller's rbp is at sp - 8).  */
static void start_probed(struct gorc_cursor *c, uint64_t sp)
{
  uint64_t lo = sp & ~(uint64_t)7, red = (sp - BELOW_SP) & ~(uint64_t)7;
  cstate(c)->flags |= F_PROBE;
  cstate(c)->lo = lo;
  cstate(c)->hi = lo;
  if (!probe(lo))
    return;
  cstate(c)->hi = (sp | 4095) + 1;
  if ((red >> 12 == lo >> 12) || probe(red))
    cstate(c)->lo = red;
}

uint64_t gorc_rt_main_lo, gorc_rt_main_hi;
unsigned long gorc_rt_main_self;
int gorc_rt_main_self_known;

extern void *__libc_stack_end;

/* Whether the main thread's stack has been noted (note_main_stack).  */
static int main_stack_noted;

/* The main thread's stack: from the page holding __libc_stack_end (the
   stack pointer at the program's start: every frame is below it) down
   by RLIMIT_STACK.  Constant work, no per-module work: the only thing
   libgorc does at load (main_stack_bounds).  A walk can come first: from
   a constructor that runs before libgorc's (libgorc.a linked after the
   object that has it), or from a signal handler meanwhile; such a walk
   notes the stack itself (gorc_rt_cursor_start), else it would read
   only the page of its sp.  Whoever notes it writes the same values, the
   low bound before the high one, which says the bounds are known: a
   walk that interrupts the noting sees both or neither.  Async-signal-
   safe: getrlimit, gettid and getpid are system calls.  */
static void note_main_stack(void)
{
  struct rlimit rl;
  uint64_t size = 8u << 20;
  if (syscall(SYS_gettid) == getpid()) {
    gorc_rt_main_self = (unsigned long)(uintptr_t)__builtin_thread_pointer();
    __atomic_store_n(&gorc_rt_main_self_known, 1, __ATOMIC_RELEASE);
  }
  if (__libc_stack_end) {
    uint64_t hi = ((uint64_t)(uintptr_t)__libc_stack_end + 4095) & ~(uint64_t)4095;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      size = rl.rlim_cur;
    __atomic_store_n(&gorc_rt_main_lo, hi > size ? hi - size : 0, __ATOMIC_RELEASE);
    __atomic_store_n(&gorc_rt_main_hi, hi, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&main_stack_noted, 1, __ATOMIC_RELEASE);
}

/* Noted again even if a walk did it first: that walk may have run on
   another thread, which cannot tell the main thread's thread pointer.  */
__attribute__((constructor)) static void main_stack_bounds(void)
{
  note_main_stack();
}

int gorc_rt_cursor_start(struct gorc_cursor *c, uint64_t ip, uint64_t sp, uint64_t bp,
                         const void *uc)
{
  if (!__atomic_load_n(&main_stack_noted, __ATOMIC_ACQUIRE))
    note_main_stack();
  memset(c->priv, 0, sizeof c->priv);
  c->ip = ip;
  c->sp = sp;
  c->bp = bp;
  /* aux is followed from an interrupted context only: that is where a
     walk can meet glibc's resolver (a call from normal code into libgorc
     does not come through it).  */
  if (uc) {
    cstate(c)->uc = (uint64_t)(uintptr_t)uc;
    cstate(c)->flags = F_REGS | F_NOADJ | F_UC_TRUSTED;
    if (GORC_STEP_HAS_AUX) {
      cstate(c)->aux = gorc_rt_uc_reg(uc, GORC_STEP_UC_AUX);
      cstate(c)->flags |= F_AUX_KNOWN;
    }
  }
  set_thread_bounds(c, sp, uc == NULL);
  if (uc && !start_trusted(c, sp))
    start_probed(c, sp);
  return 0;
}

/* Bound C's walk, started at an interrupted context, by the mapped
   stack [LO, HI) that its sp lies in or just below (the crash handler's
   view of the thread's stack, stack.h): after an overflow, sp lies in
   the guard area, where probing finds nothing, and frame #0's CFA above
   it in the stack.  No probing: every read is inside [LO, HI) or the
   altstack.  */
void gorc_rt_cursor_bound(struct gorc_cursor *c, uint64_t lo, uint64_t hi)
{
  cstate(c)->lo = lo;
  cstate(c)->hi = hi;
  cstate(c)->flags &= ~(uint64_t)(F_PROBE | F_LO_SOFT | F_THREAD);
}

int gorc_rt_stack_probe(uint64_t a)
{
  return probe(a);
}

void gorc_rt_query_altstack(struct gorc_cursor *c)
{
  query_altstack(c);
}

int gorc_rt_extend_probed(const struct gorc_cursor *c, uint64_t a)
{
  return extend_probed(c, a);
}
