/* libgorc: the public API (gorc.h).  gorc_backtrace and gorc_cursor_init
   are tiny assembly entry points that capture the caller's rip, rsp and
   rbp exactly (the return address, the CFA of the entry point, rbp as the
   caller left it) and tail-jump into C, so no frame of libgorc is ever
   unwound.  */

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/ucontext.h>
#pragma GCC visibility push(default)
#include "gorc.h"
#pragma GCC visibility pop
#include "arch-x86_64.h"
#include "internal.h"

static __thread int last_count __attribute__((tls_model("initial-exec")));

#ifdef __CET__
#define ENDBR "endbr64\n\t"
#else
#define ENDBR ""
#endif

/* entry(args...) -> impl(args..., ip, sp, bp): the caller's registers go
   in the next argument registers.  */
#define ENTRY(name, impl, r_ip, r_sp, r_bp)                                   \
  __asm__(".text\n\t"                                                         \
          ".globl " #name "\n\t"                                              \
          ".type " #name ",@function\n\t"                                     \
          ".p2align 4\n"                                                      \
          #name ":\n\t"                                                       \
          ".cfi_startproc\n\t"                                                \
          ENDBR                                                               \
          "movq (%rsp), %" #r_ip "\n\t"                                       \
          "leaq 8(%rsp), %" #r_sp "\n\t"                                      \
          "movq %rbp, %" #r_bp "\n\t"                                         \
          "jmp " #impl "\n\t"                                                 \
          ".cfi_endproc\n\t"                                                  \
          ".size " #name ", .-" #name "\n\t");

ENTRY(gorc_backtrace, gorc_rt_backtrace_impl, rdx, rcx, r8)
ENTRY(gorc_cursor_init, gorc_rt_cursor_init_impl, rsi, rdx, rcx)

GORC_HIDDEN int gorc_rt_backtrace_impl(void **ips, int max, uint64_t ip, uint64_t sp,
                                       uint64_t bp);
GORC_HIDDEN int gorc_rt_cursor_init_impl(struct gorc_cursor *c, uint64_t ip, uint64_t sp,
                                         uint64_t bp);

static int walk(struct gorc_cursor *c, void **ips, int max)
{
  int n;
  int rc = gorc_rt_walk(c, ips, max, &n);
  last_count = n;
  return rc < 0 ? rc : n;
}

int gorc_rt_backtrace_impl(void **ips, int max, uint64_t ip, uint64_t sp, uint64_t bp)
{
  int n;
  if ((!ips && max > 0) || max < 0) {
    last_count = 0;
    return -GORC_EINVAL;
  }
  int rc = gorc_rt_backtrace_walk(ip, sp, bp, ips, max, &n);
  last_count = n;
  return rc < 0 ? rc : n;
}

int gorc_backtrace_ucontext(const void *ucontext, void **ips, int max)
{
  struct gorc_cursor c;
  int rc;
  last_count = 0;
  if ((!ips && max > 0) || max < 0)
    return -GORC_EINVAL;
  if ((rc = gorc_cursor_init_ucontext(&c, ucontext)) < 0)
    return rc;
  return walk(&c, ips, max);
}

int gorc_backtrace_count(void)
{
  return last_count;
}

int gorc_rt_cursor_init_impl(struct gorc_cursor *c, uint64_t ip, uint64_t sp, uint64_t bp)
{
  if (!c)
    return -GORC_EINVAL;
  return gorc_rt_cursor_start(c, ip, sp, bp, NULL);
}

int gorc_cursor_init_ucontext(struct gorc_cursor *c, const void *ucontext)
{
  if (!c || !ucontext)
    return -GORC_EINVAL;
  const ucontext_t *uc = ucontext;
  return gorc_rt_cursor_start(c, (uint64_t)uc->uc_mcontext.gregs[GORC_RT_GREG_IP],
                              (uint64_t)uc->uc_mcontext.gregs[GORC_RT_GREG_SP],
                              (uint64_t)uc->uc_mcontext.gregs[GORC_RT_GREG_FP], ucontext);
}

int gorc_cursor_step(struct gorc_cursor *c)
{
  if (!c)
    return -GORC_EINVAL;
  return gorc_rt_cursor_step(c);
}

const char *gorc_strerror(int err)
{
  switch (err < 0 ? -err : err) {
  case GORC_OK: return "success";
  case GORC_END: return "outermost frame reached";
  case GORC_ENORECORD: return "no unwind information for this address";
  case GORC_EUNDEFINED: return "unwind information says this code cannot be unwound";
  case GORC_EBADFRAME: return "frame address or saved value outside the stack";
  case GORC_EDIRECTION: return "stack pointer went the wrong way (loop)";
  case GORC_EINVAL: return "invalid argument";
  case GORC_EINIT: return "libgorc could not set itself up";
  case GORC_ECORRUPT: return "malformed records or .eh_frame";
  default: return "unknown gorc error";
  }
}
