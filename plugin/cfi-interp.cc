/* gorc plugin: interpret GCC's CFI notes into gorc states.  */

#include "cfi-interp.h"
#include "arch.h"

static void set_problem(struct gorc_interp *in, const char *why)
{
  if (!in->problem)
    in->problem = why;
}

/* Can a CFA or a frame pointer saved at REG + k be named in the records?
   sp is (the SP kind); REG operands cover the machine's GPRs.  */
static bool base_reg_nameable(unsigned reg)
{
  return reg == GORC_ARCH_DWARF_SP || reg <= gorc_machine_max_reg(GORC_ARCH_MACHINE);
}

void gorc_interp_reset(struct gorc_interp *in)
{
  memset(in, 0, sizeof *in);
  in->row.state = gorc_entry_state(GORC_ARCH_MACHINE);
  in->row.ra_ok = true;
}

/* The CFA after CFI, computed by GCC's own lookup_cfa_1 so that every
   operand form (offset, register, cfa_loc, location expression) is read
   the way dwarf2out reads it.  */
static void apply_cfa(struct gorc_interp *in, dw_cfi_ref cfi)
{
  struct gorc_state *s = &in->row.state;
  dw_cfa_location loc, unused_remember;
  HOST_WIDE_INT off = 0, base_off = 0;

  memset(&loc, 0, sizeof loc);
  memset(&unused_remember, 0, sizeof unused_remember);
  /* Seed LOC with the current CFA; lookup_cfa_1 updates what CFI says.  */
  switch (s->cfa_kind) {
  case GORC_CFA_SP: gorc_cfa_set_reg(&loc, GORC_ARCH_DWARF_SP); loc.offset = s->cfa_off; break;
  case GORC_CFA_BP: gorc_cfa_set_reg(&loc, GORC_ARCH_DWARF_BP); loc.offset = s->cfa_off; break;
  case GORC_CFA_REG: gorc_cfa_set_reg(&loc, s->cfa_reg); loc.offset = s->cfa_off; break;
  case GORC_CFA_DEREF:
    gorc_cfa_set_reg(&loc, s->cfa_reg);
    loc.base_offset = s->cfa_off;
    loc.offset = 0;
    loc.indirect = 1;
    break;
  default:
    gorc_cfa_set_reg(&loc, INVALID_REGNUM);
    break;
  }

  if (s->cfa_kind == GORC_CFA_UNDEFINED
      && (cfi->dw_cfi_opc == DW_CFA_def_cfa_offset
          || cfi->dw_cfi_opc == DW_CFA_def_cfa_offset_sf
          || cfi->dw_cfi_opc == DW_CFA_def_cfa_register))
    return; /* still unknown: a partial update of an unknown CFA */

  /* def_cfa sets a register rule, ending any expression; lookup_cfa_1
     leaves `indirect` alone, so clear it here.  def_cfa_offset and
     def_cfa_register only modify a register rule (DWARF 5, 6.4.2.2).  */
  if (cfi->dw_cfi_opc == DW_CFA_def_cfa || cfi->dw_cfi_opc == DW_CFA_def_cfa_sf) {
    loc.indirect = 0;
    loc.base_offset = 0;
  } else if (loc.indirect && cfi->dw_cfi_opc != DW_CFA_def_cfa_expression) {
    set_problem(in, "the CFA offset or register changes after a CFA expression");
    s->cfa_kind = GORC_CFA_UNDEFINED;
    return;
  }
  lookup_cfa_1(cfi, &loc, &unused_remember);

  if (!gorc_cfa_reg_single(&loc) || !base_reg_nameable(gorc_cfa_reg(&loc))) {
    set_problem(in, "the CFA is based on a register gorc cannot name");
    s->cfa_kind = GORC_CFA_UNDEFINED;
    return;
  }
  if (!gorc_poly_constant(loc.offset, &off)
      || !gorc_poly_constant(loc.base_offset, &base_off)) {
    set_problem(in, "the CFA offset is not a constant");
    s->cfa_kind = GORC_CFA_UNDEFINED;
    return;
  }
  if (!loc.indirect) {
    gorc_state_set_cfa_reg(s, GORC_ARCH_MACHINE, gorc_cfa_reg(&loc), off);
    return;
  }
  /* Indirect: CFA = *(reg + base_offset) + offset.  GCC's stack
     realignment (DRAP) saves the CFA itself, so the offset is 0.  */
  if (off != 0) {
    set_problem(in, "the CFA is an offset from a loaded value");
    s->cfa_kind = GORC_CFA_UNDEFINED;
    return;
  }
  s->cfa_kind = GORC_CFA_DEREF;
  s->cfa_reg = (uint8_t)gorc_cfa_reg(&loc);
  s->cfa_off = base_off;
}

/* DW_CFA_expression for the frame pointer: x86-64 stack realignment says
   "rbp is saved at the address rbp + k" with the single operation
   DW_OP_breg6 k.  */
static void apply_bp_expression(struct gorc_interp *in, dw_loc_descr_ref loc)
{
  struct gorc_state *s = &in->row.state;
  unsigned reg;
  HOST_WIDE_INT off;

  if (loc && loc->dw_loc_next == NULL && loc->dw_loc_opc >= DW_OP_breg0
      && loc->dw_loc_opc <= DW_OP_breg31) {
    reg = loc->dw_loc_opc - DW_OP_breg0;
    off = loc->dw_loc_oprnd1.v.val_int;
  } else if (loc && loc->dw_loc_next == NULL && loc->dw_loc_opc == DW_OP_bregx) {
    reg = loc->dw_loc_oprnd1.v.val_unsigned;
    off = loc->dw_loc_oprnd2.v.val_int;
  } else {
    set_problem(in, "the caller's frame pointer is described by a complex expression");
    s->bp_kind = GORC_BP_UNDEFINED;
    return;
  }
  if (reg > gorc_machine_max_reg(GORC_ARCH_MACHINE)) {
    set_problem(in, "the caller's frame pointer is saved relative to a register gorc cannot name");
    s->bp_kind = GORC_BP_UNDEFINED;
    return;
  }
  s->bp_kind = GORC_BP_REG;
  s->bp_reg = (uint8_t)reg;
  s->bp_off = off;
}

/* The return address's rule.  A machine whose return address is in a
   register at a call (aarch64) records any of "in the register", "at
   CFA + k" and "undefined"; x86-64 only "at CFA - 8", its entry rule.  */
static void apply_ra_rule(struct gorc_interp *in, dw_cfi_ref cfi)
{
  struct gorc_state *s = &in->row.state;
  struct gorc_state entry = gorc_entry_state(GORC_ARCH_MACHINE);

  switch (cfi->dw_cfi_opc) {
  case DW_CFA_offset:
  case DW_CFA_offset_extended:
  case DW_CFA_offset_extended_sf:
    s->ra_kind = GORC_RA_CFA;
    s->ra_off = cfi->dw_cfi_oprnd2.dw_cfi_offset;
    break;
  case DW_CFA_restore:
  case DW_CFA_restore_extended:
    s->ra_kind = entry.ra_kind;
    s->ra_off = entry.ra_off;
    break;
  case DW_CFA_same_value:
    s->ra_kind = GORC_RA_SAME;
    s->ra_off = 0;
    break;
  case DW_CFA_undefined:
    s->ra_kind = GORC_RA_UNDEFINED;
    s->ra_off = 0;
    break;
  default:
    /* DW_CFA_register, expressions, val_*: kept where the records have
       no words for.  */
    in->row.ra_ok = false;
    set_problem(in, "the return address is kept in a form gorc cannot express");
    return;
  }
  in->row.ra_ok = gorc_machine_ra_in_reg(GORC_ARCH_MACHINE) || gorc_ra_rule_equal(s, &entry);
  if (!in->row.ra_ok)
    set_problem(in, "the return address is not at CFA-8");
}

/* DW_CFA_GNU_window_save: on a machine that signs return addresses,
   "negate the RA state" (signed <-> not).  */
static void apply_window_save(struct gorc_interp *in)
{
  if (!GORC_ARCH_RA_SIGNING) {
    set_problem(in, "an unexpected CFA instruction");
    in->row.state.cfa_kind = GORC_CFA_UNDEFINED;
    return;
  }
  in->row.state.ra_signed = !in->row.state.ra_signed;
}

/* A register rule: only the frame pointer and the return address matter
   to gorc.  */
static void apply_reg_rule(struct gorc_interp *in, dw_cfi_ref cfi)
{
  struct gorc_state *s = &in->row.state;
  unsigned reg = cfi->dw_cfi_oprnd1.dw_cfi_reg_num;
  enum dwarf_call_frame_info op = cfi->dw_cfi_opc;

  if (reg == GORC_ARCH_DWARF_RA) {
    apply_ra_rule(in, cfi);
    return;
  }
  if (reg != GORC_ARCH_DWARF_BP)
    return;

  switch (op) {
  case DW_CFA_offset:
  case DW_CFA_offset_extended:
  case DW_CFA_offset_extended_sf:
    s->bp_kind = GORC_BP_CFA;
    s->bp_off = cfi->dw_cfi_oprnd2.dw_cfi_offset;
    break;
  case DW_CFA_restore:
  case DW_CFA_restore_extended:
  case DW_CFA_same_value:
    s->bp_kind = GORC_BP_SAME;
    s->bp_off = 0;
    break;
  case DW_CFA_expression:
    apply_bp_expression(in, cfi->dw_cfi_oprnd2.dw_cfi_loc);
    break;
  case DW_CFA_undefined:
    s->bp_kind = GORC_BP_UNDEFINED;
    break;
  default:
    /* DW_CFA_register, val_offset, val_expression: the frame pointer's
       value lives somewhere gorc's format has no words for.  */
    set_problem(in, "the caller's frame pointer is kept in a form gorc cannot express");
    s->bp_kind = GORC_BP_UNDEFINED;
    break;
  }
}

void gorc_interp_apply(struct gorc_interp *in, dw_cfi_ref cfi)
{
  switch (cfi->dw_cfi_opc) {
  case DW_CFA_def_cfa:
  case DW_CFA_def_cfa_sf:
  case DW_CFA_def_cfa_offset:
  case DW_CFA_def_cfa_offset_sf:
  case DW_CFA_def_cfa_register:
  case DW_CFA_def_cfa_expression:
    apply_cfa(in, cfi);
    break;
  case DW_CFA_offset:
  case DW_CFA_offset_extended:
  case DW_CFA_offset_extended_sf:
  case DW_CFA_restore:
  case DW_CFA_restore_extended:
  case DW_CFA_same_value:
  case DW_CFA_undefined:
  case DW_CFA_register:
  case DW_CFA_expression:
  case DW_CFA_val_offset:
  case DW_CFA_val_offset_sf:
  case DW_CFA_val_expression:
    apply_reg_rule(in, cfi);
    break;
  case DW_CFA_remember_state:
    if (in->depth == GORC_REMEMBER_DEPTH) {
      set_problem(in, "remember_state nests too deeply");
      in->row.state.cfa_kind = GORC_CFA_UNDEFINED;
      break;
    }
    in->remembered[in->depth++] = in->row;
    break;
  case DW_CFA_restore_state:
    if (in->depth == 0) {
      set_problem(in, "restore_state without remember_state");
      in->row.state.cfa_kind = GORC_CFA_UNDEFINED;
      break;
    }
    in->row = in->remembered[--in->depth];
    break;
  case DW_CFA_GNU_window_save:
    apply_window_save(in);
    break;
  case DW_CFA_GNU_args_size:
  case DW_CFA_nop:
    /* The argument area size matters to the EH personality only.  */
    break;
  default:
    set_problem(in, "an unexpected CFA instruction");
    in->row.state.cfa_kind = GORC_CFA_UNDEFINED;
    break;
  }
}

struct gorc_state gorc_interp_state(const struct gorc_interp *in)
{
  struct gorc_state s = in->row.state;
  if (!in->row.ra_ok) {
    /* The CFA undefined stops an unwinder; the RA rule the records can
       say (x86-64: none but CFA-8) keeps encoder and decoder in step.  */
    struct gorc_state entry = gorc_entry_state(GORC_ARCH_MACHINE);
    s.cfa_kind = GORC_CFA_UNDEFINED;
    s.ra_kind = entry.ra_kind;
    s.ra_off = entry.ra_off;
  }
  if (s.cfa_kind == GORC_CFA_UNDEFINED) {
    /* Nothing is known: with the frame pointer "same" this would read as
       a gap between functions, which readers treat as no records at all
       (gorc_state_is_gap).  */
    s.cfa_reg = 0;
    s.cfa_off = 0;
    s.bp_kind = GORC_BP_UNDEFINED;
  }
  if (s.bp_kind != GORC_BP_CFA && s.bp_kind != GORC_BP_REG) {
    s.bp_off = 0;
    s.bp_reg = 0;
  }
  return s;
}
