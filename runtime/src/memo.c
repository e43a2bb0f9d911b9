/* libgorc: the walk memo (memo.h).  Async-signal-safe: no allocation, no
   lock; one compare-and-swap to rewrite a memo.  */

#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "internal.h"
#include "memo.h"

struct gorc_rt_memo gorc_rt_memos[1u << GORC_RT_MEMO_BITS];
int gorc_rt_memo_off;

__attribute__((constructor)) static void memo_setting(void)
{
  const char *e = getenv("GORC_WALK_MEMO");
  gorc_rt_memo_off = e && strcmp(e, "0") == 0;
}

/* A memo is read while another walk may rewrite it (the sequence number
   tells afterwards): each field once, as it is.  */
#define READ(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static unsigned memo_states(const struct gorc_rt_memo *m)
{
  unsigned n = READ(m->states);
  return n > GORC_RT_MEMO_STATES ? GORC_RT_MEMO_STATES : n;
}

/* The state of the memo (N states) equal to (IP, SP), or -1; *WATCH gets
   the next sp worth a look.  */
static int meet(struct gorc_rt_memo_use *mu, unsigned n, uint64_t ip, uint64_t sp,
                uint64_t *watch)
{
  const struct gorc_rt_memo *m = mu->memo;
  unsigned i = mu->next;
  while (i < n && READ(m->sp[i]) < sp)
    i++;
  int met = -1;
  if (i < n && READ(m->sp[i]) == sp) {
    if (READ(m->ip[i]) == ip)
      met = (int)i;
    i++;
  }
  mu->next = i;
  *watch = i < n ? READ(m->sp[i]) : GORC_RT_MEMO_NO_WATCH;
  return met;
}

/* Is check C's word unchanged on the stack [LO, LO + SPAN + 8)?  Its slot
   is tested against the bounds before it is read: a memo rewritten
   meanwhile may name anything.  (Plain reads of the memo, where READ
   would keep the compiler from folding them into the compare: what they
   read is kept only if the sequence number did not change.)  */
static inline int word_unchanged(const struct gorc_rt_memo_check *c, uint64_t lo,
                                 uint64_t span)
{
  uint64_t above_lo = c->slot - lo;
  return above_lo <= span && GORC_RT_LOAD_STACK(lo + above_lo) == c->saved;
}

/* Are the words the memo's checks FIRST up to LAST name unchanged on the
   stack [LO, LO + SPAN + 8)?  Four a turn: the loop's own instructions
   are a good part of a check's.  */
static int words_unchanged(const struct gorc_rt_memo *m, unsigned first, unsigned last,
                           uint64_t lo, uint64_t span)
{
  if (first > last || last > 2 * GORC_RT_MEMO_STATES)
    return 0;
  const struct gorc_rt_memo_check *c = &m->check[first], *end = &m->check[last];
  for (; c + 4 <= end; c += 4)
    if (!word_unchanged(c, lo, span) || !word_unchanged(c + 1, lo, span)
        || !word_unchanged(c + 2, lo, span) || !word_unchanged(c + 3, lo, span))
      return 0;
  for (; c < end; c++)
    if (!word_unchanged(c, lo, span))
      return 0;
  return 1;
}

/* Follow the memo (N states) from its state K (gorc_rt_memo_take).  */
static long follow(struct gorc_rt_memo_use *mu, unsigned n, unsigned k, uint64_t fp,
                   uint64_t lo, uint64_t hi, void **out, void **end, unsigned run_state,
                   struct gorc_rt_memo_exit *x)
{
  const struct gorc_rt_memo *m = mu->memo;
  unsigned how = READ(m->end);
  if (how > GORC_RT_MEMO_END_ZERO || (how == GORC_RT_MEMO_END_ZERO && n < k + 2))
    return -1;
  if (READ(m->needs_fp[k]) && READ(m->fp[k]) != fp)
    return -1;
  /* The last state whose ip the walk stores; where a zero ends the memo,
     the step to it is checked too (the walk ends only if the outermost
     frame still returns to 0).  */
  unsigned last_out = how == GORC_RT_MEMO_END_ZERO ? n - 2 : n - 1;
  unsigned stop = last_out;
  if ((uint64_t)(end - out) < stop - k)
    stop = k + (unsigned)(end - out);
  unsigned checked = stop == last_out && how == GORC_RT_MEMO_END_ZERO ? n - 1 : stop;
  if (!words_unchanged(m, READ(m->first_check[k]), READ(m->first_check[checked]), lo,
                       hi - lo - 8))
    return -1;
  /* A copy of a memo being rewritten is not kept: the number is checked
     below.  */
  memcpy(out, &m->ip[k + 1], (stop - k) * sizeof m->ip[0]);
  uint64_t last_sp = READ(m->sp[stop]), go_ip = 0, go_fp = 0;
  int go_on = stop == last_out && how == GORC_RT_MEMO_OPEN && out + (stop - k) != end;
  if (go_on) {
    go_ip = READ(m->ip[stop]);
    go_fp = READ(m->fp[stop]);
  }
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&mu->memo->seq, memory_order_relaxed) != mu->seq)
    return -1;
  /* The inner loop steps to no CFA above hi: the last state's sp is the
     highest.  */
  if (last_sp > hi)
    return -1;
  if (go_on) {
    x->how = GORC_RT_MEMO_GO_ON;
    x->ip = go_ip;
    x->sp = last_sp;
    x->fp = go_fp;
  } else {
    x->how = stop < last_out || how == GORC_RT_MEMO_OPEN ? GORC_RT_MEMO_AT_MAX
                                                         : GORC_RT_MEMO_AT_END;
    /* Writing this walk as the memo would change nothing: it started at
       the memo's first state, or the memo keeps only the outer states of
       its run (cut) and this walk met it at the first of them.  Else the
       memo is rewritten from where the walk met it (write_met_run).  */
    x->same = run_state == 0 || (k == 0 && READ(m->cut));
    mu->met_state = run_state;
    mu->met_at = k;
  }
  return (long)(stop - k);
}

long gorc_rt_memo_take(struct gorc_rt_memo_use *mu, uint64_t ip, uint64_t sp, uint64_t fp,
                       uint64_t lo, uint64_t hi, void **out, void **end, unsigned run_state,
                       uint64_t *watch, struct gorc_rt_memo_exit *x)
{
  unsigned n = memo_states(mu->memo);
  int k = meet(mu, n, ip, sp, watch);
  if (k < 0)
    return -1;
  /* Followed, or stale: either way this run looks no further.  */
  *watch = GORC_RT_MEMO_NO_WATCH;
  return follow(mu, n, (unsigned)k, fp, lo, hi, out, end, run_state, x);
}

/* ---- writing a memo ---- */

/* The fast word of return address IP, and whether its module is
   permanent: from the PC cache, or gorc_rt_word when another address
   took the entry since the loop read it (two hot return addresses that
   share an entry evict each other on every walk; the memo is what spares
   such walks the loop).  0 when the state is not a fast word.  */
static uint32_t replay_word(struct gorc_rt_walk_modules *wm, uint64_t ip, int *permanent)
{
  uint64_t e = gorc_rt_cache_entry(ip);
  unsigned slot;
  uint32_t w;
  if (gorc_rt_cache_tag_matches(e, ip)) {
    slot = gorc_rt_cache_slot(e, ip);
    w = (uint32_t)(e & GORC_RT_CACHE_WORD_MASK);
  } else {
    w = gorc_rt_word(wm, ip, &slot);
  }
  *permanent = gorc_rt_slot_permanent(slot);
  return w;
}

/* A state of a run being stepped again, and the words its step read
   (fp_check.slot 0: the step read no fp).  */
struct replayed {
  uint64_t ip, sp, fp;
  uint32_t word;
  struct gorc_rt_memo_check ra_check, fp_check;
};

/* Step state S (its word set) as the inner loop does, on the stack
   [LO, HI): fills S's checks and *NEXT.  0 when the loop could not have
   stepped it.  fp is read at once where the loop reads it lazily: the
   same value wherever the walk uses it.  */
static int step(struct replayed *s, struct replayed *next, uint64_t lo, uint64_t hi)
{
  uint32_t w = s->word;
  uint64_t cfa = (w & GORC_RT_W_CFA_BP ? s->fp : s->sp) + gorc_rt_w_off(w);
  if (!gorc_rt_w_frame_ok(w, cfa, s->sp, lo, hi))
    return 0;
  s->ra_check.slot = cfa - gorc_rt_w_ra8(w);
  s->ra_check.saved = GORC_RT_LOAD_STACK(s->ra_check.slot);
  memset(next, 0, sizeof *next);
  next->ip = w & GORC_RT_W_RA_SIGNED ? gorc_rt_strip_ra(s->ra_check.saved) : s->ra_check.saved;
  next->sp = cfa;
  next->fp = s->fp;
  s->fp_check.slot = s->fp_check.saved = 0;
  if (gorc_rt_w_bp8(w)) {
    s->fp_check.slot = cfa - gorc_rt_w_bp8(w);
    s->fp_check.saved = GORC_RT_LOAD_STACK(s->fp_check.slot);
    next->fp = s->fp_check.saved;
  }
  return 1;
}

/* Append S to M's states (N of them so far), its checks as the pair
   check[2N], check[2N + 1] until pack_checks() packs them.  */
static void keep(struct gorc_rt_memo *m, unsigned *n, const struct replayed *s)
{
  unsigned i = (*n)++;
  m->ip[i] = s->ip;
  m->sp[i] = s->sp;
  m->fp[i] = s->fp;
  m->word[i] = s->word;
  m->check[2 * i] = s->ra_check;
  m->check[2 * i + 1] = s->fp_check;
}

/* Move M's states FROM .. FROM + N - 1 to TO .. TO + N - 1, with the
   first_check of the state after them (their checks stay where they
   are).  */
static void move_states(struct gorc_rt_memo *m, unsigned to, unsigned from, unsigned n)
{
  if (to == from || n == 0)
    return;
  memmove(&m->ip[to], &m->ip[from], n * sizeof m->ip[0]);
  memmove(&m->sp[to], &m->sp[from], n * sizeof m->sp[0]);
  memmove(&m->fp[to], &m->fp[from], n * sizeof m->fp[0]);
  memmove(&m->word[to], &m->word[from], n * sizeof m->word[0]);
  memmove(&m->needs_fp[to], &m->needs_fp[from], n * sizeof m->needs_fp[0]);
  memmove(&m->first_check[to], &m->first_check[from], (n + 1) * sizeof m->first_check[0]);
}

/* The states 0 .. NEW - 1 of M are new, their checks still pairs, and
   the walk on from state NEW reads its fp when NEEDS: which of them read
   fp after their step (from the outermost in), so which fp slots a walk
   must check; their checks packed in state order from check[0].
   Returns where they end.  */
static unsigned pack_checks(struct gorc_rt_memo *m, unsigned new, int needs)
{
  for (unsigned i = new; i-- > 0;) {
    int saves = gorc_rt_w_bp8(m->word[i]) != 0;
    if (!(saves && needs))
      m->check[2 * i + 1].slot = 0;
    needs = (m->word[i] & GORC_RT_W_CFA_BP) || (!saves && needs);
    m->needs_fp[i] = (uint8_t)needs;
  }
  unsigned c = 0;
  for (unsigned i = 0; i < new; i++) {
    struct gorc_rt_memo_check ra = m->check[2 * i], fp = m->check[2 * i + 1];
    m->first_check[i] = (uint16_t)c;
    m->check[c++] = ra;
    if (fp.slot)
      m->check[c++] = fp;
  }
  return c;
}

/* Step the run's states 0 .. UPTO - 1 again into M, keeping those from
   SKIP on (and only those after the last frame of a module that may be
   unloaded) at *N on; *S gets state UPTO.  0 when the run cannot be
   stepped again to the same addresses (a cache entry evicted meanwhile,
   or a frame the loop would not step).  */
static int replay(struct gorc_rt_memo *m, const struct gorc_rt_memo_run *run, unsigned upto,
                  unsigned skip, unsigned *n, struct replayed *s)
{
  struct replayed next;
  memset(s, 0, sizeof *s);
  s->ip = run->ip;
  s->sp = run->sp;
  s->fp = run->fp;
  for (unsigned i = 0; i < upto; i++) {
    int permanent = 0;
    if (!(s->word = replay_word(run->wm, s->ip, &permanent)) || (s->word & GORC_RT_W_END)
        || !step(s, &next, run->lo, run->hi) || next.ip != (uint64_t)(uintptr_t)run->ips[i])
      return 0;
    if (!permanent) {
      *n = 0;
      m->cut = 1;
    } else if (i >= skip) {
      keep(m, n, s);
    }
    *s = next;
  }
  return 1;
}

/* Write RUN as the whole memo; returns the number of states.  */
static unsigned write_run(struct gorc_rt_memo *m, const struct gorc_rt_memo_run *run)
{
  /* A run has at most count + 2 states (the zero past the last address);
     of a longer one than the memo holds, the outermost are kept: they
     are the ones walks share.  */
  unsigned skip = run->count + 2 > GORC_RT_MEMO_STATES ? run->count + 2 - GORC_RT_MEMO_STATES : 0;
  unsigned n = 0;
  struct replayed s, next;
  m->cut = skip > 0;
  if (!replay(m, run, run->count, skip, &n, &s))
    return 0;
  m->end = GORC_RT_MEMO_OPEN;
  if (run->complete) {
    int permanent = 0;
    if (!(s.word = replay_word(run->wm, s.ip, &permanent)) || !permanent)
      return 0;
    m->end = GORC_RT_MEMO_END;
    if (!(s.word & GORC_RT_W_END)) {
      /* The outermost frame's return address 0.  */
      if (!step(&s, &next, run->lo, run->hi) || next.ip != 0)
        return 0;
      keep(m, &n, &s);
      s = next;
      m->end = GORC_RT_MEMO_END_ZERO;
    }
  }
  keep(m, &n, &s);
  /* A memo that ends open reads its last state's fp: the inner loop
     goes on from there.  */
  m->needs_fp[n - 1] = m->end == GORC_RT_MEMO_OPEN;
  m->first_check[n - 1] = m->first_check[n] = (uint16_t)pack_checks(m, n - 1, m->needs_fp[n - 1]);
  return n;
}

/* Write the states of RUN before the one where it met the memo in front
   of the memo's states from there on; returns the number of states.
   The kept states' checks wait at the end of check[] while the new
   states' pairs are written at its start (at most 2 per state, and the
   states fit: so do the checks).  */
static unsigned write_met_run(struct gorc_rt_memo *m, const struct gorc_rt_memo_use *mu,
                              const struct gorc_rt_memo_run *run)
{
  unsigned old_n = memo_states(m), k = mu->met_at, j = mu->met_state;
  if (k >= old_n)
    return 0;
  unsigned kept = old_n - k, room = GORC_RT_MEMO_STATES - kept;
  unsigned skip = j > room ? j - room : 0, at = j - skip, n = 0;
  unsigned kept_from = m->first_check[k], kept_checks = m->first_check[old_n] - kept_from;
  unsigned parked = 2 * GORC_RT_MEMO_STATES - kept_checks;
  struct replayed s;
  memmove(&m->check[parked], &m->check[kept_from], kept_checks * sizeof m->check[0]);
  move_states(m, at, k, kept);
  m->cut = skip > 0;
  if (!replay(m, run, j, skip, &n, &s) || s.ip != m->ip[at] || s.sp != m->sp[at])
    return 0;
  /* A module that may be unloaded dropped new states: close the gap.  */
  move_states(m, n, at, kept);
  unsigned c = pack_checks(m, n, m->needs_fp[n]);
  memmove(&m->check[c], &m->check[parked], kept_checks * sizeof m->check[0]);
  for (unsigned i = n; i <= n + kept; i++)
    m->first_check[i] = (uint16_t)(m->first_check[i] - kept_from + c);
  return n + kept;
}

void gorc_rt_memo_record(const struct gorc_rt_memo_use *mu, const struct gorc_rt_memo_run *run)
{
  struct gorc_rt_memo *m = mu->memo;
  uint32_t seq = mu->seq;
  if (!atomic_compare_exchange_strong_explicit(&m->seq, &seq, seq + 1, memory_order_acquire,
                                               memory_order_relaxed))
    return;
  /* The odd number is seen before any of the rewrite.  */
  atomic_thread_fence(memory_order_release);
  m->states = mu->met_state ? write_met_run(m, mu, run) : write_run(m, run);
  atomic_store_explicit(&m->seq, seq + 2, memory_order_release);
}
