/* libgorc: the unwind state of an address from .eh_frame, read in place.

   For code without gorc records (libc, ld.so, hand-written assembly,
   anything not built with the plugin).  The FDE is found through
   .eh_frame_hdr's sorted search table (PT_GNU_EH_FRAME) by bisection, and
   its CIE's and its own call frame instructions are interpreted up to the
   address at walk time: async-signal-safe, no allocation, no lock, every
   read checked against the bounds the caller gives.  */

#ifndef GORC_RT_EHFRAME_H
#define GORC_RT_EHFRAME_H

#include <stdint.h>
#include "gorc/format.h"

/* One module's .eh_frame as the walk sees it (run-time addresses).  */
struct gorc_rt_ehframe {
  uint64_t hdr;           /* .eh_frame_hdr: the PT_GNU_EH_FRAME segment */
  uint64_t hdr_size;      /* its p_memsz */
  uint64_t lo, hi;        /* every CIE/FDE byte read lies in [lo, hi): the
                             module's loaded, readable segment(s) holding
                             .eh_frame */
};

/* The state at PC (the address looked up: a return address minus 1, or
   an interrupted instruction itself).  Returns 1 with *OUT, 0 when no FDE
   covers PC (or the module has no search table), or -GORC_ECORRUPT when
   the tables are malformed where the lookup went.

   *OUT is a gorc_state: the CFA as SP/BP/REG + off, DEREF (the DRAP form
   GCC writes for realigned frames: DW_CFA_def_cfa_expression
   DW_OP_breg<r> <off>; DW_OP_deref), SP_PLT for ld's PLT expression
   (DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit<t>;
   DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus: cfa_off 8, cfa_reg t), or
   UNDEFINED for any other rule; rbp (bp_*) SAME/CFA/REG/UNDEFINED; the
   return address CFA (at CFA + ra_off) or UNDEFINED (DW_CFA_undefined on
   the return-address column: the outermost frame); rbx (aux_*) SAME, CFA
   or UNKNOWN.  Rules gorc cannot follow (expressions other than those
   above, registers saved in other registers) give UNDEFINED for the CFA,
   UNDEFINED for rbp, UNKNOWN for rbx.  */
int gorc_rt_ehframe_state(const struct gorc_rt_ehframe *ef, uint64_t pc,
                          struct gorc_state *out);

#endif
