/* libgorc: the state of an address, and the PC cache (see lookup.h).  */

#include <string.h>
#include "gorc.h"
#include "lookup.h"

struct gorc_rt_cache_entry gorc_rt_cache[GORC_RT_CACHE_SIZE];

uint32_t gorc_rt_fast_word(const struct gorc_state *s)
{
  uint64_t k = 0, j;
  if ((s->cfa_kind != GORC_CFA_SP && s->cfa_kind != GORC_CFA_BP) || s->cfa_off < 8
      || s->cfa_off % 8 || s->cfa_off / 8 > GORC_RT_W_OFF_MASK
      || s->ra_kind != GORC_RA_CFA || s->ra_off != -8)
    return 0;
  if (s->bp_kind == GORC_BP_CFA && s->bp_off < 0 && s->bp_off % 8 == 0
      && -s->bp_off / 8 <= GORC_RT_W_BP_MASK)
    k = (uint64_t)(-s->bp_off / 8);
  else if (s->bp_kind != GORC_BP_SAME)
    return 0;
  if (s->aux_kind == GORC_AUX_SAME)
    j = 0;
  else if (s->aux_kind == GORC_AUX_CFA && s->aux_off < 0 && s->aux_off % 8 == 0
           && -s->aux_off / 8 < GORC_RT_W_RBX_LOST)
    j = (uint64_t)(-s->aux_off / 8);
  else
    j = GORC_RT_W_RBX_LOST;
  return (uint32_t)((s->cfa_kind == GORC_CFA_BP ? GORC_RT_W_CFA_BP : 0)
                    | (uint64_t)(s->cfa_off / 8) << GORC_RT_W_OFF_SHIFT
                    | k << GORC_RT_W_BP_SHIFT | j << GORC_RT_W_RBX_SHIFT);
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

static void cache_put(const struct gorc_rt_module *m, uint64_t pc, uint32_t w)
{
  if (m->slot >= GORC_RT_MODULE_SLOTS || pc >= GORC_RT_CACHE_MAX_PC)
    return;
  struct gorc_rt_cache_entry *e = &gorc_rt_cache[pc & (GORC_RT_CACHE_SIZE - 1)];
  uint64_t key = (pc >> GORC_RT_CACHE_BITS) << GORC_RT_CACHE_TAG_SHIFT
                 | gorc_rt_cache_key(m->slot, m->seq);
  atomic_store_explicit(&e->lo, key | (w & GORC_RT_CACHE_HALF_MASK), memory_order_relaxed);
  atomic_store_explicit(&e->hi, key | (w >> 13), memory_order_relaxed);
}

/* Note that this walk found slot M->slot's module loaded; its key.  */
static uint64_t checked(struct gorc_rt_walk_modules *wm, const struct gorc_rt_module *m)
{
  if (m->slot >= GORC_RT_MODULE_SLOTS)
    return 0;
  wm->checked |= 1ull << m->slot;
  wm->seq[m->slot] = (uint16_t)(m->seq & 0xfff);
  return gorc_rt_cache_key(m->slot, m->seq);
}

/* The key of the entry for PC, if it names a slot this walk has checked
   (checking the slot's module now if it has not), else 0.  */
static uint64_t entry_key(struct gorc_rt_walk_modules *wm, uint64_t pc)
{
  const struct gorc_rt_cache_entry *e = &gorc_rt_cache[pc & (GORC_RT_CACHE_SIZE - 1)];
  uint64_t lo = atomic_load_explicit(&e->lo, memory_order_relaxed);
  unsigned slot = (unsigned)(lo >> GORC_RT_CACHE_SLOT_SHIFT) & (GORC_RT_MODULE_SLOTS - 1);
  uint64_t seq = (lo >> GORC_RT_CACHE_SEQ_SHIFT) & 0xfff;
  struct gorc_rt_module held;
  if (lo == 0 || (lo >> GORC_RT_CACHE_TAG_SHIFT) != (pc >> GORC_RT_CACHE_BITS))
    return 0;
  if (!((wm->checked >> slot) & 1)) {
    if (!gorc_rt_module_still_loaded(slot, pc, &held))
      return 0;
    checked(wm, &held);
  }
  return wm->seq[slot] == seq ? gorc_rt_cache_key(slot, (uint32_t)seq) : 0;
}

uint32_t gorc_rt_word(struct gorc_rt_walk_modules *wm, uint64_t pc, uint64_t *key)
{
  uint32_t w;
  if (pc < GORC_RT_CACHE_MAX_PC && (*key = entry_key(wm, pc)) != 0
      && (w = gorc_rt_cache_word_of(*key, pc)) != 0)
    return w;
  struct gorc_state s;
  struct gorc_rt_module m;
  int has_module;
  if (gorc_rt_state(pc, &s, &m, &has_module) != 1)
    return 0;
  *key = checked(wm, &m);
  w = gorc_rt_fast_word(&s);
  if (w)
    cache_put(&m, pc, w);
  return w;
}

void gorc_rt_cache_forget(void)
{
  for (unsigned i = 0; i < GORC_RT_CACHE_SIZE; i++) {
    atomic_store_explicit(&gorc_rt_cache[i].lo, 0, memory_order_relaxed);
    atomic_store_explicit(&gorc_rt_cache[i].hi, 0, memory_order_relaxed);
  }
}
