/* libgorc: the port for the machine it is built for.  Each port is one
   folder, runtime/src/<arch>/, the way libunwind keeps src/x86_64/ and
   src/aarch64/:
     arch.h           the signal trampoline, the red zone, stripping a
                      signed return address, the PC cache's address
                      bits, the crash handler's stack switch (GORC_RT_*
                      names, the same in every port); register numbers
                      and ucontext offsets are the step rules'
                      (include/gorc/step-<arch>.h), checked there;
     entry.c          gorc_backtrace and gorc_cursor_init: assembly stubs
                      that capture the caller's pc, sp and frame pointer;
     static_call.h    the instructions static-call updates write
                      (static_call_arch.h picks it).
   Every other runtime file is the same for every machine and includes
   this one.  A third architecture is one more folder and one more line
   here.  */

#ifndef GORC_RT_ARCH_H
#define GORC_RT_ARCH_H

#if defined(__x86_64__)
#include "x86_64/arch.h"
#elif defined(__aarch64__)
#include "aarch64/arch.h"
#else
#error "libgorc is ported to x86-64 and aarch64 only (runtime/src/<arch>/)"
#endif

/* Register OFF (a GORC_STEP_UC_* offset) of the ucontext_t at UC, read
   directly: for a context the caller handed over (a signal handler's
   third argument), not one found on a stack the walk checks.  */
static inline uint64_t gorc_rt_uc_reg(const void *uc, size_t off)
{
  return *(const uint64_t *)(const void *)((const char *)uc + off);
}

#endif
