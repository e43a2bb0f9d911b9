/* gorc: the step rules, defined once for every walker: libgorc's general
   step (runtime/src/step.c, over the live stack), gorc-prof's (over a
   sample's stack copy), and an in-kernel BPF walker.  One step takes a
   frame's registers (struct gorc_frame_regs) and its state (struct
   gorc_state, gorc/format.h) to its caller's registers:
     - the CFA from the state (gorc_step_cfa),
     - the return address, saved or in the link register, its pointer
       authentication code stripped where the state says it is signed
       (gorc_step_ra),
     - the saved fp, with the stale DRAP rule (gorc_bp_slot_in_frame)
       (gorc_step_fp), and the saved aux register (gorc_step_aux),
     - the outermost frame: an undefined return address, or 0;
   and the signal frame: the interrupted registers, read from the
   ucontext the kernel saved in it (gorc_step_signal_frame).

   Contract for a walker.  Before including this header, define:
     GORC_STEP_CTX                the type of the walker's memory (a
                                  pointer, passed through unchanged);
     GORC_STEP_READ(ctx, a, out)  an expression: read the 8 bytes at
                                  address A of that memory into *OUT
                                  (a uint64_t *); 0, GORC_STEP_EREAD
                                  (A is not memory of the walk: below
                                  the stack, unmapped, misaligned) or
                                  GORC_STEP_ETRUNCATED (A lies beyond the
                                  part the walker holds: a copy's end);
     GORC_STEP_STRIP_RA(ctx, ra)  the return address RA with its pointer
                                  authentication code removed (only
                                  called for a state whose ra_signed is
                                  set: aarch64's pac-ret).
   (Macros, expanded where the rules use them: a function they name may
   be declared before the header, and defined after it with the result
   names the header gives.)
   Optionally include gorc/step-x86_64.h or gorc/step-aarch64.h first to
   pick the machine whose stacks are walked (a BPF program must: its
   target is neither); otherwise the compiler's machine is used.

   Everything here is a static inline, always-inlined function with no
   loop, no function pointer, no libc and no global data, so that a BPF
   program (clang -target bpf -ffreestanding: gorc/format.h's stdint.h
   and stddef.h are then the compiler's) can follow it too.  The walker keeps what
   needs the module's bytes: looking up the state of an address
   (gorc_step_lookup_pc says which one), and recognising the signal
   trampoline (gorc/sigreturn.h); then it calls gorc_step_signal_frame
   or gorc_step_by_state.

   Results (enum gorc_step_result) and how the walkers end on them:
     GORC_STEP_NEXT         stepped: the frame holds its caller's registers;
     GORC_STEP_OUTERMOST    the outermost frame (_start, a thread's start):
                            the walk is complete;
     GORC_STEP_EREAD, GORC_STEP_EDIRECTION
                            a bad stack (a wild read, a CFA that does not
                            move up): "bad";
     GORC_STEP_ETRUNCATED   the walker's copy ends: "truncated";
     GORC_STEP_EREG, GORC_STEP_EAUX, GORC_STEP_EUNDEFINED, GORC_STEP_EBADRULE
                            a register the rule needs is not known (aux:
                            EAUX, for a walker that may have skipped it),
                            the CFA or return address has no rule the step
                            follows, a rule kind it does not know: "no
                            info".
   (libgorc maps them to enum gorc_error, gorc-prof to enum
   prof_walk_end.)  */

#ifndef GORC_STEP_H
#define GORC_STEP_H

#include "gorc/format.h"

#if !defined(GORC_STEP_CTX) || !defined(GORC_STEP_READ) || !defined(GORC_STEP_STRIP_RA)
#error "define GORC_STEP_CTX, GORC_STEP_READ and GORC_STEP_STRIP_RA before gorc/step.h"
#endif

#ifndef GORC_STEP_DWARF_SP
#if defined(__x86_64__)
#include "gorc/step-x86_64.h"
#elif defined(__aarch64__)
#include "gorc/step-aarch64.h"
#else
#error "include gorc/step-x86_64.h or gorc/step-aarch64.h before gorc/step.h"
#endif
#endif

#define GORC_STEP_INLINE static inline __attribute__((always_inline))

enum gorc_step_result {
  GORC_STEP_NEXT = 1,
  GORC_STEP_OUTERMOST = 0,
  GORC_STEP_EREAD = -1,
  GORC_STEP_ETRUNCATED = -2,
  GORC_STEP_EDIRECTION = -3,
  GORC_STEP_EREG = -4,
  GORC_STEP_EAUX = -5,
  GORC_STEP_EUNDEFINED = -6,
  GORC_STEP_EBADRULE = -7
};

/* struct gorc_frame_regs.known: which registers hold values.  */
#define GORC_FRAME_FP 1u
#define GORC_FRAME_AUX 2u
/* ip is an interrupted instruction, not a return address: its own state
   is looked up, not the call's before it.  */
#define GORC_FRAME_INTERRUPTED 4u

/* A frame's registers, as every walker keeps them.  "fp" is the frame
   pointer (rbp, x29); "aux" one more callee-saved register the walk
   follows where the machine has one (x86-64: rbx).  */
struct gorc_frame_regs {
  uint64_t ip, sp, fp, aux;
  /* The address, in the walker's memory, of a ucontext holding this
     frame's other registers (a frame a signal interrupted); 0: none.  */
  uint64_t uc;
  uint32_t known;             /* GORC_FRAME_* */
};

/* The address whose state F's step needs: ip itself in an interrupted
   frame, else the call before the return address.  */
GORC_STEP_INLINE uint64_t gorc_step_lookup_pc(const struct gorc_frame_regs *f)
{
  return (f->known & GORC_FRAME_INTERRUPTED) ? f->ip : f->ip - 1;
}

/* The value of DWARF register R in frame F into *OUT: 0 or an error.  */
GORC_STEP_INLINE int gorc_step_reg(GORC_STEP_CTX ctx, const struct gorc_frame_regs *f, unsigned r,
                                   uint64_t *out)
{
  if (r == GORC_STEP_DWARF_SP) {
    *out = f->sp;
    return 0;
  }
  if (r == GORC_STEP_DWARF_FP) {
    *out = f->fp;
    return (f->known & GORC_FRAME_FP) ? 0 : GORC_STEP_EREG;
  }
  if (GORC_STEP_HAS_AUX && r == GORC_STEP_DWARF_AUX) {
    *out = f->aux;
    return (f->known & GORC_FRAME_AUX) ? 0 : GORC_STEP_EAUX;
  }
  if (r > GORC_STEP_DWARF_MAX_GPR || !f->uc)
    return GORC_STEP_EREG;
  return GORC_STEP_READ(ctx, f->uc + gorc_step_uc_dwarf(r), out);
}

/* The CFA of frame F, whose state is ST, into *CFA: 0 or an error.  */
GORC_STEP_INLINE int gorc_step_cfa(GORC_STEP_CTX ctx, const struct gorc_frame_regs *f,
                                   const struct gorc_state *st, uint64_t *cfa)
{
  uint64_t v;
  int rc;
  switch (st->cfa_kind) {
  case GORC_CFA_SP:
    *cfa = f->sp + (uint64_t)st->cfa_off;
    return 0;
  case GORC_CFA_SP_PLT:
    /* ld's PLT rule: 8 more once the stub's push has run.  */
    *cfa = f->sp + (uint64_t)st->cfa_off + ((f->ip & 15) >= st->cfa_reg ? 8 : 0);
    return 0;
  case GORC_CFA_BP:
    if (!(f->known & GORC_FRAME_FP))
      return GORC_STEP_EREG;
    *cfa = f->fp + (uint64_t)st->cfa_off;
    return 0;
  case GORC_CFA_REG:
    if ((rc = gorc_step_reg(ctx, f, st->cfa_reg, &v)) != 0)
      return rc;
    *cfa = v + (uint64_t)st->cfa_off;
    return 0;
  case GORC_CFA_DEREF:
    if ((rc = gorc_step_reg(ctx, f, st->cfa_reg, &v)) != 0)
      return rc;
    return GORC_STEP_READ(ctx, v + (uint64_t)st->cfa_off, cfa);
  default:
    return GORC_STEP_EUNDEFINED;
  }
}

/* The return address after frame F (state ST, CFA CFA) into *RA: 0 or an
   error.  */
GORC_STEP_INLINE int gorc_step_ra(GORC_STEP_CTX ctx, const struct gorc_frame_regs *f,
                                  const struct gorc_state *st, uint64_t cfa, uint64_t *ra)
{
  int rc;
  switch (st->ra_kind) {
  case GORC_RA_CFA:
    if ((rc = GORC_STEP_READ(ctx, cfa + (uint64_t)st->ra_off, ra)) != 0)
      return rc;
    break;
  case GORC_RA_SAME:
    /* Still in the link register: known only in a frame whose registers
       an interrupted context holds.  Anywhere else the register has been
       reused by the calls made since: the walk ends, never guesses.  */
    if (gorc_step_reg(ctx, f, GORC_STEP_DWARF_LR, ra) != 0)
      return GORC_STEP_EUNDEFINED;
    break;
  default:
    return GORC_STEP_EBADRULE;
  }
  if (st->ra_signed)
    *ra = GORC_STEP_STRIP_RA(ctx, *ra);
  return 0;
}

/* The caller's fp after frame F (state ST, CFA CFA) into NEXT (which
   starts as a copy of F): 0 or an error.  */
GORC_STEP_INLINE int gorc_step_fp(GORC_STEP_CTX ctx, const struct gorc_frame_regs *f,
                                  const struct gorc_state *st, uint64_t cfa,
                                  struct gorc_frame_regs *next)
{
  uint64_t v, slot;
  int rc;
  switch (st->bp_kind) {
  case GORC_BP_SAME:
    return 0;
  case GORC_BP_CFA:
    slot = cfa + (uint64_t)st->bp_off;
    break;
  case GORC_BP_REG:
    if ((rc = gorc_step_reg(ctx, f, st->bp_reg, &v)) != 0)
      return rc;
    slot = v + (uint64_t)st->bp_off;
    /* A stale rule (GCC's, after a DRAP epilogue restored fp): fp is the
       caller's, still in the register.  */
    if (!gorc_bp_slot_in_frame(slot, f->sp, cfa))
      return 0;
    break;
  default:
    next->known &= ~GORC_FRAME_FP;
    next->fp = 0;
    return 0;
  }
  next->known |= GORC_FRAME_FP;
  return GORC_STEP_READ(ctx, slot, &next->fp);
}

/* The caller's aux after a frame with state ST and CFA CFA, into NEXT:
   unchanged, restored from its slot, or lost (gorc records do not
   describe it; a slot that cannot be read loses it too: only a CFA rule
   of glibc's resolver needs it).  */
GORC_STEP_INLINE void gorc_step_aux(GORC_STEP_CTX ctx, const struct gorc_state *st, uint64_t cfa,
                                    struct gorc_frame_regs *next)
{
  if (GORC_STEP_HAS_AUX && st->aux_kind == GORC_AUX_CFA) {
    if (GORC_STEP_READ(ctx, cfa + (uint64_t)st->aux_off, &next->aux) == 0)
      next->known |= GORC_FRAME_AUX;
    else
      next->known &= ~GORC_FRAME_AUX;
  } else if (!GORC_STEP_HAS_AUX || st->aux_kind != GORC_AUX_SAME) {
    next->known &= ~GORC_FRAME_AUX;
  }
  if (!(next->known & GORC_FRAME_AUX))
    next->aux = 0;
}

/* The step from frame F, whose state is ST, to its caller: F gets the
   caller's registers (GORC_STEP_NEXT), or stays as it was.  */
GORC_STEP_INLINE int gorc_step_by_state(GORC_STEP_CTX ctx, struct gorc_frame_regs *f,
                                        const struct gorc_state *st)
{
  struct gorc_frame_regs next = *f;
  uint64_t cfa;
  int rc;
  if (st->ra_kind == GORC_RA_UNDEFINED)
    return GORC_STEP_OUTERMOST;
  if ((rc = gorc_step_cfa(ctx, f, st, &cfa)) != 0)
    return rc;
  /* The CFA is above sp, or at sp in a frame that has not moved sp and
     keeps the return address in the link register (aarch64, a leaf),
     which only an interrupted frame can be: the walk always moves.  */
  if (cfa < f->sp || (cfa == f->sp && st->ra_kind != GORC_RA_SAME))
    return GORC_STEP_EDIRECTION;
  if ((rc = gorc_step_ra(ctx, f, st, cfa, &next.ip)) != 0)
    return rc;
  if ((rc = gorc_step_fp(ctx, f, st, cfa, &next)) != 0)
    return rc;
  gorc_step_aux(ctx, st, cfa, &next);
  if (next.ip == 0)
    return GORC_STEP_OUTERMOST;
  next.sp = cfa;
  next.uc = 0;
  next.known &= ~GORC_FRAME_INTERRUPTED;
  *f = next;
  return GORC_STEP_NEXT;
}

/* Frame F returns into the signal trampoline: the registers the signal
   interrupted, from the ucontext the kernel saved in the signal frame at
   F's sp, into *TO (an interrupted frame).  0 or an error; the walker
   checks where TO's sp lies (stack switches) before it takes it.  */
GORC_STEP_INLINE int gorc_step_signal_frame(GORC_STEP_CTX ctx, const struct gorc_frame_regs *f,
                                            struct gorc_frame_regs *to)
{
  uint64_t uc = f->sp + GORC_STEP_SIGFRAME_UC_OFF;
  int rc;
  to->aux = 0;
  if ((rc = GORC_STEP_READ(ctx, uc + GORC_STEP_UC_IP, &to->ip)) != 0
      || (rc = GORC_STEP_READ(ctx, uc + GORC_STEP_UC_SP, &to->sp)) != 0
      || (rc = GORC_STEP_READ(ctx, uc + GORC_STEP_UC_FP, &to->fp)) != 0
      || (GORC_STEP_HAS_AUX && (rc = GORC_STEP_READ(ctx, uc + GORC_STEP_UC_AUX, &to->aux)) != 0))
    return rc;
  to->uc = uc;
  to->known = GORC_FRAME_FP | (GORC_STEP_HAS_AUX ? GORC_FRAME_AUX : 0) | GORC_FRAME_INTERRUPTED;
  return 0;
}

#endif
