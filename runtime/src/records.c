/* libgorc: the state of an address from a module's gorc records, read in
   place: bisect gorc_unwind_index for the range, decode its body up to
   the address.  Async-signal-safe, no allocation; every read is inside
   the sections the module's note names (module.c checked that they are
   loaded).  */

#include "gorc.h"
#include "module.h"

static uint64_t entry_start(uint64_t entry)
{
  return gorc_index_start((const uint8_t *)(uintptr_t)entry, entry);
}

/* The last index entry whose start is <= PC, or 0 when there is none
   (entries are 8-byte records at nonzero addresses).  */
static uint64_t last_at_or_below(const struct gorc_rt_module *m, uint64_t pc)
{
  uint64_t lo = 0, hi = (m->index_hi - m->index_lo) / GORC_INDEX_ENTRY_SIZE, best = 0;
  if (m->records == GORC_RT_RECORDS_SORTED) {
    while (lo < hi) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (entry_start(m->index_lo + mid * GORC_INDEX_ENTRY_SIZE) <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo ? m->index_lo + (lo - 1) * GORC_INDEX_ENTRY_SIZE : 0;
  }
  /* Not sorted (ld -r): the greatest start <= PC, by a scan.  */
  uint64_t best_start = 0;
  for (uint64_t e = m->index_lo; e < m->index_hi; e += GORC_INDEX_ENTRY_SIZE) {
    uint64_t start = entry_start(e);
    if (start <= pc && (!best || start >= best_start)) {
      best = e;
      best_start = start;
    }
  }
  return best;
}

/* Decode the range of index entry E up to PC.  Returns 1 with *S, 0 when
   the range ends at or before PC, -GORC_ECORRUPT when its body is
   malformed or the range is not inside M's code.  */
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
    if (ent.state.cfa_kind == GORC_CFA_END)
      break;
    if (ent.addr <= pc) {
      *s = ent.state;
      found = 1;
    }
  }
  if (rc < 0)
    return -GORC_ECORRUPT;
  if (pc >= ent.addr || !found)
    return 0;
  /* A range must lie in one executable segment: a corrupt start must not
     claim another module's code (or none).  */
  if (!gorc_rt_module_has_code(m, start, ent.addr - start))
    return -GORC_ECORRUPT;
  return 1;
}

int gorc_rt_records_state(const struct gorc_rt_module *m, uint64_t pc, struct gorc_state *s)
{
  if (m->records != GORC_RT_RECORDS_SORTED && m->records != GORC_RT_RECORDS_UNSORTED)
    return 0;
  uint64_t e = last_at_or_below(m, pc);
  if (!e)
    return 0;
  /* Ranges that start where this one does come before it in a sorted
     index (an empty function next to its neighbour: one of them is the
     real range); any of them may cover PC.  */
  uint64_t start = entry_start(e);
  for (; e >= m->index_lo && entry_start(e) == start; e -= GORC_INDEX_ENTRY_SIZE) {
    int rc = range_state(m, e, pc, s);
    if (rc != 0 || m->records == GORC_RT_RECORDS_UNSORTED)
      return rc;
  }
  return 0;
}
