/* libgorc's x86-64 port: every x86-64 detail of the walk, in one place:
   the record format's machine, register numbering, where an interrupted
   context keeps its registers, the signal frame, the red zone, the
   return-address rule and the crash handler's stack switch.  (The API's
   entry stubs are entry.c, the static-call instructions static_call.h,
   in this folder.)  runtime/src/arch.h picks the port; aarch64/arch.h
   gives the same names.  */

#ifndef GORC_RT_X86_64_ARCH_H
#define GORC_RT_X86_64_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ucontext.h>
#include "gorc/format.h"
#include "gorc/sigreturn.h"
#include "gorc/step-x86_64.h"

/* The machine whose records this runtime reads (the gorc note's).  */
#define GORC_RT_MACHINE GORC_MACHINE_X86_64

/* Below the stack pointer, leaf functions may keep data (psABI 3.2.2).  */
#define GORC_RT_REDZONE 128

/* The registers the walk follows (sp, fp, and rbx as "aux"), the
   return-address rule (always at CFA - 8) and where a signal frame keeps
   the interrupted registers: the step rules' x86-64 part,
   gorc/step-x86_64.h (GORC_STEP_* names), checked here against glibc's
   ucontext_t (glibc names the registers under _GNU_SOURCE only).  */
#ifdef REG_RIP
_Static_assert(GORC_STEP_UC_GREGS == offsetof(ucontext_t, uc_mcontext.gregs)
               && GORC_STEP_UC_IP == GORC_STEP_UC_GREG(REG_RIP)
               && GORC_STEP_UC_SP == GORC_STEP_UC_GREG(REG_RSP)
               && GORC_STEP_UC_FP == GORC_STEP_UC_GREG(REG_RBP)
               && GORC_STEP_UC_AUX == GORC_STEP_UC_GREG(REG_RBX),
               "gorc/step-x86_64.h's ucontext offsets are glibc's");
#endif

/* User space ends at 2^47 (4-level paging; 5-level paging maps above
   it only where a program asks): the PC cache's keys cover it.  */
#define GORC_RT_VA_BITS 47

/* No code lies in the 32 KiB below 2^47, whose addresses an empty PC
   cache entry matches (lookup.h): the stack is there, below the
   unmapped top page.  */
#define GORC_RT_CACHE_EMPTY_MAY_MATCH 0

/* The return address as code may use it: x86-64 does not sign them.  */
static inline uint64_t gorc_rt_strip_ra(uint64_t ra)
{
  return ra;
}

/* A signal frame's return address: glibc's __restore_rt.  Its other
   instruction, the syscall, where an interrupted context may stand too
   (single-stepped through a handler's return).  */
#define GORC_RT_SIGRETURN_CODE GORC_SIGRETURN_X86_64
#define GORC_RT_SIGRETURN_LEN GORC_SIGRETURN_X86_64_LEN
#define GORC_RT_SIGRETURN_SYSCALL_OFF GORC_SIGRETURN_X86_64_SYSCALL_OFF
/* __restore_rt is glibc's (SA_RESTORER): always code of a loaded
   module.  */
#define GORC_RT_SIGRETURN_OUTSIDE_MODULES 0
/* ... and has no CFI of its own in a vDSO.  */
#define GORC_RT_SIGRETURN_VDSO_CFI 0

/* NAME (fn, arg, top): call FN (ARG) with the stack pointer at TOP
   (16-byte aligned), and return on the caller's stack.  The caller's
   stack pointer is kept in rbp, which the CFI names as the CFA register,
   so a debugger unwinds from the other stack back to the caller.  (The
   crash handler prints on a stack of its own.)  */
#ifdef __CET__
#define GORC_RT_ENDBR "endbr64\n\t"
#else
#define GORC_RT_ENDBR ""
#endif
#define GORC_RT_CALL_ON_STACK(name)                                            \
  __asm__(".text\n\t"                                                         \
          ".globl " #name "\n\t"                                              \
          ".hidden " #name "\n\t"                                             \
          ".type " #name ",@function\n\t"                                     \
          ".p2align 4\n"                                                      \
          #name ":\n\t"                                                       \
          ".cfi_startproc\n\t"                                                \
          GORC_RT_ENDBR                                                       \
          "pushq %rbp\n\t"                                                    \
          ".cfi_def_cfa_offset 16\n\t"                                        \
          ".cfi_offset %rbp, -16\n\t"                                         \
          "movq %rsp, %rbp\n\t"                                               \
          ".cfi_def_cfa_register %rbp\n\t"                                    \
          "movq %rdx, %rsp\n\t"                                               \
          "movq %rdi, %rax\n\t"                                               \
          "movq %rsi, %rdi\n\t"                                               \
          "call *%rax\n\t"                                                    \
          "movq %rbp, %rsp\n\t"                                               \
          "popq %rbp\n\t"                                                     \
          ".cfi_def_cfa %rsp, 8\n\t"                                          \
          "ret\n\t"                                                           \
          ".cfi_endproc\n\t"                                                  \
          ".size " #name ", .-" #name "\n\t");

#endif
