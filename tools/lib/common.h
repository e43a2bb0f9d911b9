/* gorc tools: state text form and the decoded record table, shared by
   gorc-dump and gorc-check.  */

#ifndef GORC_TOOLS_COMMON_H
#define GORC_TOOLS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "gorc/format.h"
#include "elfload.h"

/* State text; A names the registers.
   "cfa=sp+8", "cfa=bp+16", "cfa=r10+0", "cfa=[bp-8]", "cfa=undefined"
   (aarch64: "cfa=fp+16", "cfa=x9+0").  */
void gorc_format_cfa(const struct gorc_arch *a, const struct gorc_state *s, char *buf,
                     size_t n);
/* "bp=same", "bp=[cfa-16]", "bp=[bp+0]", "bp=undefined" (aarch64: "fp=...").  */
void gorc_format_bp(const struct gorc_arch *a, const struct gorc_state *s, char *buf, size_t n);
/* Machines whose return address is in a register at a call (aarch64):
   "ra=x30", "ra=[cfa-24]", "ra=undefined", each followed by " signed"
   when it carries a pointer authentication code; x86-64: "" (always at
   cfa-8).  */
void gorc_format_ra(const struct gorc_arch *a, const struct gorc_state *s, char *buf, size_t n);
/* "cfa=sp+8 bp=same" (aarch64: "cfa=sp+32 fp=[cfa-32] ra=[cfa-24] signed");
   the CFA part padded to CFA_WIDTH columns (0: one space).  "gap: no
   records" for the state between two functions of a range
   (gorc_state_is_gap), "end" for an end marker.  */
void gorc_format_state(const struct gorc_arch *a, const struct gorc_state *s, int cfa_width,
                       char *buf, size_t n);

struct gorc_rec_entry {
  uint64_t addr;
  struct gorc_state state;   /* cfa_kind GORC_CFA_END: end of the range */
  uint64_t off;              /* offset of the entry in its gorc_unwind section */
  uint32_t len;              /* bytes (word and operands); 0: the implicit entry */
  uint8_t op;                /* enum gorc_op of an entry with bytes */
  uint8_t back;              /* GORC_OP_BACK's operand */
};

struct gorc_rec_range {
  uint64_t start, end;       /* [start, end) */
  size_t first, count;       /* entries[first .. first+count), end marker last */
  size_t index_sec;          /* gorc_unwind_index section ... */
  size_t index_entry;        /* ... and entry number there */
  size_t sec;                /* gorc_unwind section of the body */
  uint64_t off, len;         /* bytes of the body in that section */
};

struct gorc_table {
  struct gorc_rec_entry *entries;
  size_t nentries, cap_entries;
  struct gorc_rec_range *ranges;   /* in index order, bad ranges left out */
  size_t nranges, cap_ranges;
  size_t *sorted;                  /* range indices by start address */
  size_t nstates;                  /* entries that are states (not end markers) */
  size_t *body_secs;               /* gorc_unwind sections, by address */
  size_t nbody_secs;
  size_t *index_secs;              /* gorc_unwind_index sections, in file order */
  size_t nindex_secs;
  uint64_t bytes;                  /* sum of gorc_unwind section sizes */
  uint64_t index_bytes;            /* sum of gorc_unwind_index section sizes */
  size_t nbad;                     /* index entries whose range is unusable */
  int have_note;                   /* gorc notes found */
  uint32_t version;                /* the note's version */
  uint32_t machine;                /* the note's machine, else e_machine */
  int decode_error;                /* the table cannot be read at all: see err */
  char err[512];
  char **problems;                 /* bad ranges, overlaps, a wrong note, ... */
  size_t nproblems;
  size_t problems_left_out;        /* beyond the first GORC_TABLE_MAX_PROBLEMS */
  char **warnings;                 /* non-fatal remarks */
  size_t nwarnings;
  char **notes;                    /* facts worth knowing (an index not sorted after ld -r) */
  size_t nnotes;
};

/* Read the gorc note, every gorc_unwind_index entry and the range body it
   points to.  Returns 0 when the table is sound, -1 otherwise: t->err says
   why the table cannot be read at all (version 1, an unknown version or
   machine), t->problems list what is wrong with single ranges or the
   table's consistency.  A bad range is left out and every other one kept,
   so the table stays usable.  */
#define GORC_TABLE_MAX_PROBLEMS 20
int gorc_table_load(struct gorc_table *t, const struct gorc_elf *g);
void gorc_table_free(struct gorc_table *t);

/* "(push)", "(pop)", "(back 3)"; "" for STATE, END and the implicit
   entry.  */
void gorc_format_op(const struct gorc_rec_entry *e, char *buf, size_t n);

/* State at PC.  Returns the index of the range (>= 0) and sets *STATE and
   *NEXT (first address > PC where the answer may change), or -1 when no
   range covers PC, with *NEXT the start of the next range (UINT64_MAX if
   none).  Of several entries at one address the last holds.  */
long gorc_table_lookup(const struct gorc_table *t, uint64_t pc,
                       struct gorc_state *state, uint64_t *next);

/* Does range RI (from gorc_table_lookup) have a gap entry at PC, maybe
   followed by the next function's first entry at the same address?  */
int gorc_table_gap_at(const struct gorc_table *t, long ri, uint64_t pc);

#endif /* GORC_TOOLS_COMMON_H */
