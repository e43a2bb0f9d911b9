/* libgorc: the state of an address, and the PC cache (see lookup.h).  */

#include <string.h>
#include "gorc.h"
#include "lookup.h"

_Atomic uint64_t gorc_rt_cache[GORC_RT_CACHE_SIZE];

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

int gorc_rt_state(uint64_t pc, struct gorc_state *s, struct gorc_rt_module *m, int *has_module)
{
  *has_module = gorc_rt_module_find(pc, m) == 0;
  if (!*has_module)
    return 0;
  int rc = gorc_rt_records_state(m, pc, s);
  if (rc == 0 && m->eh.hdr)
    rc = gorc_rt_ehframe_state(&m->eh, pc, s);
  /* Nothing covers PC, but the record index has entries that start
     outside the code: one of them was probably PC's range.  */
  if (rc == 0 && m->index_bad_starts)
    return -GORC_ECORRUPT;
  return rc;
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

uint32_t gorc_rt_word(struct gorc_rt_walk_modules *wm, uint64_t ra, unsigned *slot)
{
  uint32_t w = gorc_rt_word_cached(wm, ra, slot);
  if (w)
    return w;
  struct gorc_state s;
  struct gorc_rt_module m;
  int has_module;
  if (gorc_rt_state(ra - 1, &s, &m, &has_module) != 1)
    return 0;
  *slot = m.slot;
  if (m.slot < GORC_RT_MODULE_SLOTS)
    gorc_rt_walk_set_checked(wm, m.slot);   /* found loaded just now */
  return gorc_rt_cache_keep(&m, ra - 1, &s);
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
