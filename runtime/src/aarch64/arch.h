/* libgorc's aarch64 port (Linux, LP64): every aarch64 detail of the
   walk, in one place, under the names x86_64/arch.h gives (see
   runtime/src/arch.h).  The API's entry stubs are entry.c; static calls
   are not ported (static_call.h).  */

#ifndef GORC_RT_AARCH64_ARCH_H
#define GORC_RT_AARCH64_ARCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ucontext.h>
#include "gorc/format.h"
#include "gorc/sigreturn.h"
#include "gorc/step-aarch64.h"

/* The machine whose records this runtime reads (the gorc note's).  */
#define GORC_RT_MACHINE GORC_MACHINE_AARCH64

/* AAPCS64 has no red zone: nothing below sp survives a signal.  */
#define GORC_RT_REDZONE 0

/* The registers the walk follows (sp and fp x29; no aux register:
   glibc's aarch64 resolver keeps its CFA on sp), the return-address rule
   (in x30 until the prologue saves it) and where a signal frame keeps
   the interrupted registers: the step rules' aarch64 part,
   gorc/step-aarch64.h (GORC_STEP_* names), checked here against glibc's
   ucontext_t.  */
_Static_assert(GORC_STEP_UC_REGS == offsetof(ucontext_t, uc_mcontext.regs)
               && GORC_STEP_UC_IP == offsetof(ucontext_t, uc_mcontext.pc)
               && GORC_STEP_UC_SP == offsetof(ucontext_t, uc_mcontext.sp)
               && GORC_STEP_UC_FP == offsetof(ucontext_t, uc_mcontext.regs[29])
               && GORC_STEP_SIGFRAME_UC_OFF == sizeof(siginfo_t),
               "gorc/step-aarch64.h's ucontext offsets are glibc's");

/* User space ends at 2^48 (48-bit virtual addresses; a 52-bit kernel
   maps above it only where a program asks), and Linux maps programs at
   0xaaaa... and libraries at 0xffff...: the PC cache's keys cover all of
   it.  */
#define GORC_RT_VA_BITS 48

/* An empty PC cache entry matches the addresses of the 64 KiB below
   2^48 (lookup.h), where the stack is; nothing in the ABI forbids code
   there, so the loop does not trust an empty entry.  */
#define GORC_RT_CACHE_EMPTY_MAY_MATCH 1

/* RA with its pointer authentication code stripped
   (-mbranch-protection=pac-ret, standard: paciasp/pacibsp sign x30 with
   sp as the modifier).  xpaclri strips x30 whatever the key; it is in
   the hint space, a no-op on a CPU without pointer authentication,
   where nothing is signed either.  */
static inline uint64_t gorc_rt_strip_ra(uint64_t ra)
{
  register uint64_t lr __asm__("x30") = ra;
  __asm__("hint 7" /* xpaclri */ : "+r"(lr));
  return lr;
}

/* A signal frame's return address: the kernel's __kernel_rt_sigreturn
   in the vDSO.  Its svc, where an interrupted context may stand too.  */
#define GORC_RT_SIGRETURN_CODE GORC_SIGRETURN_AARCH64
#define GORC_RT_SIGRETURN_LEN GORC_SIGRETURN_AARCH64_LEN
#define GORC_RT_SIGRETURN_SYSCALL_OFF GORC_SIGRETURN_AARCH64_SYSCALL_OFF
/* qemu-user writes the same two instructions to a page of its own, in
   no module: the walk compares the bytes there too.  */
#define GORC_RT_SIGRETURN_OUTSIDE_MODULES 1
/* The vDSO gives the trampoline CFI (CFA = x29 through the frame
   record the kernel builds), which would skip the interrupted pc: the
   walk reads the ucontext instead.  */
#define GORC_RT_SIGRETURN_VDSO_CFI 1

/* NAME (fn, arg, top): call FN (ARG) with sp at TOP (16-byte aligned),
   and return on the caller's stack.  The caller's sp is kept in x29,
   which the CFI names as the CFA register, so a debugger unwinds from
   the other stack back to the caller.  (The crash handler prints on a
   stack of its own.)  hint 34 is bti c: a valid target for an indirect
   call where branch target identification is on, a no-op elsewhere.  */
#define GORC_RT_CALL_ON_STACK(name)                                            \
  __asm__(".text\n\t"                                                         \
          ".globl " #name "\n\t"                                              \
          ".hidden " #name "\n\t"                                             \
          ".type " #name ",%function\n\t"                                     \
          ".p2align 2\n"                                                      \
          #name ":\n\t"                                                       \
          ".cfi_startproc\n\t"                                                \
          "hint 34\n\t"                                                       \
          "stp x29, x30, [sp, #-16]!\n\t"                                     \
          ".cfi_def_cfa_offset 16\n\t"                                        \
          ".cfi_offset x29, -16\n\t"                                          \
          ".cfi_offset x30, -8\n\t"                                           \
          "mov x29, sp\n\t"                                                   \
          ".cfi_def_cfa_register x29\n\t"                                     \
          "mov sp, x2\n\t"                                                    \
          "mov x16, x0\n\t"                                                   \
          "mov x0, x1\n\t"                                                    \
          "blr x16\n\t"                                                       \
          "mov sp, x29\n\t"                                                   \
          ".cfi_def_cfa_register sp\n\t"                                      \
          "ldp x29, x30, [sp], #16\n\t"                                       \
          ".cfi_def_cfa_offset 0\n\t"                                         \
          ".cfi_restore x29\n\t"                                              \
          ".cfi_restore x30\n\t"                                              \
          "ret\n\t"                                                           \
          ".cfi_endproc\n\t"                                                  \
          ".size " #name ", .-" #name "\n\t");

#endif
