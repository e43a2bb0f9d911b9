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

int gorc_rt_records_state(const struct gorc_rt_module *m, uint64_t pc, struct gorc_state *s)
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
