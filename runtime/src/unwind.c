/* libgorc: the unwind step and the backtrace walk.  Async-signal-safe: no
   allocation, no lock; every stack read is checked against the thread's
   stack bounds (and the alternate signal stack), 8-byte aligned.

   Two paths share one set of rules:
   - gorc_rt_cursor_step, the general step: any state (DRAP rules, the
     aux register, a return address in the link register, signal frames,
     the outermost frame), one frame at a time, by the step rules of
     gorc/step.h (gorc-prof's too) over this file's checked reads;
   - gorc_rt_walk's inner loop, for frames whose state is a fast word
     (CFA on sp/fp, fp and aux unchanged or saved below the CFA, the
     return address saved below it): the registers stay in locals and a
     lookup is mostly one load.  Whatever the inner loop cannot decide
     exactly it leaves to the general step.

   Machine specifics come from the port (arch.h): the signal trampoline,
   the red zone, stripping a signed return address; register numbers,
   where an interrupted context keeps its registers and the return-
   address rule are the step rules' (gorc/step-<arch>.h).  "fp" is the frame pointer (rbp, x29); "aux"
   one more callee-saved register the walk follows where the port has
   one (x86-64: rbx, for glibc's lazy-binding resolver, which keeps its
   CFA there).  */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <unistd.h>
#include "gorc.h"
#include "arch.h"
#include "internal.h"
#include "memo.h"

/* What libgorc keeps in a struct gorc_cursor's priv[]: the walk's state
   beyond ip, sp and bp (fp).  */
struct cursor_state {
  uint64_t flags;           /* F_* */
  uint64_t uc;              /* a ucontext_t: this frame's registers (F_REGS) */
  uint64_t lo, hi;          /* the stack the walk reads: [lo, hi) */
  uint64_t alo, ahi;        /* the alternate signal stack, when known */
  uint64_t frames;          /* frames stepped */
  uint64_t aux;             /* this frame's aux register (F_AUX_KNOWN) */
} __attribute__((may_alias));
_Static_assert(sizeof(struct cursor_state) <= sizeof ((struct gorc_cursor *)0)->priv,
               "struct gorc_cursor priv[] too small");

/* C's state.  A walk that reads through a const cursor may still grow
   the range it has probed (extend_probed): the state is the cursor's
   own.  */
static inline struct cursor_state *cstate(const struct gorc_cursor *c)
{
  return (struct cursor_state *)(uintptr_t)c->priv;
}

enum {
  F_REGS = 1,       /* uc holds this frame's registers (interrupted frame) */
  F_NOADJ = 2,      /* look up ip itself, not ip - 1 */
  F_BP_UNKNOWN = 4, /* bp holds no valid value */
  F_ALTJUMP = 8,    /* the one jump between the altstack and the thread stack was used */
  F_UC_TRUSTED = 16,/* uc is the caller's ucontext: read it directly */
  F_END = 32,       /* the outermost frame was reached */
  F_LO_SOFT = 64,   /* thread stack low bound not known yet (non-main thread on the altstack) */
  F_AUX_KNOWN = 128,/* aux holds this frame's aux register */
  F_THREAD = 256,   /* hi is a non-main thread's thread pointer: [lo, hi) its stack */
  F_NOT_CODE = 512, /* the step stopped at an ip that is no code of a loaded module */
  F_PROBE = 1024,   /* [lo, hi) is only what the kernel showed readable: grow it by probes */
  F_AUX_SKIPPED = 2048 /* aux is not known because the walk's inner loop, which does not
                          follow it, stepped frames that may have restored it */
};

/* What the general step returns (never through the API) when it needs
   aux that the inner loop did not follow (F_AUX_SKIPPED): the walk then
   starts again, without the inner loop up to that frame (walk_again).  */
#define WALK_AGAIN 100

#define GORC_MAX_FRAMES 4096
/* How far below a stack pointer the walk reads: the red zone, where an
   interrupted leaf may keep saved registers, and at least 128 bytes,
   which fast_loop's common branch relies on (see there).  Below the
   stack pointer of the walking code's caller lie the walking code's own
   frames, so those bytes are mapped; an interrupted context's are
   probed (start_probed).  */
#define BELOW_SP (GORC_RT_REDZONE > 128 ? GORC_RT_REDZONE : 128)

static const uint8_t sigreturn_code[GORC_RT_SIGRETURN_LEN] = GORC_RT_SIGRETURN_CODE;

static int in_range(uint64_t a, uint64_t lo, uint64_t hi)
{
  return a >= lo && a < hi && hi - a >= 8;
}

static int extend_probed(const struct gorc_cursor *c, uint64_t a);

/* Are the 8 bytes at A inside C's stack or altstack?  A walk in probe
   mode grows its range to A's page when the kernel lets it read that far
   (the range is the cursor's own: it stays grown).  */
static inline __attribute__((always_inline)) int on_stack(const struct gorc_cursor *c, uint64_t a)
{
  return in_range(a, cstate(c)->lo, cstate(c)->hi) || in_range(a, cstate(c)->alo, cstate(c)->ahi)
         || ((cstate(c)->flags & F_PROBE) && extend_probed(c, a) == 0);
}

/* A checked 8-byte stack read.  */
static inline __attribute__((always_inline)) int rd(const struct gorc_cursor *c, uint64_t a, uint64_t *out)
{
  if ((a & 7) || !on_stack(c, a))
    return -1;
  *out = *(const volatile uint64_t *)(uintptr_t)a;
  return 0;
}

/* The step rules (gorc/step.h) over the live stack: checked reads, and
   the caller's ucontext (a handler's third argument: F_UC_TRUSTED) read
   directly wherever it lies.  */
static inline __attribute__((always_inline)) int step_read(const struct gorc_cursor *c,
                                                           uint64_t a, uint64_t *out);
#define GORC_STEP_CTX const struct gorc_cursor *
#define GORC_STEP_READ(c, a, out) step_read(c, a, out)
#define GORC_STEP_STRIP_RA(c, ra) gorc_rt_strip_ra(ra)
#include "gorc/step.h"

static inline __attribute__((always_inline)) int step_read(const struct gorc_cursor *c,
                                                           uint64_t a, uint64_t *out)
{
  if ((cstate(c)->flags & F_UC_TRUSTED) && a - cstate(c)->uc <= sizeof(ucontext_t) - 8) {
    *out = *(const volatile uint64_t *)(uintptr_t)a;
    return 0;
  }
  return rd(c, a, out) ? GORC_STEP_EREAD : 0;
}

/* C's frame as the step rules take it.  */
static struct gorc_frame_regs cursor_regs(const struct gorc_cursor *c)
{
  uint64_t flags = cstate(c)->flags;
  struct gorc_frame_regs f = { c->ip, c->sp, c->bp, cstate(c)->aux,
                               (flags & F_REGS) ? cstate(c)->uc : 0, 0 };
  f.known = ((flags & F_BP_UNKNOWN) ? 0 : GORC_FRAME_FP)
            | ((flags & F_AUX_KNOWN) ? GORC_FRAME_AUX : 0)
            | ((flags & F_NOADJ) ? GORC_FRAME_INTERRUPTED : 0);
  return f;
}

/* C takes frame F, its flags FLAGS with those of F's registers replaced,
   one frame further.  */
static void cursor_take(struct gorc_cursor *c, const struct gorc_frame_regs *f, uint64_t flags)
{
  flags &= ~(uint64_t)(F_REGS | F_NOADJ | F_UC_TRUSTED | F_BP_UNKNOWN | F_AUX_KNOWN);
  if (f->uc)
    flags |= F_REGS;
  if (f->known & GORC_FRAME_INTERRUPTED)
    flags |= F_NOADJ;
  if (!(f->known & GORC_FRAME_FP))
    flags |= F_BP_UNKNOWN;
  if (f->known & GORC_FRAME_AUX)
    flags |= F_AUX_KNOWN;
  c->ip = f->ip;
  c->sp = f->sp;
  c->bp = f->fp;
  cstate(c)->uc = f->uc;
  cstate(c)->aux = f->aux;
  cstate(c)->flags = flags;
  cstate(c)->frames++;
}

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

/* Copy LEN (at most 4096) bytes at A into BUF, where process_vm_readv
   is missing (qemu-user answers ENOSYS): when both ends' pages are
   readable (probe).  */
static int read_probed(uint64_t a, void *buf, size_t len)
{
  if (!probe(a & ~(uint64_t)7) || !probe((a + len - 1) & ~(uint64_t)7))
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
     altstack (set_thread_bounds); an altstack that lives inside that
     stack (a local array of main) shows only here.  */
  if (!cstate(c)->ahi)
    query_altstack(c);
  int from_alt = in_range(c->sp, cstate(c)->alo, cstate(c)->ahi);
  int to_alt = in_range(sp, cstate(c)->alo, cstate(c)->ahi);
  if (from_alt && !to_alt) {
    if (cstate(c)->flags & F_ALTJUMP)
      return -GORC_EDIRECTION;
    if (cstate(c)->flags & F_LO_SOFT) {
      /* Non-main thread: the interrupted sp now gives the low bound; the
         stack runs from there to the thread pointer.  */
      uint64_t hi = cstate(c)->hi;
      if ((sp & 7) || sp >= hi || hi - sp >= (1ull << 30) || !probe(sp))
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
      if ((sp & 7) || cstate(c)->hi - sp >= (1ull << 30) || !probe(sp))
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

static int step_by_state(struct gorc_cursor *c, const struct gorc_state *st);

__attribute__((noinline)) int gorc_rt_cursor_step(struct gorc_cursor *c)
{
  uint64_t flags = cstate(c)->flags;
  struct gorc_rt_module m;
  struct gorc_state st;
  int has_module;

  if (flags & F_END)
    return 0;
  if (cstate(c)->frames >= GORC_MAX_FRAMES)
    return -GORC_EDIRECTION;
  uint64_t pc = (flags & F_NOADJ) ? c->ip : c->ip - 1;
  int found = gorc_rt_state(pc, &st, &m, &has_module);
  if (found == 1)
    gorc_rt_cache_keep(&m, pc, &st);
  /* A return address must be code of a loaded module: anything else is
     a corrupt stack (or record), not a frame.  */
  if (!(flags & F_NOADJ) && (!has_module || !gorc_rt_module_has_code(&m, pc, 1))) {
    if (!has_module && is_sigreturn(NULL, c->ip, 0))
      return signal_frame(c);
    cstate(c)->flags |= F_NOT_CODE;
    return -GORC_EBADFRAME;
  }
  /* A signal frame: the return address is the signal trampoline (or an
     interrupted context stands in it).  glibc's .eh_frame rule for it is
     an expression (UNDEFINED here), and code without any rule has none,
     so only then are its bytes compared (and only inside the module's
     code), and in a vDSO whose trampoline has CFI of its own.  */
  if ((found != 1 || st.cfa_kind == GORC_CFA_UNDEFINED || (has_module && vdso_with_sigreturn(&m)))
      && is_sigreturn(has_module ? &m : NULL, c->ip, (flags & F_NOADJ) != 0))
    return signal_frame(c);
  if (found < 0)
    return found;
  if (found == 0)
    return -GORC_ENORECORD;
  return step_by_state(c, &st);
}

/* The general step of C's frame, whose state is ST (gorc/step.h).  */
static int step_by_state(struct gorc_cursor *c, const struct gorc_state *st)
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

/* ---- gorc_rt_walk: the walk of gorc_backtrace* ---- */

/* The inner loop of gorc_rt_walk: steps frames whose state is a fast
   word (lookup.h), with the registers in locals, and stops (leaving the
   registers of the frame it stopped at in *R) at anything else.  Stores
   the return addresses at R->out up to R->end.  A hot return address in
   the module of the frame before costs one PC-cache load and compare;
   one in another module this walk has checked, a second compare; the
   rest go through gorc_rt_word (word_of_other), which checks the module
   and fills the cache.  The outermost frame is a fast word too
   (GORC_RT_W_END), so a walk to _start or a thread's start ends in the
   loop.

   The loop does not follow aux (x86-64's rbx): only a CFA rule of
   glibc's lazy-binding resolver needs it, and following it cost every
   frame that saves rbx (most frames) a third of its instructions.  A
   walk whose general step meets such a rule after the loop stepped
   frames walks again, with the general step alone up to that frame
   (WALK_AGAIN, walk_again).

   Stack bounds: the caller guarantees that sp is 8-byte aligned and that
   [lo, hi) is inside the stack sp is on, with lo <= sp - BELOW_SP.  A CFA
   is at most hi, so the return address slot is inside; fp and return
   address slots are at most 8 * 31 bytes below a CFA, and checked
   against lo unless they are close enough to the CFA to be above sp
   (fast_loop).  */

/* fast_loop's common branch reads slots less than 16 words below a CFA
   without checking them against lo: they are above the walk's first sp,
   at least BELOW_SP above lo.  */
_Static_assert(((GORC_RT_W_BP_FAR >> GORC_RT_W_BP_SHIFT) & GORC_RT_W_SLOT8_MASK) == 16 * 8
               && ((GORC_RT_W_J_FAR >> GORC_RT_W_J_SHIFT) & GORC_RT_W_SLOT8_MASK) == 16 * 8
               && 16 * 8 <= BELOW_SP,
               "a slot nearer the CFA than a far one lies above the walk's first sp");
struct walk_regs {
  uint64_t ip, sp, bp;
  uint64_t lo, hi;
  void **out, **end;
};

/* Why the inner loop stopped.  */
enum fast_stop {
  FAST_MAX,        /* the output is full */
  FAST_END,        /* the outermost frame was reached: the walk is complete */
  FAST_SLOW        /* a frame the general step must take */
};

/* fp, read when needed: the loop notes where the last frame that saved
   fp put it, and reads that slot only for a CFA on fp and at its end
   (most frames that save fp, as a callee-saved register, are followed by
   frames that never use it).  The slot was checked when its frame was
   stepped, and the stack above the walker does not change meanwhile.  */
struct lazy_fp {
  uint64_t value;   /* fp, unless a slot is pending */
  uint64_t cfa;     /* the CFA of the frame that saved fp ... */
  uint32_t w;       /* ... and its word; 0: no slot pending */
};

static inline __attribute__((always_inline)) void fp_saved(struct lazy_fp *fp, uint32_t w,
                                                          uint64_t cfa)
{
  if (w & GORC_RT_W_BP_MASK) {
    fp->cfa = cfa;
    fp->w = w;
  }
}

static inline __attribute__((always_inline)) uint64_t fp_value(struct lazy_fp *fp)
{
  if (fp->w) {
    fp->value = GORC_RT_LOAD_STACK(fp->cfa - gorc_rt_w_bp8(fp->w));
    fp->w = 0;
  }
  return fp->value;
}

/* The registers of the inner loop, in locals (the stores of return
   addresses could alias anything reached through a pointer).  */
struct loop_regs {
  uint64_t ip, sp;
  struct lazy_fp fp;
  void **out;
};

/* A run of one return address (recursion): the frame just stepped
   returned into itself, L->ip, so the frames after it have its
   sp-based word W too, until a return address differs.  Every frame of
   the run saved fp (if at all) at the same place below its CFA, so only
   the last frame's slot matters: the loop itself only follows the CFA.
   The slots need no check: the frame before passed the checks of
   fast_loop on this stack, and the run's CFAs are higher.  Returns
   FAST_MAX when the walk can go on in the inner loop.  */
static inline __attribute__((always_inline)) enum fast_stop
run_frames(struct loop_regs *l, uint32_t w, uint64_t hi, void **end)
{
  uint64_t off = gorc_rt_w_off(w), sp = l->sp, run_sp = sp, cfa, ra;
  void **out = l->out;
  enum fast_stop stop = FAST_MAX;
  while (out < end) {
    cfa = sp + off;
    if (cfa > hi) {
      stop = FAST_SLOW;
      break;
    }
    ra = GORC_RT_LOAD_STACK(cfa - gorc_rt_w_ra8(w));
    if (w & GORC_RT_W_RA_SIGNED)
      ra = gorc_rt_strip_ra(ra);
    if (ra == 0) {
      stop = FAST_END;
      break;
    }
    sp = cfa;
    *out++ = (void *)(uintptr_t)ra;
    if (ra != l->ip) {
      /* The run's last frame.  */
      l->ip = ra;
      break;
    }
  }
  if (sp != run_sp)
    fp_saved(&l->fp, w, sp);
  l->sp = sp;
  l->out = out;
  return stop;
}

/* The slow half of the inner loop's lookup of return address RA, whose
   cache entry is of no module this walk checked: gorc_rt_word; 0 for the
   outermost frame's return address 0.  Out of line, so that the loop
   keeps its registers.  */
static __attribute__((noinline)) uint32_t word_of_other(struct gorc_rt_walk_modules *wm,
                                                         uint64_t ra, unsigned *slot)
{
  return ra ? gorc_rt_word(wm, ra, slot) : 0;
}

/* The inner loop (see above).  The common frame (CFA = sp + off) costs
   a load of its cache entry, one compare of the entry's key, one test of
   its word, the CFA's bound, the load of the return address and, when
   the frame saved fp, a note of where.  */
static inline __attribute__((always_inline)) enum fast_stop
fast_loop(struct walk_regs *r, struct gorc_rt_walk_modules *wm, unsigned *slot,
          struct gorc_rt_memo_use *mu)
{
  uint64_t ip = r->ip, sp = r->sp;
  struct lazy_fp fp = { r->bp, 0, 0 };
  void **out = r->out, **const end = r->end;
  const uint64_t hi = r->hi, lo = r->lo;
  /* Words the loop leaves to the careful branch: fp-based CFA, the
     outermost frame, and fp or return address slots 128 bytes or more
     below the CFA.  For the others a CFA at most hi needs no other
     check: the return address is below hi, and since sp >= lo +
     BELOW_SP (the caller's promise, kept as sp only grows) and the CFA >
     sp, a slot less than 128 bytes below the CFA is at or above lo.  */
  const uint32_t careful_bits = GORC_RT_W_CFA_BP | GORC_RT_W_END | GORC_RT_W_BP_FAR
                                | GORC_RT_W_J_FAR;
  unsigned module_slot = *slot;
  uint64_t slot_key = gorc_rt_cache_slot_key(module_slot);
  enum fast_stop stop = FAST_MAX;
  /* The memo (memo.h) is looked at once sp reaches watch; took_all: it
     took the walk to its end, and writing the walk as the memo would
     change nothing.  */
  uint64_t watch = gorc_rt_memo_watch(mu);
  int took_all = 0;

  while (out < end) {
    if (__builtin_expect(sp >= watch, 0)) {
      struct gorc_rt_memo_exit x;
      long got = gorc_rt_memo_take(mu, ip, sp, fp_value(&fp), lo, hi, out, end,
                                   (unsigned)(out - r->out), &watch, &x);
      if (got >= 0) {
        out += got;
        if (x.how != GORC_RT_MEMO_GO_ON) {
          took_all = x.same;
          stop = x.how == GORC_RT_MEMO_AT_END ? FAST_END : FAST_MAX;
          break;
        }
        ip = x.ip;
        sp = x.sp;
        fp = (struct lazy_fp){ x.fp, 0, 0 };
        continue;
      }
    }
    uint64_t e = gorc_rt_cache_entry(ip), cfa, ra;
    uint32_t w = (uint32_t)e;   /* the word's fields ignore the key's bits above it */
    if (__builtin_expect((e >> GORC_RT_CACHE_KEY_SHIFT) != gorc_rt_cache_key_of(slot_key, ip),
                         0)) {
      /* Another module: one this walk checked, or the long way.  */
      unsigned other = gorc_rt_cache_slot(e, ip);
      if (gorc_rt_cache_tag_matches(e, ip) && gorc_rt_walk_checked(wm, other))
        w = (uint32_t)e;
      else if (!(w = word_of_other(wm, ip, &other))) {
        stop = FAST_SLOW;
        break;
      }
      module_slot = other;
      slot_key = gorc_rt_cache_slot_key(module_slot);
    } else if (GORC_RT_CACHE_EMPTY_MAY_MATCH && __builtin_expect(e == 0, 0)) {
      /* An empty entry's key matched: PC lies just below 2^VA_BITS
         (lookup.h), where this machine may have code.  */
      stop = FAST_SLOW;
      break;
    }
    if (__builtin_expect(!(w & careful_bits), 1)) {
      /* > sp and aligned: the offset is 8..16376, a multiple of 8 */
      cfa = sp + gorc_rt_w_off(w);
      if (__builtin_expect(cfa > hi, 0)) {
        stop = FAST_SLOW;
        break;
      }
    } else {
      if (w & GORC_RT_W_END) {
        stop = FAST_END;
        break;
      }
      cfa = (w & GORC_RT_W_CFA_BP ? fp_value(&fp) : sp) + gorc_rt_w_off(w);
      if (!gorc_rt_w_frame_ok(w, cfa, sp, lo, hi)) {
        stop = FAST_SLOW;
        break;
      }
    }
    /* A return address of 0 (the outermost frame) is stored and found
       at the next lookup, in word_of_other: one test less per frame.  */
    ra = GORC_RT_LOAD_STACK(cfa - gorc_rt_w_ra8(w));
    if (w & GORC_RT_W_RA_SIGNED)
      ra = gorc_rt_strip_ra(ra);
    fp_saved(&fp, w, cfa);
    int recursion = ra == ip && !(w & GORC_RT_W_CFA_BP);
    ip = ra;
    sp = cfa;
    *out++ = (void *)(uintptr_t)ra;
    if (__builtin_expect(recursion, 0)) {
      struct loop_regs l = { ip, sp, fp, out };
      stop = run_frames(&l, w, hi, end);
      ip = l.ip, sp = l.sp, fp = l.fp, out = l.out;
      if (stop != FAST_MAX)
        break;
    }
  }
  if (ip == 0) {
    /* The outermost frame's 0, stored: not an address.  */
    out--;
    stop = FAST_END;
  }
  if (mu->memo && stop != FAST_SLOW && !took_all) {
    struct gorc_rt_memo_run run = { r->ip, r->sp, r->bp, r->out, (unsigned)(out - r->out),
                                    stop == FAST_END, lo, hi, wm };
    gorc_rt_memo_record(mu, &run);
  }
  r->ip = ip;
  r->sp = sp;
  r->bp = fp_value(&fp);
  r->out = out;
  *slot = module_slot;
  return stop;
}

/* The flags of a cursor after the inner loop stepped frames: aux is not
   known, and only because the loop did not follow it.  */
static uint64_t aux_skipped(uint64_t flags)
{
  if (!GORC_STEP_HAS_AUX)
    return flags;
  return (flags & ~(uint64_t)F_AUX_KNOWN) | F_AUX_SKIPPED;
}

/* A walk that stopped at MAX stored its last return address RA without
   looking it up.  Is RA code?  Asked as the next step would: its state
   (into the PC cache, so that the next walk from here finds it there),
   else the module's executable segments.  */
static int last_is_code(struct gorc_rt_walk_modules *wm, unsigned slot, uint64_t ra)
{
  struct gorc_rt_module m;
  return gorc_rt_cache_word_of(slot, ra) != 0 || gorc_rt_word(wm, ra, &slot) != 0
         || (gorc_rt_module_find(ra - 1, &m) == 0 && gorc_rt_module_has_code(&m, ra - 1, 1));
}

/* The general step of an interrupted frame (its ip looked up itself),
   with its state from the PC cache when a fast word is there (the entry
   of ip + 1 holds the state of ip: lookup.h): every sample a profiler
   takes starts with such a frame, mostly at an instruction sampled
   before.  A word says nothing of aux, so the frames after it are
   stepped as after the inner loop (F_AUX_SKIPPED: a rule that needs aux
   makes the walk start again without words).  On a machine whose vDSO
   describes its signal trampoline (aarch64), the general step alone:
   it tells the trampoline apart by its module.  */
static int interrupted_step(struct gorc_cursor *c, struct gorc_rt_walk_modules *wm)
{
  struct gorc_state st;
  unsigned slot;
  uint32_t w = GORC_RT_SIGRETURN_VDSO_CFI ? 0 : gorc_rt_word_cached(wm, c->ip + 1, &slot);
  if (!w || (cstate(c)->frames >= GORC_MAX_FRAMES))
    return gorc_rt_cursor_step(c);
  gorc_rt_word_state(w, &st);
  int rc = step_by_state(c, &st);
  if (rc > 0)
    cstate(c)->flags = aux_skipped(cstate(c)->flags);
  return rc;
}

/* How walk_on takes frames: the inner loop first, or one general step
   first (the loop just stopped here); and the general step alone (no
   inner loop, no cached state of an interrupted frame) for the frames
   before the walk's frame STEPS_UNTIL, when the walk starts again after
   WALK_AGAIN up to the frame that needed aux.  */
struct walk_mode {
  int loop_first;
  unsigned steps_until;
};

/* Go on walking C, whose ip is ips[N - 1], up to MAX addresses: fast
   frames in the inner loop; anything else (signal frames, DRAP rules, a
   lost fp, errors, the first frame of a signal context) through
   gorc_rt_cursor_step, which decides it exactly as for one frame (an
   interrupted frame through interrupted_step, with a cached state where
   there is one).
   Returns the step's last result (1: stopped at MAX, 0: the outermost
   frame, -enum gorc_error or -WALK_AGAIN) and stores the number of
   addresses in *COUNT.  A return address that is no code (the step says
   so, or the walk stopped at MAX right after it) is not kept.  */
static int walk_on(struct gorc_cursor *c, void **ips, int n, int max, struct walk_mode mode,
                   struct gorc_rt_walk_modules *wm, unsigned *slot,
                   struct gorc_rt_memo_use *mu, int *count)
{
  const uint64_t slow = F_REGS | F_NOADJ | F_BP_UNKNOWN | F_END;
  int loop_next = mode.loop_first;
  int rc = 1;
  while (n < max) {
    uint64_t flags = cstate(c)->flags;
    uint64_t sp = c->sp, lo, hi;
    int words = cstate(c)->frames >= mode.steps_until;
    /* The stack the inner loop reads: the one sp is on.  */
    if (in_range(sp, cstate(c)->lo, cstate(c)->hi)) {
      lo = cstate(c)->lo;
      hi = cstate(c)->hi;
    } else {
      lo = cstate(c)->alo;
      hi = cstate(c)->ahi;
    }
    if (loop_next && words && !(flags & slow) && !(sp & 7) && sp - BELOW_SP >= lo && sp < hi) {
      struct walk_regs r = { c->ip, sp, c->bp, lo, hi, ips + n, ips + max };
      enum fast_stop stop = fast_loop(&r, wm, slot, mu);
      int stepped = (int)(r.out - (ips + n));
      c->ip = r.ip;
      c->sp = r.sp;
      c->bp = r.bp;
      if (stepped)
        flags = aux_skipped(flags);
      cstate(c)->flags = stop == FAST_END ? flags | F_END : flags;
      cstate(c)->frames += (unsigned)stepped;
      n += stepped;
      if (stop == FAST_END) {
        rc = 0;
        break;
      }
      if (n >= max)
        break;
    }
    loop_next = 1;
    if (words && (cstate(c)->flags & (F_NOADJ | F_END)) == F_NOADJ)
      rc = interrupted_step(c, wm);
    else
      rc = gorc_rt_cursor_step(c);
    if (rc <= 0) {
      if (rc == -GORC_EBADFRAME && n > 1 && (cstate(c)->flags & F_NOT_CODE))
        n--;
      break;
    }
    ips[n++] = (void *)(uintptr_t)c->ip;
  }
  if (rc == 1 && n > 1 && !(cstate(c)->flags & F_NOADJ)
      && !last_is_code(wm, *slot, (uint64_t)(uintptr_t)ips[n - 1])) {
    n--;
    rc = -GORC_EBADFRAME;
  }
  *count = n;
  return rc;
}

/* The walk from START again after walk_on returned -WALK_AGAIN, leaving
   C at the frame that needed aux: with the general step alone up to that
   frame, then as before; again while a later frame needs aux (each time
   further: the frames before are stepped exactly).  */
static int walk_again(struct gorc_cursor *c, const struct gorc_cursor *start, void **ips,
                      int max, struct gorc_rt_walk_modules *wm, unsigned *slot,
                      struct gorc_rt_memo_use *mu, int *count)
{
  struct walk_mode mode = { 1, 0 };
  int rc = -WALK_AGAIN;
  while (rc == -WALK_AGAIN) {
    unsigned again_at = cstate(c)->frames;
    mode.steps_until = again_at >= mode.steps_until ? again_at + 1 : UINT32_MAX;
    *c = *start;
    rc = walk_on(c, ips, 1, max, mode, wm, slot, mu, count);
  }
  return rc;
}

int gorc_rt_walk(struct gorc_cursor *c, void **ips, int max, int *count)
{
  struct gorc_rt_walk_modules wm;
  struct gorc_rt_memo_use mu;
  if (max <= 0) {
    *count = 0;
    return 1;
  }
  struct gorc_cursor start = *c;
  unsigned slot = gorc_rt_walk_modules_init(&wm);
  gorc_rt_memo_begin(&mu);
  ips[0] = (void *)(uintptr_t)c->ip;
  int rc = walk_on(c, ips, 1, max, (struct walk_mode){ 1, 0 }, &wm, &slot, &mu, count);
  if (rc == -WALK_AGAIN)
    rc = walk_again(c, &start, ips, max, &wm, &slot, &mu, count);
  return rc;
}

/* gorc_backtrace's walk, from its caller's registers.  The common case,
   the main thread on its own stack, goes straight into the inner loop;
   the cursor is set up only for what the inner loop leaves.  */
int gorc_rt_backtrace_walk(uint64_t ip, uint64_t sp, uint64_t bp, void **ips, int max,
                           int *count)
{
  struct gorc_cursor c;
  struct gorc_rt_walk_modules wm;
  struct gorc_rt_memo_use mu;
  uint64_t lo = (sp - BELOW_SP) & ~(uint64_t)7, hi = gorc_rt_main_hi;
  if (max <= 1 || !gorc_rt_main_self_known
      || (uint64_t)(uintptr_t)__builtin_thread_pointer() != gorc_rt_main_self
      || (sp & 7) || sp < gorc_rt_main_lo || sp >= hi) {
    gorc_rt_cursor_start(&c, ip, sp, bp, NULL);
    return gorc_rt_walk(&c, ips, max, count);
  }
  unsigned slot = gorc_rt_walk_modules_init(&wm);
  gorc_rt_memo_begin(&mu);
  ips[0] = (void *)(uintptr_t)ip;
  struct walk_regs r = { ip, sp, bp, lo, hi, ips + 1, ips + max };
  enum fast_stop stop = fast_loop(&r, &wm, &slot, &mu);
  int n = (int)(r.out - ips);
  if (stop == FAST_END) {
    *count = n;
    return 0;
  }
  if (stop == FAST_MAX) {
    if (!last_is_code(&wm, slot, (uint64_t)(uintptr_t)ips[n - 1])) {
      *count = n - 1;
      return -GORC_EBADFRAME;
    }
    *count = n;
    return 1;
  }
  /* What the inner loop left: through the cursor, from the general step
     on.  */
  gorc_rt_cursor_start(&c, r.ip, r.sp, r.bp, NULL);
  if (n > 1)
    cstate(&c)->flags = aux_skipped(cstate(&c)->flags);
  cstate(&c)->frames = (unsigned)(n - 1);
  int rc = walk_on(&c, ips, n, max, (struct walk_mode){ 0, 0 }, &wm, &slot, &mu, count);
  if (rc == -WALK_AGAIN) {
    struct gorc_cursor start;
    gorc_rt_cursor_start(&start, ip, sp, bp, NULL);
    rc = walk_again(&c, &start, ips, max, &wm, &slot, &mu, count);
  }
  return rc;
}
