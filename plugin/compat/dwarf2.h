/* gorc: stand-in for GCC's include/dwarf2.h.

   gcc-12-plugin-dev ships dwarf2out.h, which includes "dwarf2.h", but not
   dwarf2.h itself.  The plugin only needs the enumeration *types* that
   dwarf2out.h names, and the few constants it interprets.  The values are
   those of the DWARF 5 standard (section 7), the same on every target.
   This is the one place that works around the missing header; the Makefile
   puts plugin/compat on the include path only when the real file is absent.

   The enums keep the standard's low/high user bounds so that their
   underlying type, and so the layout of dw_cfi_node and dw_loc_descr_node,
   match GCC's own.  */

#ifndef GORC_COMPAT_DWARF2_H
#define GORC_COMPAT_DWARF2_H

/* GCC 15's coretypes.h forward-declares enum dwarf_call_frame_info with
   int as its underlying type; the definition must say the same.  Before
   15 it has none (and GCC's own dwarf2.h none), so none here either: the
   type, and the signedness of dw_cfi_node's bit-field, stay GCC's.
   (bversion.h is included before this, by gcc-compat.h.)  */
#if BUILDING_GCC_MAJOR >= 15
#define GORC_DW_CFA_BASE : int
#else
#define GORC_DW_CFA_BASE
#endif

enum dwarf_call_frame_info GORC_DW_CFA_BASE {
  DW_CFA_advance_loc = 0x40,
  DW_CFA_offset = 0x80,
  DW_CFA_restore = 0xc0,
  DW_CFA_nop = 0x00,
  DW_CFA_set_loc = 0x01,
  DW_CFA_advance_loc1 = 0x02,
  DW_CFA_advance_loc2 = 0x03,
  DW_CFA_advance_loc4 = 0x04,
  DW_CFA_offset_extended = 0x05,
  DW_CFA_restore_extended = 0x06,
  DW_CFA_undefined = 0x07,
  DW_CFA_same_value = 0x08,
  DW_CFA_register = 0x09,
  DW_CFA_remember_state = 0x0a,
  DW_CFA_restore_state = 0x0b,
  DW_CFA_def_cfa = 0x0c,
  DW_CFA_def_cfa_register = 0x0d,
  DW_CFA_def_cfa_offset = 0x0e,
  DW_CFA_def_cfa_expression = 0x0f,
  DW_CFA_expression = 0x10,
  DW_CFA_offset_extended_sf = 0x11,
  DW_CFA_def_cfa_sf = 0x12,
  DW_CFA_def_cfa_offset_sf = 0x13,
  DW_CFA_val_offset = 0x14,
  DW_CFA_val_offset_sf = 0x15,
  DW_CFA_val_expression = 0x16,
  DW_CFA_lo_user = 0x1c,
  DW_CFA_MIPS_advance_loc8 = 0x1d,
  DW_CFA_GNU_window_save = 0x2d,
  DW_CFA_GNU_args_size = 0x2e,
  DW_CFA_GNU_negative_offset_extended = 0x2f,
  DW_CFA_hi_user = 0x3f
};

enum dwarf_location_atom {
  DW_OP_addr = 0x03,
  DW_OP_deref = 0x06,
  DW_OP_consts = 0x11,
  DW_OP_minus = 0x1c,
  DW_OP_plus = 0x22,
  DW_OP_plus_uconst = 0x23,
  DW_OP_reg0 = 0x50,
  DW_OP_reg31 = 0x6f,
  DW_OP_breg0 = 0x70,
  DW_OP_breg31 = 0x8f,
  DW_OP_regx = 0x90,
  DW_OP_bregx = 0x92,
  DW_OP_call_frame_cfa = 0x9c,
  DW_OP_lo_user = 0xe0,
  DW_OP_hi_user = 0xff
};

enum dwarf_attribute {
  DW_AT_sibling = 0x01,
  DW_AT_lo_user = 0x2000,
  DW_AT_hi_user = 0x3fff
};

enum dwarf_tag {
  DW_TAG_padding = 0x00,
  DW_TAG_lo_user = 0x4080,
  DW_TAG_hi_user = 0xffff
};

#endif
