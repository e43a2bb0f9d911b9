/* libgorc: a cursor's private state, shared by the parts of the walk
   (bounds.c, step.c, walk.c, memo.c): what struct gorc_cursor's priv[]
   holds, its checked stack reads, and the step rules (gorc/step.h) over
   them.  */

#ifndef GORC_RT_CURSOR_H
#define GORC_RT_CURSOR_H

#include <stdint.h>
#include <sys/ucontext.h>
#include "gorc.h"
#include "arch.h"
#include "internal.h"

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

static inline int in_range(uint64_t a, uint64_t lo, uint64_t hi)
{
  return a >= lo && a < hi && hi - a >= 8;
}

/* Stack bounds (bounds.c): grow a probed range to A (0) or not (-1);
   can the kernel read the 8 bytes at A; the altstack's bounds into C, if
   this thread runs on it.  */
GORC_HIDDEN int gorc_rt_extend_probed(const struct gorc_cursor *c, uint64_t a);
GORC_HIDDEN int gorc_rt_stack_probe(uint64_t a);
GORC_HIDDEN void gorc_rt_query_altstack(struct gorc_cursor *c);


/* Are the 8 bytes at A inside C's stack or altstack?  A walk in probe
   mode grows its range to A's page when the kernel lets it read that far
   (the range is the cursor's own: it stays grown).  */
static inline __attribute__((always_inline)) int on_stack(const struct gorc_cursor *c, uint64_t a)
{
  return in_range(a, cstate(c)->lo, cstate(c)->hi) || in_range(a, cstate(c)->alo, cstate(c)->ahi)
         || ((cstate(c)->flags & F_PROBE) && gorc_rt_extend_probed(c, a) == 0);
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
static inline struct gorc_frame_regs cursor_regs(const struct gorc_cursor *c)
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
static inline void cursor_take(struct gorc_cursor *c, const struct gorc_frame_regs *f, uint64_t flags)
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

/* What the walk found of a frame's address for its general step: the
   address looked up, its module and its state.  */
struct gorc_rt_frame_state {
  uint64_t pc;
  int has_module;             /* m is the module of pc */
  int found;                  /* gorc_rt_module_state's result (0 without a module) */
  struct gorc_rt_module m;
  struct gorc_state st;       /* when found is 1 */
};

/* The general step of C's frame, whose address FS describes (step.c):
   a signal frame, else the step rules by its state.  1, 0 at the
   outermost frame, -enum gorc_error or -WALK_AGAIN.  */
GORC_HIDDEN int gorc_rt_step_frame(struct gorc_cursor *c, const struct gorc_rt_frame_state *fs);

/* The general step of C's frame by its state ST (step.c): 1, 0 at the
   outermost frame, -enum gorc_error or -WALK_AGAIN.  */
GORC_HIDDEN int gorc_rt_step_by_state(struct gorc_cursor *c, const struct gorc_state *st);

#endif
