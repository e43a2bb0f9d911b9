/* libgorc internal: the extent of the calling thread's stack (stack.c),
   for the crash handler.  */

#ifndef GORC_RT_STACK_H
#define GORC_RT_STACK_H

#include <stdint.h>
#include "module.h"

/* A thread's stack: mapped over [lo, hi); below it, over [guard_lo, lo),
   its guard area, where an access means the stack overflowed (glibc's
   guard pages of a thread; the kernel's gap below the main thread's
   stack).  A guard region inside the mapping (glibc 2.41 and later) is
   not told apart in /proc/self/maps: see crash.c's stack_overflow.  */
struct gorc_rt_stack {
  uint64_t lo, hi, guard_lo;
};

/* The calling thread's stack, from /proc/self/maps: the mapping that
   holds the main thread's __libc_stack_end or another thread's thread
   pointer (glibc puts its TCB at the top of the thread's stack block).
   Async-signal-safe.  Returns 0, or -1 when it is not known.  */
GORC_HIDDEN int gorc_rt_stack_of_thread(struct gorc_rt_stack *s);

#endif
