/* libgorc's lookup tables, checked address by address: for every module
   registered (this program, libc, ld.so, ...) and every byte it
   covers, the block-table lookup (gorc_rt_view_word, what the walks use)
   must give the word of the entry a plain binary search over the sorted
   entries finds, and that word must decode (fast words to states whose
   fields round-trip, state indices inside the state table).  Also checks
   the layout invariants: entries sorted, dummy first, sentinel last,
   every block word 0, a fast word, or an entry index in range.  */
/* { dg-do run } */
/* { dg-gorc-runtime internal } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include "gorc.h"
#include "internal.h"
#include "support/rt-test.h"

/* The word in effect at OFF by binary search (the reference).  */
static uint32_t reference_word(const struct gorc_rt_view *v, uint32_t off)
{
  const struct gorc_rt_pc_entry *e = v->entries;
  uint32_t lo = 0, hi = v->nentries - 1;   /* e[lo].pc_off <= off < e[hi].pc_off */
  if (off < e[1].pc_off)
    return 0;
  lo = 1;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (e[mid].pc_off <= off)
      lo = mid;
    else
      hi = mid;
  }
  return e[lo].word;
}

int main(void)
{
  void *ips[4];
  gorc_backtrace(ips, 4);            /* libgorc initialised */
  unsigned n = atomic_load(&gorc_rt_n_slots), modules = 0, with_records = 0;
  unsigned long bytes = 0, fast = 0, mixed = 0, blocks_total = 0;
  CHECK(n >= 3, n);
  for (unsigned s = 0; s < n; s++) {
    const struct gorc_rt_module *m = atomic_load(&gorc_rt_slots[s]);
    struct gorc_rt_view v;
    if (!m)
      continue;
    CHECK(gorc_rt_view_load(&v, m) == 0, s);
    modules++;
    with_records += m->records_entries > 0;
    const struct gorc_rt_pc_entry *e = v.entries;
    CHECK(e[0].pc_off == 0 && e[0].word == 0, s);
    CHECK(e[v.nentries - 1].pc_off == UINT32_MAX && e[v.nentries - 1].word == 0, s);
    for (uint32_t i = 2; i + 1 < v.nentries; i++)
      CHECK(e[i - 1].pc_off < e[i].pc_off, i);
    uint64_t nblocks = v.span >> GORC_RT_BLOCK_SHIFT;
    blocks_total += nblocks;
    for (uint64_t b = 0; b < nblocks; b++) {
      uint32_t w = v.blocks[b];
      if (w & GORC_RT_W_FAST)
        fast++;
      else if (w) {
        mixed++;
        CHECK((w >> 1) - 1 + 1 < v.nentries, b);
      }
    }
    for (uint64_t pc = v.lo; pc < v.lo + v.span; pc++) {
      uint32_t off = (uint32_t)(pc - v.base);
      uint32_t want = reference_word(&v, off), got = gorc_rt_view_word(&v, pc);
      if (want != got) {
        fprintf(stderr, "module %u pc %#lx (+%#x): block lookup %#x, binary search %#x\n", s,
                (unsigned long)pc, off, got, want);
        return 1;
      }
      struct gorc_rt_state st;
      if (got) {
        CHECK(gorc_rt_decode_word(&v, got, &st) == 0, off);
        CHECK(st.cfa_kind != GORC_CFA_END, off);
        if (got & GORC_RT_W_FAST) {
          CHECK(st.cfa_kind == GORC_CFA_SP || st.cfa_kind == GORC_CFA_BP, off);
          CHECK(st.cfa_off >= 8 && (st.cfa_off & 7) == 0, off);
          CHECK(st.bp_kind == GORC_BP_SAME || st.bp_kind == GORC_BP_CFA, off);
          /* an rsp-based rbp slot is never below rsp - 128 */
          CHECK(st.cfa_kind != GORC_CFA_SP || st.bp_kind != GORC_BP_CFA
                || st.cfa_off + st.bp_off >= -128, off);
        }
      } else {
        CHECK(gorc_rt_decode_word(&v, got, &st) == -1, off);
      }
      bytes++;
    }
  }
  CHECK(with_records >= 1, with_records);
  printf("table-lookup: %u modules (%u with records), %lu bytes checked; blocks: %lu, "
         "%.1f%% fast, %.1f%% scanned\n", modules, with_records, bytes, blocks_total,
         100.0 * fast / blocks_total, 100.0 * mixed / blocks_total);
  return 0;
}
/* { dg-output "table-lookup: \[0-9\]+ modules \\(\[1-9\]\[0-9\]* with records\\)" } */
