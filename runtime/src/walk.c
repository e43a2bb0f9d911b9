/* libgorc: the walk of gorc_backtrace* (gorc_rt_walk): the inner loop
   over fast words, and the general step (step.c) for whatever it leaves.
   The walk asks the other parts one question each and goes on with the
   answer: module.c the module of an address, lookup.c its state (or
   lookup.h the cached word), step.c the general step from a state,
   memo.c the frames a walk of this stack met before.

   The inner loop follows frames whose state is a fast word (fast_word.h:
   CFA on sp/fp, fp unchanged or saved below the CFA, the return address
   saved below it): the registers stay in locals and a lookup is mostly
   one load of the PC cache (lookup.h).  Whatever it cannot decide
   exactly it leaves to the general step.  The walk memo (memo.h) takes
   over the outer frames a walk of this stack met before.  */

#include "cursor.h"
#include "memo.h"

/* ---- gorc_rt_walk: the walk of gorc_backtrace* ---- */

/* The inner loop of gorc_rt_walk: steps frames whose state is a fast
   word (lookup.h), with the registers in locals, and stops (leaving the
   registers of the frame it stopped at in *R) at anything else.  Stores
   the return addresses at R->out up to R->end.  A hot return address in
   the module of the frame before costs one PC-cache load and compare;
   one in another module this walk has checked, a second compare; the
   rest go through gorc_rt_word (word_of_other), which checks the module
   and fills the cache.  The outermost frame is a fast word too
   (GORC_RT_W_END), so a walk to _start or a thread's start ends in the
   loop.

   The loop does not follow aux (x86-64's rbx): only a CFA rule of
   glibc's lazy-binding resolver needs it, and following it cost every
   frame that saves rbx (most frames) a third of its instructions.  A
   walk whose general step meets such a rule after the loop stepped
   frames walks again, with the general step alone up to that frame
   (WALK_AGAIN, walk_again).

   Stack bounds: the caller guarantees that sp is 8-byte aligned and that
   [lo, hi) is inside the stack sp is on, with lo <= sp - BELOW_SP.  A CFA
   is at most hi, so the return address slot is inside; fp and return
   address slots are at most 8 * 31 bytes below a CFA, and checked
   against lo unless they are close enough to the CFA to be above sp
   (fast_loop).  */

/* fast_loop's common branch reads slots less than 16 words below a CFA
   without checking them against lo: they are above the walk's first sp,
   at least BELOW_SP above lo.  */
_Static_assert(((GORC_RT_W_BP_FAR >> GORC_RT_W_BP_SHIFT) & GORC_RT_W_SLOT8_MASK) == 16 * 8
               && ((GORC_RT_W_J_FAR >> GORC_RT_W_J_SHIFT) & GORC_RT_W_SLOT8_MASK) == 16 * 8
               && 16 * 8 <= BELOW_SP,
               "a slot nearer the CFA than a far one lies above the walk's first sp");
struct walk_regs {
  uint64_t ip, sp, bp;
  uint64_t lo, hi;
  void **out, **end;
};

/* Why the inner loop stopped.  */
enum fast_stop {
  FAST_MAX,        /* the output is full */
  FAST_END,        /* the outermost frame was reached: the walk is complete */
  FAST_SLOW,       /* a frame the general step must take */
  FAST_ON          /* (within the loop) it goes on */
};

/* fp, read when needed: the loop notes where the last frame that saved
   fp put it, and reads that slot only for a CFA on fp and at its end
   (most frames that save fp, as a callee-saved register, are followed by
   frames that never use it).  The slot was checked when its frame was
   stepped, and the stack above the walker does not change meanwhile.  */
struct lazy_fp {
  uint64_t value;   /* fp, unless a slot is pending */
  uint64_t cfa;     /* the CFA of the frame that saved fp ... */
  uint32_t w;       /* ... and its word; 0: no slot pending */
};

static inline __attribute__((always_inline)) void fp_saved(struct lazy_fp *fp, uint32_t w,
                                                          uint64_t cfa)
{
  if (w & GORC_RT_W_BP_MASK) {
    fp->cfa = cfa;
    fp->w = w;
  }
}

static inline __attribute__((always_inline)) uint64_t fp_value(struct lazy_fp *fp)
{
  if (fp->w) {
    fp->value = GORC_RT_LOAD_STACK(fp->cfa - gorc_rt_w_bp8(fp->w));
    fp->w = 0;
  }
  return fp->value;
}

/* The registers of the inner loop, in locals (the stores of return
   addresses could alias anything reached through a pointer).  */
struct loop_regs {
  uint64_t ip, sp;
  struct lazy_fp fp;
  void **out;
};

/* A run of one return address (recursion): the frame just stepped
   returned into itself, L->ip, so the frames after it have its
   sp-based word W too, until a return address differs.  Every frame of
   the run saved fp (if at all) at the same place below its CFA, so only
   the last frame's slot matters: the loop itself only follows the CFA.
   The slots need no check: the frame before passed the checks of
   fast_loop on this stack, and the run's CFAs are higher.  Returns
   FAST_MAX when the walk can go on in the inner loop.  */
static inline __attribute__((always_inline)) enum fast_stop
run_frames(struct loop_regs *l, uint32_t w, uint64_t hi, void **end)
{
  uint64_t off = gorc_rt_w_off(w), sp = l->sp, run_sp = sp, cfa, ra;
  void **out = l->out;
  enum fast_stop stop = FAST_MAX;
  while (out < end) {
    cfa = sp + off;
    if (cfa > hi) {
      stop = FAST_SLOW;
      break;
    }
    ra = GORC_RT_LOAD_STACK(cfa - gorc_rt_w_ra8(w));
    if (w & GORC_RT_W_RA_SIGNED)
      ra = gorc_rt_strip_ra(ra);
    if (ra == 0) {
      stop = FAST_END;
      break;
    }
    sp = cfa;
    *out++ = (void *)(uintptr_t)ra;
    if (ra != l->ip) {
      /* The run's last frame.  */
      l->ip = ra;
      break;
    }
  }
  if (sp != run_sp)
    fp_saved(&l->fp, w, sp);
  l->sp = sp;
  l->out = out;
  return stop;
}

/* ---- lookups: the module, then the state ---- */

/* (internal.h.)  Out of line: inlined into word_of_other, it changed the
   inner loop's registers (GCC allocates them knowing what a call of
   this file clobbers) and cost 0.1 instruction a frame of the chain.  */
__attribute__((noinline)) uint32_t gorc_rt_word(struct gorc_rt_walk_modules *wm, uint64_t ra,
                                             unsigned *slot)
{
  uint32_t w = gorc_rt_word_cached(wm, ra, slot);
  if (w)
    return w;
  struct gorc_state s;
  struct gorc_rt_module m;
  if (gorc_rt_module_find(ra - 1, &m) != 0 || gorc_rt_module_state(&m, ra - 1, &s) != 1)
    return 0;
  *slot = m.slot;
  if (m.slot < GORC_RT_MODULE_SLOTS)
    gorc_rt_walk_set_checked(wm, m.slot);   /* found loaded just now */
  return gorc_rt_cache_keep(&m, ra - 1, &s);
}

/* The general step of C's frame: its address's module and state looked
   up here, the step itself by step.c.  */
__attribute__((noinline)) int gorc_rt_cursor_step(struct gorc_cursor *c)
{
  uint64_t flags = cstate(c)->flags;
  struct gorc_rt_frame_state fs;
  if (flags & F_END)
    return 0;
  if (cstate(c)->frames >= GORC_MAX_FRAMES)
    return -GORC_EDIRECTION;
  fs.pc = (flags & F_NOADJ) ? c->ip : c->ip - 1;
  fs.has_module = gorc_rt_module_find(fs.pc, &fs.m) == 0;
  fs.found = fs.has_module ? gorc_rt_module_state(&fs.m, fs.pc, &fs.st) : 0;
  if (fs.found == 1)
    gorc_rt_cache_keep(&fs.m, fs.pc, &fs.st);
  return gorc_rt_step_frame(c, &fs);
}

/* ---- the inner loop ---- */

/* The slow half of the inner loop's lookup of return address RA, whose
   cache entry is of no module this walk checked: gorc_rt_word; 0 for the
   outermost frame's return address 0.  Out of line, so that the loop
   keeps its registers.  */
static __attribute__((noinline)) uint32_t word_of_other(struct gorc_rt_walk_modules *wm,
                                                         uint64_t ra, unsigned *slot)
{
  return ra ? gorc_rt_word(wm, ra, slot) : 0;
}

/* Words the inner loop leaves to its careful branch: fp-based CFA, the
   outermost frame, and fp or return address slots 128 bytes or more
   below the CFA.  For the others a CFA at most hi needs no other check:
   the return address is below hi, and since sp >= lo + BELOW_SP (the
   caller's promise, kept as sp only grows) and the CFA > sp, a slot less
   than 128 bytes below the CFA is at or above lo.  */
#define CAREFUL_BITS (GORC_RT_W_CFA_BP | GORC_RT_W_END | GORC_RT_W_BP_FAR | GORC_RT_W_J_FAR)

/* The fast word of return address IP, whose cache entry E is not of the
   module of the frame before: of another module this walk checked, or
   the long way (*MODULE_SLOT and *SLOT_KEY then name its module).  0:
   the general step must take the frame.  */
static inline __attribute__((always_inline)) uint32_t
other_module_word(struct gorc_rt_walk_modules *wm, uint64_t e, uint64_t ip,
                  unsigned *module_slot, uint64_t *slot_key)
{
  unsigned other = gorc_rt_cache_slot(e, ip);
  uint32_t w;
  if (gorc_rt_cache_tag_matches(e, ip) && gorc_rt_walk_checked(wm, other))
    w = (uint32_t)e;
  else if (!(w = word_of_other(wm, ip, &other)))
    return 0;
  *module_slot = other;
  *slot_key = gorc_rt_cache_slot_key(other);
  return w;
}

/* The CFA of a frame with fast word W and sp SP (fp in FP) on the stack
   [LO, HI), into *CFA: FAST_ON, FAST_END at the outermost frame, or
   FAST_SLOW when the loop may not step it.  */
static inline __attribute__((always_inline)) enum fast_stop
word_cfa(uint32_t w, uint64_t sp, struct lazy_fp *fp, uint64_t lo, uint64_t hi, uint64_t *cfa)
{
  if (__builtin_expect(!(w & CAREFUL_BITS), 1)) {
    /* > sp and aligned: the offset is 8..16376, a multiple of 8 */
    *cfa = sp + gorc_rt_w_off(w);
    return __builtin_expect(*cfa > hi, 0) ? FAST_SLOW : FAST_ON;
  }
  if (w & GORC_RT_W_END)
    return FAST_END;
  *cfa = (w & GORC_RT_W_CFA_BP ? fp_value(fp) : sp) + gorc_rt_w_off(w);
  return gorc_rt_w_frame_ok(w, *cfa, sp, lo, hi) ? FAST_ON : FAST_SLOW;
}

/* The inner loop ended with STOP at (IP, SP, FP), having stored up to
   OUT: the outermost frame's 0 taken back, the run written as the memo
   unless the memo took it to its end (TOOK_ALL), the registers left in
   R.  */
static inline __attribute__((always_inline)) enum fast_stop
loop_end(struct walk_regs *r, uint64_t ip, uint64_t sp, struct lazy_fp *fp, void **out,
         enum fast_stop stop, int took_all, struct gorc_rt_walk_modules *wm,
         struct gorc_rt_memo_use *mu, unsigned *slot, unsigned module_slot)
{
  if (ip == 0) {
    /* The outermost frame's 0, stored: not an address.  */
    out--;
    stop = FAST_END;
  }
  if (mu->memo && stop != FAST_SLOW && !took_all) {
    struct gorc_rt_memo_run run = { r->ip, r->sp, r->bp, r->out, (unsigned)(out - r->out),
                                    stop == FAST_END, r->lo, r->hi, wm };
    gorc_rt_memo_record(mu, &run);
  }
  r->ip = ip;
  r->sp = sp;
  r->bp = fp_value(fp);
  r->out = out;
  *slot = module_slot;
  return stop;
}

/* The inner loop (see above).  The common frame (CFA = sp + off) costs
   a load of its cache entry, one compare of the entry's key, one test of
   its word, the CFA's bound, the load of the return address and, when
   the frame saved fp, a note of where.  */
static inline __attribute__((always_inline)) enum fast_stop
fast_loop(struct walk_regs *r, struct gorc_rt_walk_modules *wm, unsigned *slot,
          struct gorc_rt_memo_use *mu)
{
  uint64_t ip = r->ip, sp = r->sp;
  struct lazy_fp fp = { r->bp, 0, 0 };
  void **out = r->out, **const end = r->end;
  const uint64_t hi = r->hi, lo = r->lo;
  unsigned module_slot = *slot;
  uint64_t slot_key = gorc_rt_cache_slot_key(module_slot);
  enum fast_stop stop = FAST_MAX;
  /* The memo (memo.h) is looked at once sp reaches watch; took_all: it
     took the walk to its end, and writing the walk as the memo would
     change nothing.  */
  uint64_t watch = gorc_rt_memo_watch(mu);
  int took_all = 0;

  while (out < end) {
    if (__builtin_expect(sp >= watch, 0)) {
      struct gorc_rt_memo_exit x;
      long got = gorc_rt_memo_take(mu, ip, sp, fp_value(&fp), lo, hi, out, end,
                                   (unsigned)(out - r->out), &watch, &x);
      if (got >= 0) {
        out += got;
        if (x.how != GORC_RT_MEMO_GO_ON) {
          took_all = x.same;
          stop = x.how == GORC_RT_MEMO_AT_END ? FAST_END : FAST_MAX;
          break;
        }
        ip = x.ip;
        sp = x.sp;
        fp = (struct lazy_fp){ x.fp, 0, 0 };
        continue;
      }
    }
    uint64_t e = gorc_rt_cache_entry(ip), cfa, ra;
    uint32_t w = (uint32_t)e;   /* the word's fields ignore the key's bits above it */
    if (__builtin_expect((e >> GORC_RT_CACHE_KEY_SHIFT) != gorc_rt_cache_key_of(slot_key, ip),
                         0)) {
      if (!(w = other_module_word(wm, e, ip, &module_slot, &slot_key))) {
        stop = FAST_SLOW;
        break;
      }
    } else if (GORC_RT_CACHE_EMPTY_MAY_MATCH && __builtin_expect(e == 0, 0)) {
      /* An empty entry's key matched: PC lies just below 2^VA_BITS
         (lookup.h), where this machine may have code.  */
      stop = FAST_SLOW;
      break;
    }
    enum fast_stop how = word_cfa(w, sp, &fp, lo, hi, &cfa);
    if (how != FAST_ON) {
      stop = how;
      break;
    }
    /* A return address of 0 (the outermost frame) is stored and found
       at the next lookup, in word_of_other: one test less per frame.  */
    ra = GORC_RT_LOAD_STACK(cfa - gorc_rt_w_ra8(w));
    if (w & GORC_RT_W_RA_SIGNED)
      ra = gorc_rt_strip_ra(ra);
    fp_saved(&fp, w, cfa);
    int recursion = ra == ip && !(w & GORC_RT_W_CFA_BP);
    ip = ra;
    sp = cfa;
    *out++ = (void *)(uintptr_t)ra;
    if (__builtin_expect(recursion, 0)) {
      struct loop_regs l = { ip, sp, fp, out };
      stop = run_frames(&l, w, hi, end);
      ip = l.ip, sp = l.sp, fp = l.fp, out = l.out;
      if (stop != FAST_MAX)
        break;
    }
  }
  return loop_end(r, ip, sp, &fp, out, stop, took_all, wm, mu, slot, module_slot);
}

/* A walk that stopped at MAX stored its last return address RA (its
   module's slot SLOT, if the walk knows it) without looking it up: is it
   code?  Asked as a step from it would: its state (into the PC cache, so
   that the next walk from there finds it), else the module's executable
   segments.  Out of line: the walk's calls know which registers it
   uses.  */
static __attribute__((noinline)) int last_is_code(struct gorc_rt_walk_modules *wm, unsigned slot,
                                                  uint64_t ra)
{
  struct gorc_rt_module m;
  return gorc_rt_cache_word_of(slot, ra) != 0 || gorc_rt_word(wm, ra, &slot) != 0
         || (gorc_rt_module_find(ra - 1, &m) == 0 && gorc_rt_module_has_code(&m, ra - 1, 1));
}

/* The flags of a cursor after the inner loop stepped frames: aux is not
   known, and only because the loop did not follow it.  */
static uint64_t aux_skipped(uint64_t flags)
{
  if (!GORC_STEP_HAS_AUX)
    return flags;
  return (flags & ~(uint64_t)F_AUX_KNOWN) | F_AUX_SKIPPED;
}

/* The general step of an interrupted frame (its ip looked up itself),
   with its state from the PC cache when a fast word is there (the entry
   of ip + 1 holds the state of ip: lookup.h): every sample a profiler
   takes starts with such a frame, mostly at an instruction sampled
   before.  A word says nothing of aux, so the frames after it are
   stepped as after the inner loop (F_AUX_SKIPPED: a rule that needs aux
   makes the walk start again without words).  On a machine whose vDSO
   describes its signal trampoline (aarch64), the general step alone:
   it tells the trampoline apart by its module.  */
static int interrupted_step(struct gorc_cursor *c, struct gorc_rt_walk_modules *wm)
{
  struct gorc_state st;
  unsigned slot;
  uint32_t w = GORC_RT_SIGRETURN_VDSO_CFI ? 0 : gorc_rt_word_cached(wm, c->ip + 1, &slot);
  if (!w || (cstate(c)->frames >= GORC_MAX_FRAMES))
    return gorc_rt_cursor_step(c);
  gorc_rt_word_state(w, &st);
  int rc = gorc_rt_step_by_state(c, &st);
  if (rc > 0)
    cstate(c)->flags = aux_skipped(cstate(c)->flags);
  return rc;
}

/* How walk_on takes frames: the inner loop first, or one general step
   first (the loop just stopped here); and the general step alone (no
   inner loop, no cached state of an interrupted frame) for the frames
   before the walk's frame STEPS_UNTIL, when the walk starts again after
   WALK_AGAIN up to the frame that needed aux.  */
struct walk_mode {
  int loop_first;
  unsigned steps_until;
};

/* Go on walking C, whose ip is ips[N - 1], up to MAX addresses: fast
   frames in the inner loop; anything else (signal frames, DRAP rules, a
   lost fp, errors, the first frame of a signal context) through
   gorc_rt_cursor_step, which decides it exactly as for one frame (an
   interrupted frame through interrupted_step, with a cached state where
   there is one).
   Returns the step's last result (1: stopped at MAX, 0: the outermost
   frame, -enum gorc_error or -WALK_AGAIN) and stores the number of
   addresses in *COUNT.  A return address that is no code (the step says
   so, or the walk stopped at MAX right after it) is not kept.  */
static int walk_on(struct gorc_cursor *c, void **ips, int n, int max, struct walk_mode mode,
                   struct gorc_rt_walk_modules *wm, unsigned *slot,
                   struct gorc_rt_memo_use *mu, int *count)
{
  const uint64_t slow = F_REGS | F_NOADJ | F_BP_UNKNOWN | F_END;
  int loop_next = mode.loop_first;
  int rc = 1;
  while (n < max) {
    uint64_t flags = cstate(c)->flags;
    uint64_t sp = c->sp, lo, hi;
    int words = cstate(c)->frames >= mode.steps_until;
    /* The stack the inner loop reads: the one sp is on.  */
    if (in_range(sp, cstate(c)->lo, cstate(c)->hi)) {
      lo = cstate(c)->lo;
      hi = cstate(c)->hi;
    } else {
      lo = cstate(c)->alo;
      hi = cstate(c)->ahi;
    }
    if (loop_next && words && !(flags & slow) && !(sp & 7) && sp - BELOW_SP >= lo && sp < hi) {
      struct walk_regs r = { c->ip, sp, c->bp, lo, hi, ips + n, ips + max };
      enum fast_stop stop = fast_loop(&r, wm, slot, mu);
      int stepped = (int)(r.out - (ips + n));
      c->ip = r.ip;
      c->sp = r.sp;
      c->bp = r.bp;
      if (stepped)
        flags = aux_skipped(flags);
      cstate(c)->flags = stop == FAST_END ? flags | F_END : flags;
      cstate(c)->frames += (unsigned)stepped;
      n += stepped;
      if (stop == FAST_END) {
        rc = 0;
        break;
      }
      if (n >= max)
        break;
    }
    loop_next = 1;
    if (words && (cstate(c)->flags & (F_NOADJ | F_END)) == F_NOADJ)
      rc = interrupted_step(c, wm);
    else
      rc = gorc_rt_cursor_step(c);
    if (rc <= 0) {
      if (rc == -GORC_EBADFRAME && n > 1 && (cstate(c)->flags & F_NOT_CODE))
        n--;
      break;
    }
    ips[n++] = (void *)(uintptr_t)c->ip;
  }
  if (rc == 1 && n > 1 && !(cstate(c)->flags & F_NOADJ)
      && !last_is_code(wm, *slot, (uint64_t)(uintptr_t)ips[n - 1])) {
    n--;
    rc = -GORC_EBADFRAME;
  }
  *count = n;
  return rc;
}

/* The walk from START again after walk_on returned -WALK_AGAIN, leaving
   C at the frame that needed aux: with the general step alone up to that
   frame, then as before; again while a later frame needs aux (each time
   further: the frames before are stepped exactly).  */
static int walk_again(struct gorc_cursor *c, const struct gorc_cursor *start, void **ips,
                      int max, struct gorc_rt_walk_modules *wm, unsigned *slot,
                      struct gorc_rt_memo_use *mu, int *count)
{
  struct walk_mode mode = { 1, 0 };
  int rc = -WALK_AGAIN;
  while (rc == -WALK_AGAIN) {
    unsigned again_at = cstate(c)->frames;
    mode.steps_until = again_at >= mode.steps_until ? again_at + 1 : UINT32_MAX;
    *c = *start;
    rc = walk_on(c, ips, 1, max, mode, wm, slot, mu, count);
  }
  return rc;
}

/* Ready C, where gorc_rt_walk stopped at MAX, for the next part of a
   walk deeper than the general step's limit (GORC_MAX_FRAMES; the crash
   handler walks a deep recursion a part at a time): the frame count
   restarts.  Every step still moves sp up, so the walk ends.  aux that
   the inner loop skipped stays unknown: a rule that needs it ends the
   walk (walking this part again would not find it either).  */
void gorc_rt_cursor_next_part(struct gorc_cursor *c)
{
  cstate(c)->frames = 0;
  cstate(c)->flags &= ~(uint64_t)F_AUX_SKIPPED;
}

int gorc_rt_walk(struct gorc_cursor *c, void **ips, int max, int *count)
{
  struct gorc_rt_walk_modules wm;
  struct gorc_rt_memo_use mu;
  if (max <= 0) {
    *count = 0;
    return 1;
  }
  struct gorc_cursor start = *c;
  unsigned slot = gorc_rt_walk_modules_init(&wm);
  gorc_rt_memo_begin(&mu);
  ips[0] = (void *)(uintptr_t)c->ip;
  int rc = walk_on(c, ips, 1, max, (struct walk_mode){ 1, 0 }, &wm, &slot, &mu, count);
  if (rc == -WALK_AGAIN)
    rc = walk_again(c, &start, ips, max, &wm, &slot, &mu, count);
  return rc;
}

/* gorc_backtrace's walk, from its caller's registers.  The common case,
   the main thread on its own stack, goes straight into the inner loop;
   the cursor is set up only for what the inner loop leaves.  */
int gorc_rt_backtrace_walk(uint64_t ip, uint64_t sp, uint64_t bp, void **ips, int max,
                           int *count)
{
  struct gorc_cursor c;
  struct gorc_rt_walk_modules wm;
  struct gorc_rt_memo_use mu;
  uint64_t lo = (sp - BELOW_SP) & ~(uint64_t)7, hi = gorc_rt_main_hi;
  if (max <= 1 || !gorc_rt_main_self_known
      || (uint64_t)(uintptr_t)__builtin_thread_pointer() != gorc_rt_main_self
      || (sp & 7) || sp < gorc_rt_main_lo || sp >= hi) {
    gorc_rt_cursor_start(&c, ip, sp, bp, NULL);
    return gorc_rt_walk(&c, ips, max, count);
  }
  unsigned slot = gorc_rt_walk_modules_init(&wm);
  gorc_rt_memo_begin(&mu);
  ips[0] = (void *)(uintptr_t)ip;
  struct walk_regs r = { ip, sp, bp, lo, hi, ips + 1, ips + max };
  enum fast_stop stop = fast_loop(&r, &wm, &slot, &mu);
  int n = (int)(r.out - ips);
  if (stop == FAST_END) {
    *count = n;
    return 0;
  }
  if (stop == FAST_MAX) {
    if (!last_is_code(&wm, slot, (uint64_t)(uintptr_t)ips[n - 1])) {
      *count = n - 1;
      return -GORC_EBADFRAME;
    }
    *count = n;
    return 1;
  }
  /* What the inner loop left: through the cursor, from the general step
     on.  */
  gorc_rt_cursor_start(&c, r.ip, r.sp, r.bp, NULL);
  if (n > 1)
    cstate(&c)->flags = aux_skipped(cstate(&c)->flags);
  cstate(&c)->frames = (unsigned)(n - 1);
  int rc = walk_on(&c, ips, n, max, (struct walk_mode){ 0, 0 }, &wm, &slot, &mu, count);
  if (rc == -WALK_AGAIN) {
    struct gorc_cursor start;
    gorc_rt_cursor_start(&start, ip, sp, bp, NULL);
    rc = walk_again(&c, &start, ips, max, &wm, &slot, &mu, count);
  }
  return rc;
}
