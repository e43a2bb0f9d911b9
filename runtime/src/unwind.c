/* libgorc: the unwind step and the backtrace walk.  Async-signal-safe: no
   allocation, no lock; every stack read is checked against the thread's
   stack bounds (and the alternate signal stack), 8-byte aligned.

   Two paths share one set of rules:
   - gorc_rt_cursor_step, the general step: any state (DRAP rules, rbx,
     signal frames, the outermost frame), one frame at a time;
   - gorc_rt_walk's inner loop, for frames whose state is a fast word
     (CFA on rsp/rbp, rbp and rbx unchanged or saved below the CFA): the
     registers stay in locals and a lookup is mostly one load.  Whatever
     the inner loop cannot decide exactly it leaves to the general step.  */

#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <unistd.h>
#include "gorc.h"
#include "internal.h"

/* struct gorc_cursor priv[] layout.  */
enum {
  P_FLAGS, P_UC, P_LO, P_HI, P_ALO, P_AHI, P_FRAMES, P_RBX
};
_Static_assert(P_RBX < sizeof ((struct gorc_cursor *)0)->priv / sizeof(unsigned long),
               "struct gorc_cursor priv[] too small");
enum {
  F_REGS = 1,       /* P_UC holds this frame's registers (interrupted frame) */
  F_NOADJ = 2,      /* look up ip itself, not ip - 1 */
  F_BP_UNKNOWN = 4, /* bp holds no valid value */
  F_ALTJUMP = 8,    /* the one jump between the altstack and the thread stack was used */
  F_UC_TRUSTED = 16,/* P_UC is the caller's ucontext: read it directly */
  F_END = 32,       /* the outermost frame was reached */
  F_LO_SOFT = 64,   /* thread stack low bound not known yet (non-main thread on the altstack) */
  F_RBX_KNOWN = 128 /* P_RBX holds this frame's rbx */
};

#define GORC_MAX_FRAMES 4096
#define REDZONE 128

/* glibc x86-64 __restore_rt: mov $15, %rax; syscall  */
static const uint8_t restore_rt[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

/* DWARF register number -> mcontext gregs index.  */
static const unsigned char dwarf_to_greg[16] = {
  REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
  REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15
};

/* Asked for by a walk that met an address in no known module; the next
   gorc_backtrace from a safe context rescans (api.c).  */
_Atomic int gorc_rt_rescan_wanted;

static int in_range(uint64_t a, uint64_t lo, uint64_t hi)
{
  return a >= lo && a < hi && hi - a >= 8;
}

/* A checked 8-byte stack read.  */
static inline __attribute__((always_inline)) int rd(const struct gorc_cursor *c, uint64_t a, uint64_t *out)
{
  if (a & 7)
    return -1;
  if (!in_range(a, c->priv[P_LO], c->priv[P_HI]) && !in_range(a, c->priv[P_ALO], c->priv[P_AHI]))
    return -1;
  *out = *(const volatile uint64_t *)(uintptr_t)a;
  return 0;
}

static int rd_greg(const struct gorc_cursor *c, unsigned greg, uint64_t *out)
{
  uint64_t a = c->priv[P_UC] + offsetof(ucontext_t, uc_mcontext.gregs) + 8 * (uint64_t)greg;
  if (c->priv[P_FLAGS] & F_UC_TRUSTED) {
    *out = *(const volatile uint64_t *)(uintptr_t)a;
    return 0;
  }
  return rd(c, a, out);
}

/* The value of DWARF register R in the current frame.  */
static int reg_value(const struct gorc_cursor *c, unsigned r, uint64_t *out)
{
  uint64_t flags = c->priv[P_FLAGS];
  if (r == GORC_DWARF_RSP) {
    *out = c->sp;
    return 0;
  }
  if (r == GORC_DWARF_RBP && !(flags & F_BP_UNKNOWN)) {
    *out = c->bp;
    return 0;
  }
  if (r == GORC_DWARF_RBX && (flags & F_RBX_KNOWN)) {
    *out = c->priv[P_RBX];
    return 0;
  }
  if (r > GORC_DWARF_MAX_GPR || r == GORC_DWARF_RBP || r == GORC_DWARF_RBX
      || !(flags & F_REGS))
    return -1;
  return rd_greg(c, dwarf_to_greg[r], out);
}

/* Copy LEN bytes at A into BUF if the kernel lets us: process_vm_readv
   fails instead of faulting (one syscall, for the rare reads that no
   bound or module covers).  */
static int read_safely(uint64_t a, void *buf, size_t len)
{
  struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)a, len };
  return syscall(SYS_process_vm_readv, (long)getpid(), &local, 1L, &remote, 1L, 0L)
         == (long)len;
}

/* Does the kernel let us read 8 bytes at A?  (For a stack bound we could
   not know in advance.)  */
static int probe(uint64_t a)
{
  uint64_t v;
  return read_safely(a, &v, sizeof v);
}

/* Are the bytes at IP glibc's __restore_rt?  Read safely: the module may
   be unloaded by another thread's dlclose at any moment.  */
static int is_restore_rt(uint64_t ip)
{
  uint8_t code[sizeof restore_rt];
  return read_safely(ip, code, sizeof code) && memcmp(code, restore_rt, sizeof code) == 0;
}

/* The altstack's bounds into P_ALO/P_AHI, if this thread runs on it.  */
static void query_altstack(struct gorc_cursor *c)
{
  stack_t ss;
  if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE) && (ss.ss_flags & SS_ONSTACK)) {
    c->priv[P_ALO] = (uint64_t)(uintptr_t)ss.ss_sp;
    c->priv[P_AHI] = (uint64_t)(uintptr_t)ss.ss_sp + ss.ss_size;
  }
}

static void set_thread_bounds(struct gorc_cursor *c, uint64_t sp)
{
  int is_main = gorc_rt_main_self_known ? (unsigned long)pthread_self() == gorc_rt_main_self
                                        : syscall(SYS_gettid) == getpid();
  /* On the main thread's own stack no older frame is on the altstack
     (a handler runs on the altstack only above the frames it
     interrupted), so the altstack need not be asked for: no system call
     in the common case.  */
  if (is_main && gorc_rt_main_hi && sp >= gorc_rt_main_lo && sp < gorc_rt_main_hi) {
    c->priv[P_LO] = gorc_rt_main_lo;
    c->priv[P_HI] = gorc_rt_main_hi;
    return;
  }
  query_altstack(c);
  int on_alt = in_range(sp, c->priv[P_ALO], c->priv[P_AHI]);
  if (is_main && gorc_rt_main_hi && on_alt) {
    c->priv[P_LO] = gorc_rt_main_lo;
    c->priv[P_HI] = gorc_rt_main_hi;
    return;
  }
  /* glibc puts a thread's TCB (the thread pointer) and static TLS at the
     top of its stack block: [sp, tp) is mapped stack.  */
  uint64_t tp = (uint64_t)pthread_self();
  if (!is_main && on_alt) {
    c->priv[P_LO] = c->priv[P_HI] = tp;
    c->priv[P_FLAGS] |= F_LO_SOFT;
    return;
  }
  uint64_t lo = (sp - REDZONE) & ~(uint64_t)7;
  if (!is_main && tp > sp && tp - sp < (1ull << 30)) {
    c->priv[P_LO] = lo;
    c->priv[P_HI] = tp;
  } else {
    /* Unknown stack (a coroutine, a foreign thread): only sp's page.  */
    c->priv[P_LO] = lo;
    c->priv[P_HI] = (sp | 4095) + 1;
  }
}

int gorc_rt_cursor_start(struct gorc_cursor *c, uint64_t ip, uint64_t sp, uint64_t bp,
                         const void *uc)
{
  memset(c->priv, 0, sizeof c->priv);
  c->ip = ip;
  c->sp = sp;
  c->bp = bp;
  /* rbx is followed from an interrupted context only: that is where a
     walk can meet glibc's resolver (a call from normal code into libgorc
     does not come through it).  */
  if (uc) {
    const ucontext_t *u = uc;
    c->priv[P_UC] = (uint64_t)(uintptr_t)uc;
    c->priv[P_RBX] = (uint64_t)u->uc_mcontext.gregs[REG_RBX];
    c->priv[P_FLAGS] = F_REGS | F_NOADJ | F_UC_TRUSTED | F_RBX_KNOWN;
  }
  set_thread_bounds(c, sp);
  return 0;
}

static int signal_frame(struct gorc_cursor *c)
{
  uint64_t uc = c->sp, ip, sp, bp, rbx;
  struct gorc_cursor t = *c;
  t.priv[P_UC] = uc;
  t.priv[P_FLAGS] &= ~(uint64_t)F_UC_TRUSTED;
  if (rd_greg(&t, REG_RIP, &ip) || rd_greg(&t, REG_RSP, &sp) || rd_greg(&t, REG_RBP, &bp)
      || rd_greg(&t, REG_RBX, &rbx))
    return -GORC_EBADFRAME;
  /* The walk started on the main thread's stack without asking for the
     altstack (set_thread_bounds); an altstack that lives inside that
     stack (a local array of main) shows only here.  */
  if (!c->priv[P_AHI])
    query_altstack(c);
  int from_alt = in_range(c->sp, c->priv[P_ALO], c->priv[P_AHI]);
  int to_alt = in_range(sp, c->priv[P_ALO], c->priv[P_AHI]);
  if (from_alt && !to_alt) {
    if (c->priv[P_FLAGS] & F_ALTJUMP)
      return -GORC_EDIRECTION;
    if (c->priv[P_FLAGS] & F_LO_SOFT) {
      /* Non-main thread: the interrupted sp now gives the low bound; the
         stack runs from there to the thread pointer.  */
      uint64_t hi = c->priv[P_HI];
      if ((sp & 7) || sp >= hi || hi - sp >= (1ull << 30) || !probe(sp))
        return -GORC_EBADFRAME;
      c->priv[P_LO] = (sp - REDZONE) & ~(uint64_t)7;
      c->priv[P_FLAGS] &= ~(uint64_t)F_LO_SOFT;
    }
    c->priv[P_FLAGS] |= F_ALTJUMP;
  } else if (sp <= c->sp) {
    return -GORC_EDIRECTION;
  }
  if (!in_range(sp, c->priv[P_LO], c->priv[P_HI]) && !in_range(sp, c->priv[P_ALO], c->priv[P_AHI]))
    return -GORC_EBADFRAME;
  c->ip = ip;
  c->sp = sp;
  c->bp = bp;
  c->priv[P_UC] = uc;
  c->priv[P_RBX] = rbx;
  c->priv[P_FLAGS] = (c->priv[P_FLAGS] & ~(uint64_t)(F_UC_TRUSTED | F_BP_UNKNOWN))
                     | F_REGS | F_NOADJ | F_RBX_KNOWN;
  c->priv[P_FRAMES]++;
  return 1;
}

__attribute__((noinline)) int gorc_rt_cursor_step(struct gorc_cursor *c)
{
  uint64_t flags = c->priv[P_FLAGS];
  uint64_t cfa, ra, bp = c->bp, rbx = c->priv[P_RBX], v;
  struct gorc_rt_view view;
  struct gorc_rt_state st;

  if (flags & F_END)
    return 0;
  if (c->priv[P_FRAMES] >= GORC_MAX_FRAMES)
    return -GORC_EDIRECTION;
  uint64_t pc = (flags & F_NOADJ) ? c->ip : c->ip - 1;
  int have_module = gorc_rt_find_view(&view, pc) == 0;
  int found = have_module && gorc_rt_decode_word(&view, gorc_rt_view_word(&view, pc), &st) == 0;
  if (!have_module)
    atomic_store_explicit(&gorc_rt_rescan_wanted, 1, memory_order_relaxed);
  /* A signal frame: the return address is glibc's __restore_rt.  Its
     .eh_frame rule is an expression (UNDEFINED here), and code without
     any rule has no entry, so only then are its bytes compared (and only
     inside the module's code).  */
  if ((!found || (st.cfa_kind == GORC_CFA_UNDEFINED && st.cfa_reg != GORC_RT_OUTERMOST_REG))
      && have_module && gorc_rt_module_has_text(view.m, c->ip, sizeof restore_rt)
      && is_restore_rt(c->ip))
    return signal_frame(c);
  if (!found)
    return -GORC_ENORECORD;
  switch (st.cfa_kind) {
  case GORC_CFA_SP:
    cfa = c->sp + (int64_t)st.cfa_off;
    break;
  case GORC_CFA_BP:
    if (flags & F_BP_UNKNOWN)
      return -GORC_EBADFRAME;
    cfa = c->bp + (int64_t)st.cfa_off;
    break;
  case GORC_CFA_REG:
    if (reg_value(c, st.cfa_reg, &v))
      return -GORC_EBADFRAME;
    cfa = v + (int64_t)st.cfa_off;
    break;
  case GORC_CFA_DEREF:
    if (reg_value(c, st.cfa_reg, &v) || rd(c, v + (int64_t)st.cfa_off, &cfa))
      return -GORC_EBADFRAME;
    break;
  case GORC_CFA_UNDEFINED:
    if (st.cfa_reg == GORC_RT_OUTERMOST_REG) {
      c->priv[P_FLAGS] |= F_END;
      return 0;
    }
    return -GORC_EUNDEFINED;
  default:
    return -GORC_ENORECORD;
  }
  if (cfa <= c->sp)
    return -GORC_EDIRECTION;
  if (rd(c, cfa - 8, &ra))
    return -GORC_EBADFRAME;
  int bp_unknown = (flags & F_BP_UNKNOWN) != 0;
  switch (st.bp_kind) {
  case GORC_BP_SAME:
    break;
  case GORC_BP_CFA:
    if (rd(c, cfa + (int64_t)st.bp_off, &bp))
      return -GORC_EBADFRAME;
    bp_unknown = 0;
    break;
  case GORC_BP_REG:
    if (reg_value(c, st.bp_reg, &v) || rd(c, v + (int64_t)st.bp_off, &bp))
      return -GORC_EBADFRAME;
    bp_unknown = 0;
    break;
  default:
    bp_unknown = 1;
    bp = 0;
    break;
  }
  /* rbx: unchanged, restored from its slot, or lost (gorc records do not
     describe it).  Only a CFA rule of glibc's resolver needs it.  */
  int rbx_known = (flags & F_RBX_KNOWN) != 0;
  if (st.rbx_kind == GORC_RT_RBX_CFA) {
    rbx_known = rd(c, cfa + (int64_t)st.rbx_off, &rbx) == 0;
  } else if (st.rbx_kind != GORC_RT_RBX_SAME) {
    rbx_known = 0;
  }
  if (ra == 0) {
    c->priv[P_FLAGS] |= F_END;
    return 0;
  }
  c->ip = ra;
  c->sp = cfa;
  c->bp = bp;
  c->priv[P_RBX] = rbx_known ? rbx : 0;
  flags &= ~(uint64_t)(F_REGS | F_NOADJ | F_UC_TRUSTED | F_BP_UNKNOWN | F_RBX_KNOWN);
  if (bp_unknown)
    flags |= F_BP_UNKNOWN;
  if (rbx_known)
    flags |= F_RBX_KNOWN;
  c->priv[P_FLAGS] = flags;
  c->priv[P_FRAMES]++;
  return 1;
}

/* The inner loop of gorc_rt_walk: steps frames whose state is a fast
   word, with the registers in locals, and stops (leaving the registers
   of the frame it stopped at in *R) at anything else.  Stores the return
   addresses at OUT up to END; returns the new OUT.

   rbx is followed as the general step does: unchanged (j = 0), restored
   from its slot (j = 1..254, then known), or lost (j = 255).

   Stack bounds: the caller guarantees that sp is 8-byte aligned and that
   [sp - REDZONE, hi) is inside the stack sp is on.  A CFA is at most hi,
   so the return address slot is inside; sp only grows, so a slot at or
   above sp - REDZONE is inside too.  For rsp-based words the rbp and rbx
   slots are at or above sp - REDZONE by construction of the word
   (modules.c); for rbp-based ones they are checked here.  */
struct walk_regs {
  uint64_t ip, sp, bp, rbx;
  int rbx_known;
};

struct walk_memo {
  uint64_t ip;     /* a return address whose state is an rsp-based fast word */
  uint64_t off;    /* its CFA offset */
  uint64_t k;      /* its rbp slot (0: rbp unchanged) */
  uint64_t j;      /* its rbx slot (0: unchanged, 255: lost) */
};

/* rbx after a frame whose word has rbx code J and CFA CFA.  */
static inline __attribute__((always_inline)) void
step_rbx(uint64_t j, uint64_t cfa, uint64_t *rbx, int *rbx_known)
{
  if (j == GORC_RT_W_RBX_LOST) {
    *rbx_known = 0;
  } else if (j) {
    *rbx = *(const volatile uint64_t *)(uintptr_t)(cfa - 8 * j);
    *rbx_known = 1;
  }
}

static void **fast_frames(struct walk_regs *r, uint64_t hi, void **out, void **const end,
                          struct gorc_rt_view *view, struct walk_memo *memo)
{
  uint64_t ip = r->ip, sp = r->sp, bp = r->bp, rbx = r->rbx;
  int rbx_known = r->rbx_known;
  struct walk_memo m = *memo;

  while (out < end) {
    uint64_t cfa, k, j, ra;
    if (ip == m.ip) {
      /* Recursion: the same return address has the same state.  A loop
         of its own, with the state in registers.  */
      do {
        cfa = sp + m.off;
        if (cfa > hi)
          goto stop;
        ra = *(const volatile uint64_t *)(uintptr_t)(cfa - 8);
        if (ra == 0)
          goto stop;            /* the outermost frame: the general step says so */
        if (m.k)
          bp = *(const volatile uint64_t *)(uintptr_t)(cfa - 8 * m.k);
        if (m.j)
          step_rbx(m.j, cfa, &rbx, &rbx_known);
        ip = ra;
        sp = cfa;
        *out++ = (void *)(uintptr_t)ra;
      } while (out < end && ip == m.ip);
      continue;
    }
    uint64_t pc = ip - 1;
    if (pc - view->lo >= view->span && gorc_rt_find_view(view, pc) != 0)
      break;
    uint32_t w = view->blocks[(pc - view->lo) >> GORC_RT_BLOCK_SHIFT];
    if (!(w & GORC_RT_W_FAST)) {
      /* A block of several states (or none): the entry scan.  */
      w = gorc_rt_view_scan(view, w, pc);
      if (!(w & GORC_RT_W_FAST))
        break;
    }
    k = w >> GORC_RT_W_BP_SHIFT;
    j = (w & GORC_RT_W_RBX_MASK) >> GORC_RT_W_RBX_SHIFT;
    if (w & GORC_RT_W_CFA_BP) {
      cfa = bp + (w & GORC_RT_W_OFF_MASK);
      if (cfa <= sp || (cfa & 7) || (k && cfa - 8 * k < sp - REDZONE)
          || (j && j != GORC_RT_W_RBX_LOST && cfa - 8 * j < sp - REDZONE))
        break;
    } else {
      /* > sp and aligned: the offset is 8..65528, a multiple of 8 */
      cfa = sp + (w & GORC_RT_W_OFF_MASK);
      m.ip = ip;
      m.off = w & GORC_RT_W_OFF_MASK;
      m.k = k;
      m.j = j;
    }
    if (cfa > hi)
      break;
    ra = *(const volatile uint64_t *)(uintptr_t)(cfa - 8);
    if (ra == 0)
      break;
    if (k)
      bp = *(const volatile uint64_t *)(uintptr_t)(cfa - 8 * k);
    if (j)
      step_rbx(j, cfa, &rbx, &rbx_known);
    ip = ra;
    sp = cfa;
    *out++ = (void *)(uintptr_t)ra;
  }
stop:
  r->ip = ip;
  r->sp = sp;
  r->bp = bp;
  r->rbx = rbx;
  r->rbx_known = rbx_known;
  *memo = m;
  return out;
}

/* The walk of gorc_backtrace*: fast frames in the inner loop; anything
   else (signal frames, DRAP rules, a lost rbp, rbx to restore, errors,
   the outermost frame, the first frame of a signal context) goes through
   gorc_rt_cursor_step, which decides it exactly as for one frame.
   Returns the step's last result (1: stopped at MAX) and stores the
   number of addresses in *COUNT.  */
int gorc_rt_walk(struct gorc_cursor *c, void **ips, int max, int *count)
{
  const uint64_t slow = F_REGS | F_NOADJ | F_BP_UNKNOWN | F_END;
  struct gorc_rt_view view;
  struct walk_memo memo = { 0, 0, 0, 0 };
  int n = 0, rc = 1;

  view.lo = 0;
  view.span = 0;
  if (max <= 0) {
    *count = 0;
    return 1;
  }
  ips[n++] = (void *)(uintptr_t)c->ip;
  while (n < max) {
    uint64_t flags = c->priv[P_FLAGS];
    uint64_t sp = c->sp, lo, hi;
    /* The stack the inner loop reads: the one sp is on.  */
    if (in_range(sp, c->priv[P_LO], c->priv[P_HI])) {
      lo = c->priv[P_LO];
      hi = c->priv[P_HI];
    } else {
      lo = c->priv[P_ALO];
      hi = c->priv[P_AHI];
    }
    if (!(flags & slow) && !(sp & 7) && sp - REDZONE >= lo && sp < hi) {
      struct walk_regs r = { c->ip, sp, c->bp, c->priv[P_RBX], (flags & F_RBX_KNOWN) != 0 };
      void **out = fast_frames(&r, hi, ips + n, ips + max, &view, &memo);
      int stepped = (int)(out - (ips + n));
      c->ip = r.ip;
      c->sp = r.sp;
      c->bp = r.bp;
      c->priv[P_RBX] = r.rbx_known ? r.rbx : 0;
      c->priv[P_FLAGS] = r.rbx_known ? flags | F_RBX_KNOWN : flags & ~(uint64_t)F_RBX_KNOWN;
      c->priv[P_FRAMES] += (unsigned)stepped;
      n += stepped;
      if (n >= max)
        break;
    }
    rc = gorc_rt_cursor_step(c);
    if (rc <= 0)
      break;
    ips[n++] = (void *)(uintptr_t)c->ip;
    memo.ip = 0;   /* the memo holds for one run of the inner loop */
  }
  *count = n;
  return rc;
}
