/* libgorc: every x86-64 detail of the runtime, in one place: the record
   format's machine, register numbering, the signal frame, the red zone,
   and the opcodes static calls write.  An aarch64 port adds a file of
   its own beside this one (arch.h picks it).  */

#ifndef GORC_RT_ARCH_X86_64_H
#define GORC_RT_ARCH_X86_64_H

#include <stdint.h>
#include <sys/ucontext.h>
#include "gorc/format.h"

/* The machine whose records this runtime reads (the gorc note's).  */
#define GORC_RT_MACHINE GORC_MACHINE_X86_64

/* Below the stack pointer, leaf functions may keep data (psABI 3.2.2).  */
#define GORC_RT_REDZONE 128

/* A signal frame's return address: glibc's __restore_rt,
   mov $15, %rax; syscall.  */
#define GORC_RT_SIGRETURN_CODE { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 }
#define GORC_RT_SIGRETURN_LEN 9
/* Its other instruction, the syscall, at this offset: an interrupted
   context may stand there too (single-stepped through a handler's
   return).  */
#define GORC_RT_SIGRETURN_SYSCALL_OFF 7

/* An interrupted context's registers (mcontext gregs[] indices).  */
#define GORC_RT_GREG_IP REG_RIP
#define GORC_RT_GREG_SP REG_RSP
#define GORC_RT_GREG_FP REG_RBP
#define GORC_RT_GREG_AUX REG_RBX

/* DWARF register number -> mcontext gregs[] index.  */
#define GORC_RT_DWARF_TO_GREG                                                  \
  { REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,    \
    REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15 }

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

/* Static calls: a trampoline state is one instruction, int3-padded.  */
#define GORC_RT_OP_INT3 0xcc
#define GORC_RT_OP_CALL_REL32 0xe8
#define GORC_RT_OP_JMP_REL32 0xe9
#define GORC_RT_OP_JMP_IND0 0xff   /* jmp *rel32(%rip): ff 25 */
#define GORC_RT_OP_JMP_IND1 0x25

#endif
