/* libgorc: the walk memo, the last walk of a thread's outer frames, so
   that the next walk of the same stack pays a check per frame instead of
   a lookup.

   Every profiler sample and every repeated backtrace walks the same
   outer frames again: main, the event loop, the thread's start.  A frame
   of the inner loop costs a chain of dependent steps (hash, cache load,
   CFA, return-address load); a frame the memo already knows costs a
   reload of its return-address slot, compared with what the memo says it
   held: loads that do not depend on each other.

   A memo is the states (ip, sp, fp) of one run of the inner loop
   (walk.c's fast_loop) that ended at the outermost frame or at the end
   of the caller's buffer, and for each step the stack words the step
   read: the return-address slot, and the fp slot when a later step reads
   fp.  A later walk that reaches one of its states (the same ip and sp,
   and the same fp where the rest reads it) and finds every such word
   unchanged would step the same frames to the same addresses: the step
   reads nothing else.  The words of those states (unwind records) must
   not change either, so a memo keeps only frames of permanent modules
   (never unloaded: module.h).

   64 memos, picked by a hash of the thread pointer; two threads that
   share one just evict each other.  Without a lock: a sequence number,
   odd while a walk rewrites the memo (taken with one compare-and-swap,
   so a walk interrupted by a signal handler's walk, or racing another
   thread's, never sees half a memo: the reader checks the number after
   reading, and follows only if it did not change).  A walk reads memory
   named by a memo only inside the bounds of its own stack.

   GORC_WALK_MEMO=0 in the environment turns memos off (each walk then
   looks up every frame): the bench measures both.  */

#ifndef GORC_RT_MEMO_H
#define GORC_RT_MEMO_H

#include <stdatomic.h>
#include <stdint.h>
#include "lookup.h"

#define GORC_RT_MEMO_STATES 256
#define GORC_RT_MEMO_BITS 6

/* A stack word a step read, and what it held then (a return address
   as read: an aarch64 signed one unstripped).  */
struct gorc_rt_memo_check {
  uint64_t slot, saved;
};

/* How the memo's last state ends the walk.  */
enum gorc_rt_memo_end {
  GORC_RT_MEMO_OPEN,        /* it does not: the walk that wrote it filled its buffer */
  GORC_RT_MEMO_END,         /* the outermost frame (a GORC_RT_W_END word) */
  GORC_RT_MEMO_END_ZERO     /* its ip is the return address 0 (not output) */
};

/* The states, inner to outer (sp ascending), one array per field: a
   walk compares sp and ip where it meets the memo, then checks a run of
   return-address slots and copies a run of ips.  */
struct gorc_rt_memo {
  _Atomic uint32_t seq;           /* odd while being rewritten */
  uint32_t states;
  uint32_t end;                   /* enum gorc_rt_memo_end */
  uint32_t cut;                   /* the run had states before these that are not kept
                                     (too many, or of a module that may be unloaded) */
  uint64_t ip[GORC_RT_MEMO_STATES], sp[GORC_RT_MEMO_STATES];
  uint64_t fp[GORC_RT_MEMO_STATES];         /* meaningful where needs_fp */
  uint32_t word[GORC_RT_MEMO_STATES];       /* ip's fast word */
  uint8_t needs_fp[GORC_RT_MEMO_STATES];    /* the walk on from here reads this fp */
  /* The words the steps from state I read are check[first_check[I]]
     up to check[first_check[I + 1]]: the return-address slot, and the
     fp slot when a later step reads fp.  The last state takes no step.  */
  uint16_t first_check[GORC_RT_MEMO_STATES + 1];
  struct gorc_rt_memo_check check[2 * GORC_RT_MEMO_STATES];
} __attribute__((aligned(64)));

GORC_HIDDEN extern struct gorc_rt_memo gorc_rt_memos[1u << GORC_RT_MEMO_BITS];
GORC_HIDDEN extern int gorc_rt_memo_off;

/* One walk's use of its thread's memo.  */
struct gorc_rt_memo_use {
  struct gorc_rt_memo *memo;      /* NULL: none for this walk */
  uint32_t seq;                   /* its sequence number when the walk began */
  unsigned next;                  /* the first state whose sp the walk has not passed */
  /* Where the walk met the memo and ended in it: the state of the run of
     the inner loop, the memo's state (met_state 0: it did not).  */
  unsigned met_state, met_at;
};

#define GORC_RT_MEMO_NO_WATCH UINT64_MAX

/* Pick the memo of the calling thread for a walk.  */
static inline void gorc_rt_memo_begin(struct gorc_rt_memo_use *mu)
{
  uint64_t tp = (uint64_t)(uintptr_t)__builtin_thread_pointer();
  struct gorc_rt_memo *m = &gorc_rt_memos[(tp * 0x9e3779b97f4a7c15ull) >> (64 - GORC_RT_MEMO_BITS)];
  uint32_t seq = atomic_load_explicit(&m->seq, memory_order_acquire);
  mu->memo = (seq & 1) || gorc_rt_memo_off ? NULL : m;
  mu->seq = seq;
  mu->next = 0;
  mu->met_state = 0;
}

/* A run of the inner loop starts: the sp at which it first may meet a
   state of the memo.  */
static inline uint64_t gorc_rt_memo_watch(struct gorc_rt_memo_use *mu)
{
  mu->next = 0;
  if (!mu->memo || __atomic_load_n(&mu->memo->states, __ATOMIC_RELAXED) == 0)
    return GORC_RT_MEMO_NO_WATCH;
  return __atomic_load_n(&mu->memo->sp[0], __ATOMIC_RELAXED);
}

/* Where following the memo left the walk.  */
struct gorc_rt_memo_exit {
  uint64_t ip, sp, fp;            /* GO_ON: the state the inner loop goes on from */
  enum {
    GORC_RT_MEMO_AT_END,          /* the outermost frame: the walk is complete */
    GORC_RT_MEMO_AT_MAX,          /* the buffer is full */
    GORC_RT_MEMO_GO_ON            /* the memo ends here; the inner loop goes on */
  } how;
  int same;                       /* AT_END, AT_MAX: writing the walk as the memo
                                     would change nothing */
};

/* The walk reached (IP, SP) with fp FP, SP at or above *WATCH, on the
   stack [LO, HI).  If a state of the memo is that one, follow the memo
   from it, checking each step's words on the stack: store the return
   addresses at OUT (up to END) and return how many, with *X.  Else, or
   when anything differs, return -1 (nothing stored at OUT counts).
   RUN_STATE: the state of this run of the inner loop (IP, SP) is (0:
   where it started).
   *WATCH gets the next sp worth a look.  */
GORC_HIDDEN long gorc_rt_memo_take(struct gorc_rt_memo_use *mu, uint64_t ip, uint64_t sp,
                                   uint64_t fp, uint64_t lo, uint64_t hi, void **out,
                                   void **end, unsigned run_state, uint64_t *watch,
                                   struct gorc_rt_memo_exit *x);

/* A run of the inner loop from (IP, SP, FP) stored the COUNT addresses
   at IPS and stopped at the outermost frame (COMPLETE) or at the end of
   the buffer, on the stack [LO, HI): make it the memo, stepping it again
   with the PC cache's words (a run through a module that may be
   unloaded keeps only the frames after it).  A run that met the memo
   past its first state and ended in it (MU's met_state) has only its
   states before that stepped again, in front of the memo's from there
   on.  */
struct gorc_rt_memo_run {
  uint64_t ip, sp, fp;
  void *const *ips;
  unsigned count;
  int complete;
  uint64_t lo, hi;
  struct gorc_rt_walk_modules *wm;   /* the modules the walk checked */
};
GORC_HIDDEN void gorc_rt_memo_record(const struct gorc_rt_memo_use *mu,
                                     const struct gorc_rt_memo_run *run);

#endif
