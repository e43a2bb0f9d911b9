/* gorc plugin: every x86-64 detail lives here.  */

#ifndef GORC_ARCH_H
#define GORC_ARCH_H

#include "gorc/format.h"

/* DWARF register numbers (System V x86-64 psABI, figure 3.36).  */
#define GORC_ARCH_DWARF_SP GORC_DWARF_RSP
#define GORC_ARCH_DWARF_BP GORC_DWARF_RBP
#define GORC_ARCH_DWARF_RA GORC_DWARF_RA

/* On entry, after the call pushed the return address: CFA = rsp + 8, the
   return address at CFA - 8, rbp untouched.  */
#define GORC_ARCH_ENTRY_CFA_OFFSET 8
#define GORC_ARCH_RA_CFA_OFFSET (-8)

/* True when the target being compiled for is x86-64 (not -m32/-mx32).  */
#define GORC_ARCH_TARGET_OK() (TARGET_64BIT && !TARGET_X32)

/* Static-call trampolines (static-calls.cc, docs/STATIC_CALLS.md): 8 bytes
   at an 8-byte-aligned address, so one aligned store replaces a whole
   state.  The three states, each padded with int3 (0xcc) to 8 bytes:
     jmp rel32           e9 xx xx xx xx          target reachable
     xor %eax,%eax; ret  31 c0 c3                NULL target: returns 0
     jmp *var(%rip)      ff 25 xx xx xx xx       target out of rel32 range
   The unit's trampoline block starts with an 8-byte header (int3s) that
   libgorc replaces with a cookie when it aliases the page.  */
#define GORC_ARCH_SC_HEADER_ASM "\t.quad\t0xcccccccccccccccc\n"
#define GORC_ARCH_SC_JMP_ASM "\tjmp\t"
#define GORC_ARCH_SC_NULL_ASM "\txorl\t%eax, %eax\n\tret\n"
#define GORC_ARCH_SC_JMP_VAR_ASM_FMT "\tjmp\t*%s(%%rip)\n"

#endif
