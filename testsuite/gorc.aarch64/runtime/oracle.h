/* The independent unwinders gorc's aarch64 walks are compared with:
   libgcc's _Unwind_Backtrace (the cross toolchain's, from .eh_frame: it
   strips signed return addresses and steps through the signal
   trampoline), and libunwind (unw_step) where libunwind-dev:arm64 is
   installed (aarch64.exp then defines A64_LIBUNWIND and links it).
   libunwind 1.6 neither strips signed return addresses nor survives
   them: it is asked only of code built without -mbranch-protection.  */
#ifndef A64_ORACLE_H
#define A64_ORACLE_H
#ifdef A64_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif
#include <unwind.h>
#include "../../gorc.runtime/support/rt-test.h"

/* Is libunwind asked too?  Not of code built with pac-ret.  */
#if defined(A64_LIBUNWIND) && !defined(__ARM_FEATURE_PAC_DEFAULT)
#define A64_ASK_LIBUNWIND 1
#else
#define A64_ASK_LIBUNWIND 0
#endif

struct a64_walk {
  void **out;
  int n, max;
};

static _Unwind_Reason_Code a64_gcc_frame(struct _Unwind_Context *ctx, void *arg)
{
  struct a64_walk *w = arg;
  if (w->n >= w->max)
    return _URC_END_OF_STACK;
  w->out[w->n++] = (void *)_Unwind_GetIP(ctx);
  return _URC_NO_REASON;
}

/* libgcc's walk from its caller: OUT[0] is in a64_gcc_walk's caller.  */
static __attribute__((noinline)) int a64_gcc_walk(void **out, int max)
{
  struct a64_walk w = { out, 0, max };
  _Unwind_Backtrace(a64_gcc_frame, &w);
  return w.n;
}

/* libunwind's walk from its caller (0 frames without libunwind).  */
static __attribute__((noinline)) int a64_unw_walk(void **out, int max)
{
#if A64_ASK_LIBUNWIND
  unw_context_t uc;
  unw_cursor_t c;
  unw_word_t ip;
  int n = 0;
  unw_getcontext(&uc);
  unw_init_local(&c, &uc);
  while (n < max && unw_step(&c) > 0) {
    unw_get_reg(&c, UNW_REG_IP, &ip);
    out[n++] = (void *)ip;
  }
  return n;
#else
  (void)out, (void)max;
  return 0;
#endif
}

/* gorc's IPS[FROM..N) must be the frames of the oracle's REF[0..K)
   from the one that equals IPS[FROM] on, address for address, to the
   same end (the oracle may end with a 0 for _start's caller).  */
static void a64_same_frames(void **ips, int n, int from, void **ref, int k, const char *who)
{
  int j = 0;
  while (k > 0 && ref[k - 1] == 0)
    k--;
  while (j < k && ref[j] != ips[from])
    j++;
  if (j == k) {
    rt_puts(who);
    FAIL(": the first frame compared is not in the oracle's walk", from);
  }
  if (n - from != k - j) {
    rt_puts(who);
    FAIL(": frame counts differ (gorc minus oracle)", (n - from) - (k - j));
  }
  for (int i = from; i < n; i++, j++)
    if (ips[i] != ref[j]) {
      rt_puts(who);
      FAIL(": differs at gorc frame", i);
    }
}
#endif
