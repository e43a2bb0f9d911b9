/* libgorc's x86-64 port: the entry points of the public API that walk
   from their caller.  gorc_backtrace, gorc_backtrace2 and gorc_cursor_init are tiny
   assembly stubs that capture the caller's rip, rsp and rbp exactly (the
   return address, the CFA of the stub, rbp as the caller left it) and
   tail-jump into C (api.c), so no frame of libgorc is ever unwound.  */

#include "arch.h"

/* entry(args...) -> impl(args..., ip, sp, bp): the caller's registers go
   in the next argument registers.  */
#define ENTRY(name, impl, r_ip, r_sp, r_bp)                                   \
  __asm__(".text\n\t"                                                         \
          ".globl " #name "\n\t"                                              \
          ".type " #name ",@function\n\t"                                     \
          ".p2align 4\n"                                                      \
          #name ":\n\t"                                                       \
          ".cfi_startproc\n\t"                                                \
          GORC_RT_ENDBR                                                       \
          "movq (%rsp), %" #r_ip "\n\t"                                       \
          "leaq 8(%rsp), %" #r_sp "\n\t"                                      \
          "movq %rbp, %" #r_bp "\n\t"                                         \
          "jmp " #impl "\n\t"                                                 \
          ".cfi_endproc\n\t"                                                  \
          ".size " #name ", .-" #name "\n\t");

ENTRY(gorc_backtrace, gorc_rt_backtrace_impl, rdx, rcx, r8)
ENTRY(gorc_backtrace2, gorc_rt_backtrace2_impl, rcx, r8, r9)
ENTRY(gorc_cursor_init, gorc_rt_cursor_init_impl, rsi, rdx, rcx)
