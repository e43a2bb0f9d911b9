/* libgorc: the state of an address in its module, and the PC cache
   (lookup.h).

   The state is read in place, no allocation, no lock: the module's gorc
   records first (bisect gorc_unwind_index for the range, decode its body
   up to the address), else its .eh_frame (the interpreter of
   include/gorc/eh_frame.h, shared with gorc-prof, over the module's
   loaded segments).  Every read is inside the sections and segments
   module.c found loaded.  */

#include <string.h>
#include "gorc.h"
#include "gorc/eh_frame.h"
#include "lookup.h"

_Atomic uint64_t gorc_rt_cache[GORC_RT_CACHE_SIZE];

/* ---- the state of an address: gorc records ---- */

static uint64_t entry_start(uint64_t entry)
{
  return gorc_index_start((const uint8_t *)(uintptr_t)entry, entry);
}

/* The last index entry whose start is <= PC in a sorted index, or 0 when
   there is none (entries are 8-byte records at nonzero addresses).  */
static uint64_t bisect(const struct gorc_rt_module *m, uint64_t pc)
{
  uint64_t lo = 0, hi = (m->index_hi - m->index_lo) / GORC_INDEX_ENTRY_SIZE;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (entry_start(m->index_lo + mid * GORC_INDEX_ENTRY_SIZE) <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? m->index_lo + (lo - 1) * GORC_INDEX_ENTRY_SIZE : 0;
}

/* The greatest start <= PC in an index that is not sorted (ld -r), by a
   scan that passes over entries whose start is not code of M; 0 when
   there is none.  */
static uint64_t scan_best_start(const struct gorc_rt_module *m, uint64_t pc)
{
  uint64_t best = 0;
  for (uint64_t e = m->index_lo; e < m->index_hi; e += GORC_INDEX_ENTRY_SIZE) {
    uint64_t start = entry_start(e);
    if (start <= pc && start > best && gorc_rt_module_has_code(m, start, 1))
      best = start;
  }
  return best;
}

/* Decode the range of index entry E up to PC: to the first entry past
   PC (a range may cover a run of functions, so its end can be far), or
   its END.  Returns 1 with *S, 0 when the range ends at or before PC or
   PC is in a gap between two of its functions (no records:
   gorc_state_is_gap), -GORC_ECORRUPT when its body up to there is
   malformed or that part of the range is not inside M's code.  */
static int range_state(const struct gorc_rt_module *m, uint64_t e, uint64_t pc,
                       struct gorc_state *s)
{
  uint64_t start = entry_start(e);
  uint64_t body = gorc_index_body((const uint8_t *)(uintptr_t)e, e);
  struct gorc_range r;
  struct gorc_entry ent;
  int found = 0, rc;

  if (body < m->bodies_lo || body >= m->bodies_hi)
    return -GORC_ECORRUPT;
  gorc_range_open(&r, m->machine, start, (const uint8_t *)(uintptr_t)body,
                  (const uint8_t *)(uintptr_t)m->bodies_hi);
  /* Every entry costs at least one byte: the body bounds the loop.  */
  while ((rc = gorc_range_next(&r, &ent)) == 1) {
    if (ent.state.cfa_kind == GORC_CFA_END || ent.addr > pc)
      break;
    *s = ent.state;
    found = 1;
  }
  if (rc < 0)
    return -GORC_ECORRUPT;
  if (pc >= ent.addr || !found || gorc_state_is_gap(s))
    return 0;
  /* A range must lie in one executable segment: a corrupt start must not
     claim another module's code (or none).  Entries never go back, so
     the range reaches ENT at least.  */
  if (!gorc_rt_module_has_code(m, start, ent.addr - start))
    return -GORC_ECORRUPT;
  return 1;
}

/* Of the entries in [FIRST, END) that start at START, the range that
   covers PC: ranges that start at one address (an empty function next to
   its neighbour) may stand in any order, and a bad one must not hide a
   good one.  Returns 1 with *S, else -GORC_ECORRUPT if one of them was
   malformed, else 0.  */
static int ranges_at(const struct gorc_rt_module *m, uint64_t first, uint64_t end,
                     uint64_t start, uint64_t pc, struct gorc_state *s)
{
  int rc = 0;
  for (uint64_t e = first; e < end; e += GORC_INDEX_ENTRY_SIZE) {
    if (entry_start(e) != start)
      continue;
    int one = range_state(m, e, pc, s);
    if (one == 1)
      return 1;
    if (one < 0)
      rc = one;
  }
  return rc;
}

/* The state of PC from M's gorc records: 1 with *S, 0 when no range
   covers PC, -GORC_ECORRUPT when the range that would is malformed (or
   lies outside M's code).  */
static int records_state(const struct gorc_rt_module *m, uint64_t pc, struct gorc_state *s)
{
  if (m->records == GORC_RT_RECORDS_UNSORTED) {
    uint64_t start = scan_best_start(m, pc);
    return start ? ranges_at(m, m->index_lo, m->index_hi, start, pc, s) : 0;
  }
  if (m->records != GORC_RT_RECORDS_SORTED)
    return 0;
  uint64_t last = bisect(m, pc), first = last;
  if (!last)
    return 0;
  /* The run of entries with the last start <= PC ends at LAST.  */
  uint64_t start = entry_start(last);
  while (first > m->index_lo && entry_start(first - GORC_INDEX_ENTRY_SIZE) == start)
    first -= GORC_INDEX_ENTRY_SIZE;
  return ranges_at(m, first, last + GORC_INDEX_ENTRY_SIZE, start, pc, s);
}

/* ---- the state of an address: .eh_frame ---- */

/* The state at PC from the module's .eh_frame (ehframe.h): 1 with *OUT,
   0 when no FDE covers PC (or the module has no search table),
   -GORC_ECORRUPT when the tables are malformed where the lookup went.  */
static int ehframe_state(const struct gorc_rt_ehframe *ef, uint64_t pc, struct gorc_state *out)
{
  struct gorc_eh_frame view = { ef->hdr, ef->hdr_size, ef->lo, ef->hi, GORC_RT_MACHINE, ef->entry };
  int rc = gorc_eh_frame_state(&view, pc, out);
  return rc < 0 ? -GORC_ECORRUPT : rc;
}

int gorc_rt_module_state(const struct gorc_rt_module *m, uint64_t pc, struct gorc_state *s)
{
  int rc = records_state(m, pc, s);
  if (rc == 0 && m->eh.hdr)
    rc = ehframe_state(&m->eh, pc, s);
  /* Nothing covers PC, but the record index has entries that start
     outside the code: one of them was probably PC's range.  */
  if (rc == 0 && m->index_bad_starts)
    return -GORC_ECORRUPT;
  return rc;
}

/* ---- the PC cache and fast words ---- */

/* Is OFF below the CFA a slot the fast word can name (8k or 8j)?  */
static int fast_slot(int64_t off)
{
  return off < 0 && (-off & ~(int64_t)GORC_RT_W_SLOT8_MASK) == 0;
}

/* W with S's return address, saved at CFA - 8j and maybe signed (a
   machine that leaves it in a register at a call); 0 when the slot is
   not one the word can name.  */
static uint32_t ra_fields(const struct gorc_state *s, uint64_t w)
{
  if (!fast_slot(s->ra_off))
    return 0;
  w |= (uint64_t)-s->ra_off << GORC_RT_W_J_SHIFT;
  if (s->ra_signed)
    w |= GORC_RT_W_RA_SIGNED;
  return (uint32_t)w;
}

uint32_t gorc_rt_fast_word(const struct gorc_state *s)
{
  /* The outermost frame, as the general step decides it: a CFA rule it
     can follow (an undefined one may be a signal frame's) and no return
     address.  */
  if (s->ra_kind == GORC_RA_UNDEFINED)
    return s->cfa_kind != GORC_CFA_UNDEFINED && s->cfa_kind != GORC_CFA_END ? GORC_RT_W_END : 0;
  uint64_t w = s->cfa_kind == GORC_CFA_BP ? GORC_RT_W_CFA_BP : 0;
  if ((s->cfa_kind != GORC_CFA_SP && s->cfa_kind != GORC_CFA_BP) || s->cfa_off < 8
      || (s->cfa_off & ~(int64_t)GORC_RT_W_OFF_MASK) || s->ra_kind != GORC_RA_CFA)
    return 0;
  w |= (uint64_t)s->cfa_off;
  if (s->bp_kind == GORC_BP_CFA && fast_slot(s->bp_off))
    w |= (uint64_t)-s->bp_off << GORC_RT_W_BP_SHIFT;
  else if (s->bp_kind != GORC_BP_SAME)
    return 0;
  if (GORC_STEP_RA_IN_REG)
    return ra_fields(s, w);
  return s->ra_off == -8 ? (uint32_t)w : 0;
}

/* Keep W as return address RA's fast word, from module M.  A slot given
   to another module meanwhile (its entries forgotten before this write
   landed) is seen on the second look, and the entry taken back.  */
static void cache_put(const struct gorc_rt_module *m, uint64_t ra, uint32_t w)
{
  if (m->slot >= GORC_RT_MODULE_SLOTS || ra >= GORC_RT_CACHE_MAX_PC)
    return;
  _Atomic uint64_t *e = &gorc_rt_cache[gorc_rt_cache_index(ra)];
  uint64_t v = gorc_rt_cache_make(m->slot, ra, w);
  atomic_store_explicit(e, v, memory_order_relaxed);
  atomic_thread_fence(memory_order_seq_cst);
  if (!gorc_rt_module_slot_holds(m->slot, m->seq))
    atomic_compare_exchange_strong_explicit(e, &v, 0, memory_order_relaxed,
                                            memory_order_relaxed);
}

/* The slot of the cache entry for return address RA, if there is one
   and this walk has checked (or now checks) that its module is still
   loaded; else GORC_RT_NO_SLOT.  */
static unsigned entry_slot(struct gorc_rt_walk_modules *wm, uint64_t ra)
{
  uint64_t e = gorc_rt_cache_entry(ra);
  unsigned slot = gorc_rt_cache_slot(e, ra);
  if (!gorc_rt_cache_tag_matches(e, ra))
    return GORC_RT_NO_SLOT;
  if (!gorc_rt_walk_checked(wm, slot)) {
    if (!gorc_rt_module_slot_current(slot, ra - 1))
      return GORC_RT_NO_SLOT;
    gorc_rt_walk_set_checked(wm, slot);
  }
  return slot;
}

uint32_t gorc_rt_word_cached(struct gorc_rt_walk_modules *wm, uint64_t ra, unsigned *slot)
{
  *slot = entry_slot(wm, ra);
  return *slot == GORC_RT_NO_SLOT ? 0 : gorc_rt_cache_word_of(*slot, ra);
}

uint32_t gorc_rt_cache_keep(const struct gorc_rt_module *m, uint64_t pc,
                            const struct gorc_state *s)
{
  uint32_t w = gorc_rt_fast_word(s);
  if (w)
    cache_put(m, pc + 1, w);
  return w;
}

void gorc_rt_word_state(uint32_t w, struct gorc_state *s)
{
  memset(s, 0, sizeof *s);
  s->aux_kind = GORC_AUX_UNKNOWN;
  if (w & GORC_RT_W_END) {
    s->cfa_kind = GORC_CFA_SP;
    s->ra_kind = GORC_RA_UNDEFINED;
    s->bp_kind = GORC_BP_SAME;
    return;
  }
  s->cfa_kind = w & GORC_RT_W_CFA_BP ? GORC_CFA_BP : GORC_CFA_SP;
  s->cfa_off = (int64_t)gorc_rt_w_off(w);
  s->ra_kind = GORC_RA_CFA;
  s->ra_off = -(int64_t)gorc_rt_w_ra8(w);
  s->ra_signed = (w & GORC_RT_W_RA_SIGNED) != 0;
  s->bp_kind = gorc_rt_w_bp8(w) ? GORC_BP_CFA : GORC_BP_SAME;
  s->bp_off = -(int64_t)gorc_rt_w_bp8(w);
}

void gorc_rt_cache_forget_slot(unsigned slot)
{
  for (unsigned i = 0; i < GORC_RT_CACHE_SIZE; i++) {
    uint64_t e = atomic_load_explicit(&gorc_rt_cache[i], memory_order_relaxed);
    if (e != 0 && gorc_rt_cache_slot(e, gorc_rt_cache_pc(e, i)) == slot)
      atomic_compare_exchange_strong_explicit(&gorc_rt_cache[i], &e, 0, memory_order_relaxed,
                                              memory_order_relaxed);
  }
}
