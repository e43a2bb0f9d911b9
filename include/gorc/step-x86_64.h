/* gorc/step.h, x86-64: registers and signal-frame offsets as plain
   numbers (no libc: BPF includes them); runtime/src/x86_64/arch.h checks them.  */

#ifndef GORC_STEP_X86_64_H
#define GORC_STEP_X86_64_H

#include "gorc/format.h"

/* DWARF registers: the stack pointer, the frame pointer, and one more
   callee-saved register, rbx ("aux"), which glibc's lazy-binding
   resolver keeps its CFA in.  */
#define GORC_STEP_DWARF_SP GORC_DWARF_RSP
#define GORC_STEP_DWARF_FP GORC_DWARF_RBP
#define GORC_STEP_HAS_AUX 1
#define GORC_STEP_DWARF_AUX GORC_DWARF_RBX
#define GORC_STEP_DWARF_MAX_GPR GORC_DWARF_MAX_GPR

/* A call pushes the return address: it is at CFA - 8 in every frame,
   never in a register.  Its DWARF column, 16, is no register an
   interrupted context holds.  */
#define GORC_STEP_RA_IN_REG 0
#define GORC_STEP_DWARF_LR GORC_DWARF_RA

/* The signal frame at __restore_rt: the handler's ret popped pretcode,
   so the ucontext starts at the stack pointer (struct rt_sigframe).  */
#define GORC_STEP_SIGFRAME_UC_OFF 0

/* Byte offsets in the kernel's (and glibc's) ucontext: mcontext's
   gregs[] start at 40, in struct sigcontext's order (r8..r15, rdi, rsi,
   rbp, rbx, rdx, rax, rcx, rsp, rip).  */
#define GORC_STEP_UC_GREGS 40
#define GORC_STEP_UC_GREG(i) (GORC_STEP_UC_GREGS + 8 * (i))
#define GORC_STEP_UC_IP GORC_STEP_UC_GREG(16)
#define GORC_STEP_UC_SP GORC_STEP_UC_GREG(15)
#define GORC_STEP_UC_FP GORC_STEP_UC_GREG(10)
#define GORC_STEP_UC_AUX GORC_STEP_UC_GREG(11)

/* The offset in a ucontext of DWARF register R (0..15): r8..r15 are
   gregs[0..7]; rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp (DWARF 0..7) are
   gregs 13, 12, 14, 11, 9, 8, 10, 15, packed a nibble each (no table: a
   BPF program reads no array it did not map).  */
static inline __attribute__((always_inline)) uint64_t gorc_step_uc_dwarf(unsigned r)
{
  uint64_t greg = r >= 8 ? r - 8 : (0xfa89becdull >> (4 * r)) & 15;
  return GORC_STEP_UC_GREG(greg);
}

#endif
