/* libgorc internal: the walk's entry points and the main thread's stack.  */

#ifndef GORC_RT_INTERNAL_H
#define GORC_RT_INTERNAL_H

#include <stdint.h>
#include "lookup.h"
#include "module.h"

/* Main-thread stack bounds, set by libgorc's constructor (bounds.c) from
   __libc_stack_end and RLIMIT_STACK: no system call beyond getrlimit, no
   /proc read.  (0, 0 if unknown.)  */
GORC_HIDDEN extern uint64_t gorc_rt_main_lo, gorc_rt_main_hi;
GORC_HIDDEN extern unsigned long gorc_rt_main_self;  /* main's thread pointer */
GORC_HIDDEN extern int gorc_rt_main_self_known;

/* Cursor: its start (bounds.c), its step and the walk (walk.c).
   The private state in struct gorc_cursor priv[] (cursor.h).  */
struct gorc_cursor;
GORC_HIDDEN int gorc_rt_cursor_start(struct gorc_cursor *c, uint64_t ip, uint64_t sp,
                                     uint64_t bp, const void *uc);
GORC_HIDDEN int gorc_rt_cursor_step(struct gorc_cursor *c);
/* Bounds for a walk from an interrupted context whose sp is in or just
   below the mapped stack [LO, HI) (the crash handler's), and the next
   part of a walk longer than one gorc_rt_walk may go (bounds.c, walk.c).  */
GORC_HIDDEN void gorc_rt_cursor_bound(struct gorc_cursor *c, uint64_t lo, uint64_t hi);
GORC_HIDDEN void gorc_rt_cursor_next_part(struct gorc_cursor *c);
/* The fast word of return address RA (the state of RA - 1), whatever
   module holds it: from the cache when an entry holds it (its module
   checked by this walk now if it was not yet), else the long way (the
   module, then its state), into the cache.  *SLOT gets the slot of RA's
   module.  0 when the state is not a fast word or is not known, or on an
   error: the general step finds out which.  (walk.c; the memo asks it
   for the words of a run it writes.)  */
GORC_HIDDEN uint32_t gorc_rt_word(struct gorc_rt_walk_modules *wm, uint64_t ra,
                                  unsigned *slot);
/* Store up to MAX addresses, c->ip first; *COUNT gets how many.  Returns
   the last step's result: 1 (stopped at MAX), 0 (outermost frame) or
   -enum gorc_error.  */
GORC_HIDDEN int gorc_rt_walk(struct gorc_cursor *c, void **ips, int max, int *count);
/* The same from a call's registers (gorc_backtrace): IP its return
   address, SP its CFA, BP the caller's frame pointer.  */
GORC_HIDDEN int gorc_rt_backtrace_walk(uint64_t ip, uint64_t sp, uint64_t bp, void **ips,
                                       int max, int *count);

/* The crash handler's part in a thread's start and end (crash.c),
   called by libgorc's pthread_create (thread.c): whether the handler is
   installed, and the thread's alternate signal stack.  */
GORC_HIDDEN int gorc_rt_crash_installed(void);
GORC_HIDDEN void *gorc_rt_crash_thread_begin(void);
GORC_HIDDEN void gorc_rt_crash_thread_end(void *altstack);

#endif
