/* libgorc: the public API (gorc.h).  gorc_backtrace and gorc_cursor_init
   enter through the port's assembly stubs (runtime/src/<arch>/entry.c),
   which capture the caller's pc, sp and frame pointer and tail-jump to
   the *_impl functions here, so no frame of libgorc is ever unwound.  */

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/ucontext.h>
#pragma GCC visibility push(default)
#include "gorc.h"
#pragma GCC visibility pop
#include "arch.h"
#include "internal.h"

static __thread int last_count __attribute__((tls_model("initial-exec")));

/* Called by the entry stubs (entry.c) with the caller's registers
   after the API's arguments.  */
GORC_HIDDEN int gorc_rt_backtrace_impl(void **ips, int max, uint64_t ip, uint64_t sp,
                                       uint64_t bp);
GORC_HIDDEN int gorc_rt_backtrace2_impl(void **ips, int max, int *count, uint64_t ip,
                                        uint64_t sp, uint64_t bp);
GORC_HIDDEN int gorc_rt_cursor_init_impl(struct gorc_cursor *c, uint64_t ip, uint64_t sp,
                                         uint64_t bp);

/* Every backtrace function ends here: *COUNT (when given) and the
   thread's last_count get the number of addresses stored.  */
static int finish(int rc, int n, int *count)
{
  last_count = n;
  if (count)
    *count = n;
  return rc < 0 ? rc : n;
}

int gorc_rt_backtrace2_impl(void **ips, int max, int *count, uint64_t ip, uint64_t sp,
                            uint64_t bp)
{
  int n;
  if ((!ips && max > 0) || max < 0)
    return finish(-GORC_EINVAL, 0, count);
  int rc = gorc_rt_backtrace_walk(ip, sp, bp, ips, max, &n);
  return finish(rc, n, count);
}

int gorc_rt_backtrace_impl(void **ips, int max, uint64_t ip, uint64_t sp, uint64_t bp)
{
  return gorc_rt_backtrace2_impl(ips, max, NULL, ip, sp, bp);
}

int gorc_backtrace_ucontext2(const void *ucontext, void **ips, int max, int *count)
{
  struct gorc_cursor c;
  int n, rc;
  if ((!ips && max > 0) || max < 0)
    return finish(-GORC_EINVAL, 0, count);
  if ((rc = gorc_cursor_init_ucontext(&c, ucontext)) < 0)
    return finish(rc, 0, count);
  rc = gorc_rt_walk(&c, ips, max, &n);
  return finish(rc, n, count);
}

int gorc_backtrace_ucontext(const void *ucontext, void **ips, int max)
{
  return gorc_backtrace_ucontext2(ucontext, ips, max, NULL);
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
  return gorc_rt_cursor_start(c, gorc_rt_uc_reg(ucontext, GORC_STEP_UC_IP),
                              gorc_rt_uc_reg(ucontext, GORC_STEP_UC_SP),
                              gorc_rt_uc_reg(ucontext, GORC_STEP_UC_FP), ucontext);
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
