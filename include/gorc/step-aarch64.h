/* gorc/step.h, aarch64: registers and signal-frame offsets as plain
   numbers (no libc: BPF includes them); runtime/src/aarch64/arch.h checks them.  */

#ifndef GORC_STEP_AARCH64_H
#define GORC_STEP_AARCH64_H

#include "gorc/format.h"

/* DWARF registers: sp (31) and the frame pointer x29.  No aux register:
   glibc's aarch64 resolver keeps its CFA on sp.  */
#define GORC_STEP_DWARF_SP GORC_DWARF_A64_SP
#define GORC_STEP_DWARF_FP GORC_DWARF_X29
#define GORC_STEP_HAS_AUX 0
#define GORC_STEP_DWARF_AUX GORC_DWARF_A64_SP   /* unused: no aux register */
#define GORC_STEP_DWARF_MAX_GPR GORC_DWARF_A64_MAX_GPR

/* A call leaves the return address in the link register x30; the
   prologue saves it (records: GORC_RA_SAME, then GORC_RA_CFA).  x30
   holds it only in the innermost frame and in a frame a signal
   interrupted: the step reads it from an interrupted context only.  */
#define GORC_STEP_RA_IN_REG 1
#define GORC_STEP_DWARF_LR GORC_DWARF_X30

/* The signal frame at the trampoline: struct rt_sigframe is the
   siginfo (128 bytes), then the ucontext, at the handler's sp.  */
#define GORC_STEP_SIGFRAME_UC_OFF 128

/* Byte offsets in the kernel's (and glibc's) ucontext: uc_flags,
   uc_link, uc_stack (40 bytes), the 128-byte signal mask, then the
   16-aligned mcontext at 176: fault_address, regs[31], sp, pc.  */
#define GORC_STEP_UC_REGS 184
#define GORC_STEP_UC_IP 440
#define GORC_STEP_UC_SP 432
#define GORC_STEP_UC_FP (GORC_STEP_UC_REGS + 8 * 29)
#define GORC_STEP_UC_AUX GORC_STEP_UC_SP        /* unused: no aux register */

/* The offset in a ucontext of DWARF register R (0..30): x0..x30 are
   regs[0..30].  */
static inline __attribute__((always_inline)) uint64_t gorc_step_uc_dwarf(unsigned r)
{
  return GORC_STEP_UC_REGS + 8 * (uint64_t)r;
}

#endif
