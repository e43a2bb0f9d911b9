/* libgorc's aarch64 port: the entry points of the public API that walk
   from their caller.  gorc_backtrace, gorc_backtrace2 and gorc_cursor_init are assembly
   stubs that capture the caller's registers exactly, x30 (the return
   address into the caller: a bl leaves it unsigned; the caller signs
   its own copy in its prologue, if at all), sp (the stub's CFA: it has
   no frame) and x29 as the caller left it, and tail-branch into C
   (api.c), so no frame of libgorc is ever unwound.  hint 34 is bti c:
   the stubs are called through the PLT (an indirect branch) from code
   built with branch target identification; a no-op elsewhere.  */

#include "arch.h"

/* entry(args...) -> impl(args..., ip, sp, fp): the caller's registers go
   in the next argument registers.  */
#define ENTRY(name, impl, r_ip, r_sp, r_fp)                                   \
  __asm__(".text\n\t"                                                         \
          ".globl " #name "\n\t"                                              \
          ".type " #name ",%function\n\t"                                     \
          ".p2align 2\n"                                                      \
          #name ":\n\t"                                                       \
          ".cfi_startproc\n\t"                                                \
          "hint 34\n\t"                                                       \
          "mov " #r_ip ", x30\n\t"                                            \
          "mov " #r_sp ", sp\n\t"                                             \
          "mov " #r_fp ", x29\n\t"                                            \
          "b " #impl "\n\t"                                                   \
          ".cfi_endproc\n\t"                                                  \
          ".size " #name ", .-" #name "\n\t");

ENTRY(gorc_backtrace, gorc_rt_backtrace_impl, x2, x3, x4)
ENTRY(gorc_backtrace2, gorc_rt_backtrace2_impl, x3, x4, x5)
ENTRY(gorc_cursor_init, gorc_rt_cursor_init_impl, x1, x2, x3)
