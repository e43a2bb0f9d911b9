/* gorc plugin: interpret GCC's CFI notes into gorc states.

   GCC's dwarf2 pass describes every change of the unwind row with a
   NOTE_INSN_CFI note carrying one DWARF CFA instruction.  This module keeps
   the part of the row gorc records (where the CFA is, where the caller's
   frame pointer is, where the return address is and whether it is
   signed) and a remember/restore stack, and reports what it cannot
   express so the caller can warn.  */

#ifndef GORC_CFI_INTERP_H
#define GORC_CFI_INTERP_H

#include "gcc-compat.h"
#include "gorc/format.h"

#define GORC_REMEMBER_DEPTH 16

struct gorc_row {
  struct gorc_state state;
  bool ra_ok;         /* the return-address rule is one the machine's
                         records can say (false: the CFA is made
                         undefined) */
};

struct gorc_interp {
  struct gorc_row row;
  struct gorc_row remembered[GORC_REMEMBER_DEPTH];
  int depth;
  /* The first thing that could not be described, or NULL.  */
  const char *problem;
};

/* The row on function entry (and at the start of a cold partition).  */
void gorc_interp_reset(struct gorc_interp *in);

/* Apply one CFI.  On anything gorc cannot describe exactly, the affected
   part of the state becomes GORC_*_UNDEFINED and in->problem says why.  */
void gorc_interp_apply(struct gorc_interp *in, dw_cfi_ref cfi);

/* The state to record for the current row.  */
struct gorc_state gorc_interp_state(const struct gorc_interp *in);

#endif
