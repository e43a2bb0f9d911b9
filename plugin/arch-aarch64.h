/* gorc plugin: the aarch64 port (included through arch.h).

   What differs from x86-64 is all in the record format's machine
   (include/gorc/format.h): a call leaves the return address in x30, so
   the entry state is CFA = sp + 0, the return address in x30 and x29
   untouched; the prologue saves x30 at CFA + k (GCC's CFI says where).
   With -mbranch-protection=pac-ret (and =standard) the prologue signs x30
   (paciasp, pacibsp) and the epilogue authenticates it (autiasp, autibsp,
   retaa); GCC marks both with DW_CFA_GNU_window_save, which on aarch64
   toggles "the return address is signed" (DW_CFA_AARCH64_negate_ra_state,
   the same opcode).  The records carry that flag (ra_signed).  */

#ifndef GORC_ARCH_AARCH64_H
#define GORC_ARCH_AARCH64_H

#include "gorc/format.h"

#define GORC_ARCH_NAME "aarch64"

#define GORC_ARCH_MACHINE GORC_MACHINE_AARCH64

/* DWARF register numbers (AAPCS64 DWARF: x0..x30 = 0..30, sp = 31); the
   return-address column is x30 itself.  */
#define GORC_ARCH_DWARF_SP GORC_DWARF_A64_SP
#define GORC_ARCH_DWARF_BP GORC_DWARF_X29
#define GORC_ARCH_DWARF_RA GORC_DWARF_X30

/* DW_CFA_GNU_window_save negates the return-address signing state.  */
#define GORC_ARCH_RA_SIGNING 1

/* LP64 only: -mabi=ilp32 units get no records.  */
#define GORC_ARCH_TARGET_OK() (!TARGET_ILP32)
#define GORC_ARCH_TARGET_NOT_OK_WARNING \
  "gorc: records are made for aarch64 LP64 code only; this unit (%<-mabi=ilp32%>) gets none"

/* Static-call trampolines (static-calls.cc, docs/STATIC_CALLS.md): 16
   bytes at a 16-byte-aligned address.  The state is ONE instruction at
   offset 0, replaced with one aligned 32-bit store (B and NOP are among
   the instructions the architecture allows to be modified while another
   thread may run them); the rest never changes:
     b    target        target within +-128 MB, or NULL: the unit's
                        return-0 stub
     nop                any other target: fall into the tail,
     adrp x16, var      which jumps through the variable (it always
     ldr  x16, [x16, #:lo12:var]      holds the target; adrp reaches
     br   x16           +-4 GB, the variable is in the same module)
   A thread past offset 0 is in the tail, which is right in every state.
   x16 (IP0) is the register AAPCS64 lets a veneer clobber between a call
   and its callee, and `bti c` accepts a br through it.  The block starts
   with a 16-byte header (zeros; libgorc writes a cookie there when it
   aliases the page), then the return-0 stub (mov x0, xzr; ret), then the
   trampolines.  Gaps are padded with zero bytes: udf #0.  */
#define GORC_ARCH_SC_TRAMP_SIZE GORC_SC_TRAMP_SIZE_AARCH64
#define GORC_ARCH_SC_HEADER_ASM "\t.zero\t16\n"
#define GORC_ARCH_SC_JMP_ASM "\tb\t"
#define GORC_ARCH_SC_JMP_REL32_LOCAL_FMT "\tb\t%s\n"
#define GORC_ARCH_SC_RET0_ASM "\tmov\tx0, xzr\n\tret\n"
#define GORC_ARCH_SC_JMP_VAR_ASM_FMT "%.0s\tnop\n"
#define GORC_ARCH_SC_TRAMP_TAIL_FMT \
  "\tadrp\tx16, %s\n\tldr\tx16, [x16, #:lo12:%s]\n\tbr\tx16\n"
/* A call site is one bl (or b, a sibling call): always 4-byte aligned,
   patched with one aligned 32-bit store; nothing to align.  */
#define GORC_ARCH_SC_SITE_ALIGN ""
#define GORC_ARCH_SC_SITES_NEED_ALIGN 0
#define GORC_ARCH_TRAP_BYTE "0"

#endif
