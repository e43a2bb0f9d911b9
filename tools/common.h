/* gorc tools: state text form and the decoded record table, shared by
   gorc-dump and gorc-check.  */

#ifndef GORC_TOOLS_COMMON_H
#define GORC_TOOLS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "gorc/format.h"
#include "elfload.h"

/* DWARF register names as the text form uses them: rax rdx rcx rbx rsi
   rdi bp sp r8..r15 (DWARF 0..15); others "r<N>?" (never valid).  */
const char *gorc_reg_name(unsigned reg);

/* "cfa=sp+8", "cfa=bp+16", "cfa=r10+0", "cfa=[bp-8]", "cfa=undefined".  */
void gorc_format_cfa(const struct gorc_state *s, char *buf, size_t n);
/* "bp=same", "bp=[cfa-16]", "bp=[bp+0]", "bp=undefined".  */
void gorc_format_bp(const struct gorc_state *s, char *buf, size_t n);
/* "cfa=sp+8 bp=same"; the CFA part padded to CFA_WIDTH columns (0: one
   space).  */
void gorc_format_state(const struct gorc_state *s, int cfa_width, char *buf, size_t n);

struct gorc_rec_entry {
  uint64_t addr;
  struct gorc_state state;   /* cfa_kind GORC_CFA_END: end of the range */
  uint64_t off;              /* offset of the entry in its section */
  uint32_t len;              /* bytes (delta + state) */
};

struct gorc_rec_range {
  uint64_t start, end;       /* [start, end) */
  size_t first, count;       /* entries[first .. first+count), end marker last */
  size_t sec;                /* gorc_unwind section index */
  uint64_t off, len;         /* bytes of the range in that section */
};

struct gorc_table {
  struct gorc_rec_entry *entries;
  size_t nentries, cap_entries;
  struct gorc_rec_range *ranges;   /* in table order */
  size_t nranges, cap_ranges;
  size_t *sorted;                  /* range indices by start address */
  size_t nstates;                  /* entries that are states (not end markers) */
  uint64_t bytes;                  /* sum of gorc_unwind section sizes */
  size_t nsections;                /* gorc_unwind sections */
  int have_note;                   /* a gorc note was found */
  uint32_t version;                /* its version */
  int decode_error;                /* the table is corrupt: see err */
  char err[512];                   /* first fatal error */
  char **problems;                 /* consistency problems (overlap, ...) */
  size_t nproblems;
  char **warnings;                 /* non-fatal remarks */
  size_t nwarnings;
};

/* Decode every gorc_unwind section of G and the gorc note.  Returns 0 when
   the table is sound, -1 when it is corrupt or inconsistent (t->err and
   t->problems say why; the ranges decoded before an error are kept and
   usable).  */
int gorc_table_load(struct gorc_table *t, const struct gorc_elf *g);
void gorc_table_free(struct gorc_table *t);

/* State at PC.  Returns the index of the range (>= 0) and sets *STATE and
   *NEXT (first address > PC where the answer may change), or -1 when no
   range covers PC, with *NEXT the start of the next range (UINT64_MAX if
   none).  Of several entries at one address the last holds.  */
long gorc_table_lookup(const struct gorc_table *t, uint64_t pc,
                       struct gorc_state *state, uint64_t *next);

#endif /* GORC_TOOLS_COMMON_H */
