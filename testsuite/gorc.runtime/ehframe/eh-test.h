/* Shared by the ehframe test programs: look up the converted state at an
   address in a builder's entries, the way the runtime's table reads them
   (sorted by address; at one address an END entry yields to a state, of
   several states the last one appended holds).  */

#ifndef GORC_EH_TEST_H
#define GORC_EH_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "table.h"

struct eh_sorted {
  struct gorc_rt_entry e;
  size_t seq;
};

static inline int eh_sorted_cmp(const void *a, const void *b)
{
  const struct eh_sorted *x = a, *y = b;
  if (x->e.pc_off != y->e.pc_off)
    return x->e.pc_off < y->e.pc_off ? -1 : 1;
  int xe = x->e.cfa_kind == GORC_CFA_END, ye = y->e.cfa_kind == GORC_CFA_END;
  if (xe != ye)
    return xe ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A sorted copy of B's entries (the test may use malloc; libgorc not).  */
static inline struct eh_sorted *eh_sort(const struct gorc_rt_builder *b)
{
  struct eh_sorted *s = malloc((b->count + 1) * sizeof *s);
  if (!s) {
    perror("malloc");
    exit(2);
  }
  for (size_t i = 0; i < b->count; i++) {
    s[i].e = b->entries[i];
    s[i].seq = i;
  }
  qsort(s, b->count, sizeof *s, eh_sorted_cmp);
  return s;
}

/* The entry that holds at PC_OFF, or NULL (before every entry).  */
static inline const struct gorc_rt_entry *eh_lookup(const struct eh_sorted *s, size_t n,
                                             uint32_t pc_off)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {             /* first entry with pc_off > PC_OFF */
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].e.pc_off <= pc_off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? &s[lo - 1].e : NULL;
}

static inline void eh_state_of(const struct gorc_rt_entry *e, struct gorc_state *st)
{
  st->cfa_kind = e->cfa_kind;
  st->cfa_reg = e->cfa_reg;
  st->bp_kind = e->bp_kind;
  st->bp_reg = e->bp_reg;
  st->cfa_off = e->cfa_off;
  st->bp_off = e->bp_off;
}

static inline void eh_print_state(FILE *f, const struct gorc_state *s)
{
  static const char *ck[] = { "END", "SP", "BP", "REG", "DEREF", "UNDEFINED" };
  static const char *bk[] = { "SAME", "CFA", "REG", "UNDEFINED" };
  fprintf(f, "cfa %s", s->cfa_kind < 6 ? ck[s->cfa_kind] : "?");
  if (s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF
      || (s->cfa_kind == GORC_CFA_UNDEFINED && s->cfa_reg))
    fprintf(f, " r%u", s->cfa_reg);
  if (s->cfa_kind >= 1 && s->cfa_kind <= 4)
    fprintf(f, "%+lld", (long long)s->cfa_off);
  fprintf(f, ", bp %s", s->bp_kind < 4 ? bk[s->bp_kind] : "?");
  if (s->bp_kind == GORC_BP_REG)
    fprintf(f, " r%u", s->bp_reg);
  if (s->bp_kind == GORC_BP_CFA || s->bp_kind == GORC_BP_REG)
    fprintf(f, "%+lld", (long long)s->bp_off);
}

static inline int eh_same(const struct gorc_state *a, const struct gorc_state *b)
{
  return gorc_state_equal(a, b)
         && (a->cfa_kind != GORC_CFA_UNDEFINED || a->cfa_reg == b->cfa_reg);
}

#endif
