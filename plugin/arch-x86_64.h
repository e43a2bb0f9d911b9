/* gorc plugin: the x86-64 port (included through arch.h).  */

#ifndef GORC_ARCH_X86_64_H
#define GORC_ARCH_X86_64_H

#include "gorc/format.h"

#define GORC_ARCH_NAME "x86-64"

/* The record format's machine (the note, PUSH/POP slot, register numbers,
   the entry state: CFA = rsp + 8, the return address at CFA - 8, rbp
   untouched).  */
#define GORC_ARCH_MACHINE GORC_MACHINE_X86_64

/* DWARF register numbers (System V x86-64 psABI, figure 3.36).  */
#define GORC_ARCH_DWARF_SP GORC_DWARF_RSP
#define GORC_ARCH_DWARF_BP GORC_DWARF_RBP
#define GORC_ARCH_DWARF_RA GORC_DWARF_RA

/* No return-address signing: DW_CFA_GNU_window_save is SPARC's register
   window save here, which the records cannot express.  */
#define GORC_ARCH_RA_SIGNING 0

/* The CFA offset on entry (the thunks' tails count from it).  */
#define GORC_ARCH_ENTRY_CFA_OFFSET 8

/* The length of a return instruction.  */
#define GORC_ARCH_RET_LENGTH 1

/* The retpoline thunks GCC prints as text (thunks.cc): their names, and
   the length of the tail that runs with the call's return address still
   on the stack (cfa = sp + 16).  */
#define GORC_ARCH_THUNK_FAMILY_PREFIX "__x86_"
#define GORC_ARCH_THUNK_REG_PREFIX "__x86_indirect_thunk_"
#define GORC_ARCH_THUNK_RETURN_NAME "__x86_return_thunk"
#define GORC_ARCH_THUNK_TAIL_REG 5     /* mov %reg,(%rsp); ret */
#define GORC_ARCH_THUNK_TAIL_RETURN 6  /* lea 8(%rsp),%rsp; ret */

/* The byte that fills gaps in code: a trap (int3).  */
#define GORC_ARCH_TRAP_BYTE "0xcc"

/* True when the target being compiled for is x86-64 (not -m32/-mx32),
   and the warning for a unit that is not.  */
#define GORC_ARCH_TARGET_OK() (TARGET_64BIT && !TARGET_X32)
#define GORC_ARCH_TARGET_NOT_OK_WARNING \
  "gorc: records are made for x86-64 (LP64) code only; this unit (%<-m32%> or %<-mx32%>) gets none"

/* Static-call trampolines (static-calls.cc, docs/STATIC_CALLS.md): 8 bytes
   at an 8-byte-aligned address, so one aligned store replaces a whole
   state.  Every state is ONE instruction at offset 0 (a thread that is
   past it has left the trampoline), padded with int3 (0xcc):
     jmp rel32           e9 xx xx xx xx          target, or NULL: the
                                                 unit's return-0 stub
     jmp *var(%rip)      ff 25 xx xx xx xx       target out of rel32 range
   The unit's block starts with an 8-byte header (int3s; libgorc writes a
   cookie there when it aliases the page), then the return-0 stub
   (xor %eax,%eax; ret; never patched), then the trampolines.  */
#define GORC_ARCH_SC_HEADER_ASM "\t.quad\t0xcccccccccccccccc\n"
#define GORC_ARCH_SC_JMP_ASM "\tjmp\t"
#define GORC_ARCH_SC_JMP_REL32_LOCAL_FMT "\t.byte\t0xe9\n\t.long\t%s - . - 4\n"
#define GORC_ARCH_SC_RET0_ASM "\txorl\t%eax, %eax\n\tret\n"
#define GORC_ARCH_SC_JMP_VAR_ASM_FMT "\tjmp\t*%s(%%rip)\n"
#define GORC_ARCH_SC_TRAMP_SIZE GORC_SC_TRAMP_SIZE_X86_64
/* Nothing follows the state instruction (the two labels print nothing).  */
#define GORC_ARCH_SC_TRAMP_TAIL_FMT "%.0s%.0s"
/* Before each rewritten call or tail call (e8/e9 rel32): start it 8-byte
   aligned so that its rel32 is inside one aligned 8-byte word and libgorc
   can patch it in place with one store.  */
#define GORC_ARCH_SC_SITE_ALIGN "\t.p2align\t3"
#define GORC_ARCH_SC_SITES_NEED_ALIGN 1

#endif
