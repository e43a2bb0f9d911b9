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

/* Static calls are not ported yet: with -fplugin-arg-gorc-static-calls
   the plugin refuses the attribute with an error and registers none of
   the rewrite's passes (static-calls.cc), so no trampoline is printed for
   aarch64.  The trampoline text static-calls.cc is written against is an
   assembler error, so that a path missed above could never assemble into
   a wrong program ("%.0s" consumes a label argument, printing nothing).
   Gaps are padded with zero bytes: udf #0.  */
#define GORC_ARCH_STATIC_CALLS 0
#define GORC_ARCH_SC_NOT_PORTED "\t.error\t\"gorc: static calls are not ported to aarch64\"\n"
#define GORC_ARCH_SC_HEADER_ASM GORC_ARCH_SC_NOT_PORTED
#define GORC_ARCH_SC_JMP_ASM GORC_ARCH_SC_NOT_PORTED
#define GORC_ARCH_SC_JMP_REL32_LOCAL_FMT "%.0s" GORC_ARCH_SC_NOT_PORTED
#define GORC_ARCH_SC_RET0_ASM GORC_ARCH_SC_NOT_PORTED
#define GORC_ARCH_SC_JMP_VAR_ASM_FMT "%.0s" GORC_ARCH_SC_NOT_PORTED
#define GORC_ARCH_SC_SITE_ALIGN GORC_ARCH_SC_NOT_PORTED
#define GORC_ARCH_TRAP_BYTE "0"

#endif
