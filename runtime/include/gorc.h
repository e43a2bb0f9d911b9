/* libgorc: async-signal-safe stack unwinding over gorc records.

   Link with -lgorc (libgorc.a or libgorc.so).  Almost nothing happens
   at load (the main stack's bounds and which modules the program needs
   are noted): a walk finds each module it meets (glibc's _dl_find_object), reads its
   gorc records (found through its .note.gorc) or, for code without
   records, its .eh_frame in place, and keeps the states of hot return
   addresses in a fixed-size cache.

   All functions here are async-signal-safe and thread-safe: no allocation,
   no lock on the unwind path, every stack read checked against the
   current thread's stack bounds (and, for a stack not known to be mapped,
   against what the kernel shows readable).  */

#ifndef GORC_H
#define GORC_H

#ifdef __cplusplus
extern "C" {
#endif

/* Why a walk stopped.  Functions return these negated.  */
enum gorc_error {
  GORC_OK = 0,
  GORC_END = 1,          /* the outermost frame was reached (not an error) */
  GORC_ENORECORD = 2,    /* no record and no .eh_frame for this address */
  GORC_EUNDEFINED = 3,   /* the record says this code cannot be unwound */
  GORC_EBADFRAME = 4,    /* the CFA or a saved value is outside the stack */
  GORC_EDIRECTION = 5,   /* the stack went the wrong way (a loop) */
  GORC_EINVAL = 6,       /* bad argument */
  GORC_EINIT = 7,        /* not returned since libgorc v2 (the numbers are ABI) */
  GORC_ECORRUPT = 8      /* the module's records or .eh_frame are malformed here */
};

/* Like backtrace(3): IPS[0] is the return address into the function that
   called gorc_backtrace, then its callers' return addresses.  Returns the
   number of addresses stored (0..MAX) when the walk reached the outermost
   frame or MAX, or a negative enum gorc_error when it stopped early; the
   addresses found until then are stored all the same, and
   gorc_backtrace_count() says how many.  */
int gorc_backtrace(void **ips, int max);

/* From a signal handler's third argument (a ucontext_t *): IPS[0] is the
   interrupted instruction, then its callers.  Same return convention.  */
int gorc_backtrace_ucontext(const void *ucontext, void **ips, int max);

/* How many addresses the calling thread's last gorc_backtrace* stored
   (also when it returned an error).  Per thread, like errno: a signal
   handler that walks between a walk and this call changes it, so such a
   handler should save and restore it (a walk that succeeded returns the
   count itself).  gorc_backtrace2 below has no such state.  */
int gorc_backtrace_count(void);

/* gorc_backtrace and gorc_backtrace_ucontext that also store the number
   of addresses stored in *COUNT (when COUNT is not null), whether they
   succeed or not.  The count comes from the call itself, so no signal
   handler's walk can change it: for code whose signal handlers walk.  */
int gorc_backtrace2(void **ips, int max, int *count);
int gorc_backtrace_ucontext2(const void *ucontext, void **ips, int max, int *count);

/* A cursor for tools: one frame at a time.  */
struct gorc_cursor {
  unsigned long ip, sp, bp;   /* the current frame's registers */
  unsigned long priv[8];      /* libgorc's state */
};

/* Start at the caller of gorc_cursor_init.  Returns 0 or -enum gorc_error.  */
int gorc_cursor_init(struct gorc_cursor *c);
/* Start at the interrupted context of a signal handler.  */
int gorc_cursor_init_ucontext(struct gorc_cursor *c, const void *ucontext);
/* Step to the caller: 1 when there is one, 0 at the outermost frame,
   -enum gorc_error when the walk cannot go on.  */
int gorc_cursor_step(struct gorc_cursor *c);

/* A fixed English text for an enum gorc_error (negated or not).  */
const char *gorc_strerror(int err);

/* Opt-in crash traces: on SIGSEGV, SIGBUS, SIGABRT and SIGFPE print the
   faulting thread's symbolized stack on stderr (only async-signal-safe
   calls in the handler), then let the signal kill the process as before.
   Call it once, in normal context (it maps an alternate signal stack for
   the calling thread, sets the handlers, and asks every other running
   thread, by a signal to it, to map one of its own; threads started
   later by pthread_create, with libgorc.so or the preload, map theirs as
   they start: a stack overflow in any of them is traced; symbols are
   read from the modules' files when a crash is printed).
   Returns 0 or -errno.  LD_PRELOAD=libgorc-preload.so with
   GORC_CRASH_TRACE=1 installs it in an unmodified program.  */
int gorc_install_crash_handler(void);

#ifdef __cplusplus
}
#endif

#endif
