/* gorc plugin: where the caller's rbp is once the epilogue restored it,
   when GCC's CFI still says it is saved relative to a register.

   GCC's stack realignment with a DRAP register describes the saved rbp as
   "at the address rbp + k" (DW_CFA_expression, DW_OP_breg6 k).  The
   epilogue restores rbp (leave, or pop %rbp) and GCC adds no CFI for it:
   ix86_add_cfa_restore_note leaves out the restore of a register whose
   save slot stays intact (in the red zone) until the return.  That is
   right for a slot at CFA + k, but a slot at rbp + k is then read through
   the caller's rbp: wrong at every instruction from the restore to the
   return.  The records pass (records-pass.cc) passes each insn through a
   gorc_bp_watch, which sees the RTL and overrides GCC's rule there:
     - after the insn that loads rbp from the very slot the rule names,
       rbp holds the caller's value: GORC_BP_SAME;
     - after any other change of rbp, or of the register the rule is based
       on, nothing exact is known: GORC_BP_UNDEFINED, and a warning.
   The override ends where GCC's CFI says something new about rbp and
   where the code after a barrier begins (it is reached by jumps, and
   GCC's CFI describes it again).
   docs/FORMAT.md, "Where gorc's records differ from GCC's CFI".  */

#ifndef GORC_BP_RESTORE_H
#define GORC_BP_RESTORE_H

#include "gcc-compat.h"
#include "gorc/format.h"

enum gorc_bp_override {
  GORC_BP_AS_CFI,     /* GCC's rule is the truth */
  GORC_BP_RESTORED,   /* rbp holds the caller's rbp again */
  GORC_BP_LOST        /* the rule's register changed otherwise */
};

struct gorc_bp_watch {
  enum gorc_bp_override override;
  /* rsp - rbp, known from an epilogue's "rsp = rbp + c" on through its
     pushes and pops: tells which slot a pop %rbp reads.  */
  bool sp_known;
  HOST_WIDE_INT sp_minus_bp;
  /* A barrier came last: the next label or insn is reached by jumps.  */
  bool after_barrier;
  /* Why the override is GORC_BP_LOST (for the warning), or NULL.  */
  const char *problem;
};

/* At a function's or a partition's start (PROBLEM is kept: one warning
   per function).  */
void gorc_bp_watch_reset(struct gorc_bp_watch *w);

/* INSN runs, with RULE the state GCC's CFI gives just before it.  True
   when the override changed.  Labels and barriers count as insns.  */
bool gorc_bp_watch_insn(struct gorc_bp_watch *w, rtx_insn *insn, const struct gorc_state *rule);

/* GCC's CFI went from BEFORE to AFTER: a new rbp rule ends the override.  */
void gorc_bp_watch_cfi(struct gorc_bp_watch *w, const struct gorc_state *before,
                       const struct gorc_state *after);

/* The state to record: GCC's S with the override applied.  */
void gorc_bp_watch_apply(const struct gorc_bp_watch *w, struct gorc_state *s);

#endif
