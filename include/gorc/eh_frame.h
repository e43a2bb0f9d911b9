/* gorc: the unwind state of one address from .eh_frame, read in place:
   libgorc's lookup at walk time (runtime/src/lookup.c) and
   gorc-prof's over the bytes of a file (tools/prof/prof-unwind.c).

   gorc_eh_frame_state(EF, PC, OUT): 1 with *OUT, 0 when no FDE covers PC
   (or the module has no search table), -1 when the tables are malformed
   where the lookup went.  EF gives .eh_frame_hdr (the PT_GNU_EH_FRAME
   segment) and the bytes [lo, hi) every CIE and FDE read must lie in,
   as addresses of the memory read: the tables are read in place, and
   their pc-relative pointers are taken relative to the bytes' own
   addresses.  Plain C without libc calls, like format.h: it runs in
   signal handlers.

   The lookup runs in signal handlers: no allocation, no lock, no libc
   call.  Every piece of state lives in fixed-size objects on the C stack
   (the remember_state stack is EH_STACK_DEPTH deep), every loop is
   bounded by the bytes it consumes or by a bisection, and every byte read
   is checked first: the search table against [hdr, hdr + hdr_size), CIEs
   and FDEs against [lo, hi).  Addresses found in the tables are only
   compared, never dereferenced, except the FDE address of the search
   table (checked against [lo, hi)) and the CIE pointer of the FDE.

   The steps: find the last search-table entry whose initial location is
   at or below PC (bisection in place), check that the FDE it points to
   starts there and covers PC, then run the CIE's initial instructions and
   the FDE's instructions up to the row that holds at PC, and map that
   row's CFA, frame pointer, aux and return-address rules onto a
   gorc_state.  The registers are the machine's (EF's machine): x86-64
   sp 7, fp rbp 6, aux rbx 3, return-address column 16, registers 0..15;
   aarch64 sp 31, fp x29, no aux, return address in x30, registers
   0..31:

     CFA  reg R + off   R sp -> GORC_CFA_SP, fp -> GORC_CFA_BP,
                        other registers -> GORC_CFA_REG (cfa_reg R)
          expression "DW_OP_bregR off; DW_OP_deref"
                        -> GORC_CFA_DEREF
          ld's x86-64 PLT expression (see match_plt) -> GORC_CFA_SP_PLT
          anything else -> GORC_CFA_UNDEFINED
     fp   same_value or no rule (the ABI default) -> GORC_BP_SAME
          offset(N)     -> GORC_BP_CFA, bp_off = N * data_align
          expression "DW_OP_bregR k" -> GORC_BP_REG
          anything else -> GORC_BP_UNDEFINED
     aux  same_value or no rule -> GORC_AUX_SAME
          offset(N)     -> GORC_AUX_CFA, aux_off = N * data_align
          anything else (and aarch64) -> GORC_AUX_UNKNOWN
     RA   offset(N)     -> GORC_RA_CFA, ra_off = N * data_align
          aarch64: no rule or same_value (still in x30) -> GORC_RA_SAME
          undefined (glibc's _start, clone, start_thread: the outermost
          frame) -> GORC_RA_UNDEFINED, the other columns as above
          anything else (and a CIE whose return-address column is not
          the machine's) -> the CFA is GORC_CFA_UNDEFINED
     aarch64: DW_CFA_AARCH64_negate_ra_state (DW_CFA_GNU_window_save's
          number) toggles ra_signed: the return address carries a
          pointer authentication code.
   A state whose CFA is GORC_CFA_UNDEFINED always has fp
   GORC_BP_UNDEFINED, aux GORC_AUX_UNKNOWN, ra_signed 0 and zero offsets
   (ra_off -8 unless the return address is undefined), so equal rules
   give equal states.  */

#ifndef GORC_EH_FRAME_H
#define GORC_EH_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include "gorc/format.h"

/* One module's .eh_frame as read (addresses of the bytes read).  */
struct gorc_eh_frame {
  uint64_t hdr;           /* .eh_frame_hdr */
  uint64_t hdr_size;
  uint64_t lo, hi;        /* every CIE/FDE byte read lies in [lo, hi) */
  unsigned machine;       /* GORC_MACHINE_*: whose registers the tables name */
  uint64_t entry;         /* the module's entry point (ELF e_entry), in the FDEs'
                             address space; 0: none (a shared library) */
};

#define GORC_EH_STACK_DEPTH 8

/* DW_EH_PE_* pointer encodings.  */
#define GORC_EH_PE_ABSPTR 0x00
#define GORC_EH_PE_ULEB128 0x01
#define GORC_EH_PE_UDATA2 0x02
#define GORC_EH_PE_UDATA4 0x03
#define GORC_EH_PE_UDATA8 0x04
#define GORC_EH_PE_SIGNED 0x08
#define GORC_EH_PE_SLEB128 0x09
#define GORC_EH_PE_SDATA2 0x0a
#define GORC_EH_PE_SDATA4 0x0b
#define GORC_EH_PE_SDATA8 0x0c
#define GORC_EH_PE_PCREL 0x10
#define GORC_EH_PE_TEXTREL 0x20
#define GORC_EH_PE_DATAREL 0x30
#define GORC_EH_PE_FUNCREL 0x40
#define GORC_EH_PE_ALIGNED 0x50
#define GORC_EH_PE_INDIRECT 0x80
#define GORC_EH_PE_OMIT 0xff

/* DW_CFA_* opcodes.  */
#define GORC_EH_CFA_ADVANCE_LOC 0x40
#define GORC_EH_CFA_OFFSET 0x80
#define GORC_EH_CFA_RESTORE 0xc0
#define GORC_EH_CFA_NOP 0x00
#define GORC_EH_CFA_SET_LOC 0x01
#define GORC_EH_CFA_ADVANCE_LOC1 0x02
#define GORC_EH_CFA_ADVANCE_LOC2 0x03
#define GORC_EH_CFA_ADVANCE_LOC4 0x04
#define GORC_EH_CFA_OFFSET_EXTENDED 0x05
#define GORC_EH_CFA_RESTORE_EXTENDED 0x06
#define GORC_EH_CFA_UNDEFINED 0x07
#define GORC_EH_CFA_SAME_VALUE 0x08
#define GORC_EH_CFA_REGISTER 0x09
#define GORC_EH_CFA_REMEMBER_STATE 0x0a
#define GORC_EH_CFA_RESTORE_STATE 0x0b
#define GORC_EH_CFA_DEF_CFA 0x0c
#define GORC_EH_CFA_DEF_CFA_REGISTER 0x0d
#define GORC_EH_CFA_DEF_CFA_OFFSET 0x0e
#define GORC_EH_CFA_DEF_CFA_EXPRESSION 0x0f
#define GORC_EH_CFA_EXPRESSION 0x10
#define GORC_EH_CFA_OFFSET_EXTENDED_SF 0x11
#define GORC_EH_CFA_DEF_CFA_SF 0x12
#define GORC_EH_CFA_DEF_CFA_OFFSET_SF 0x13
#define GORC_EH_CFA_VAL_OFFSET 0x14
#define GORC_EH_CFA_VAL_OFFSET_SF 0x15
#define GORC_EH_CFA_VAL_EXPRESSION 0x16
#define GORC_EH_CFA_GNU_WINDOW_SAVE 0x2d  /* aarch64: DW_CFA_AARCH64_negate_ra_state */
#define GORC_EH_CFA_GNU_ARGS_SIZE 0x2e
#define GORC_EH_CFA_GNU_NEGATIVE_OFFSET_EXTENDED 0x2f

/* DW_OP_* opcodes of the expressions recognised.  */
#define GORC_EH_OP_DEREF 0x06
#define GORC_EH_OP_AND 0x1a
#define GORC_EH_OP_PLUS 0x22
#define GORC_EH_OP_SHL 0x24
#define GORC_EH_OP_GE 0x2a
#define GORC_EH_OP_LIT0 0x30
#define GORC_EH_OP_LIT31 0x4f
#define GORC_EH_OP_BREG0 0x70

/* Results of the parsing helpers.  */
#define GORC_EH_OK 0
#define GORC_EH_BAD (-1)          /* malformed: gorc_eh_frame_state returns -1 */
#define GORC_EH_UNSUPPORTED (-2)  /* well-formed but not for gorc: no FDE here */
#define GORC_EH_DONE 1            /* interpretation reached the row of PC */

/* ---- bounded readers ---- */

static inline int gorc_eh_rd_fixed(const uint8_t **pp, const uint8_t *end, unsigned n,
                                   uint64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t v = 0;
  if (p > end || (size_t)(end - p) < n)
    return GORC_EH_BAD;
  for (unsigned i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8 * i);
  *pp = p + n;
  *out = v;
  return GORC_EH_OK;
}

static inline int gorc_eh_rd_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  return gorc_get_uleb(pp, end, out) == GORC_DECODE_OK ? GORC_EH_OK : GORC_EH_BAD;
}

static inline int gorc_eh_rd_sleb(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
  return gorc_get_sleb(pp, end, out) == GORC_DECODE_OK ? GORC_EH_OK : GORC_EH_BAD;
}

static inline uint64_t gorc_eh_addr_of(const uint8_t *p)
{
  return (uint64_t)(uintptr_t)p;
}

/* Is ENC an encoding this reader can decode?  ALLOW_INDIRECT only for the
   personality, whose value is never used.  */
static inline int gorc_eh_check_encoding(uint8_t enc, int allow_indirect)
{
  if (enc == GORC_EH_PE_OMIT)
    return GORC_EH_UNSUPPORTED;
  if ((enc & GORC_EH_PE_INDIRECT) && !allow_indirect)
    return GORC_EH_UNSUPPORTED;
  switch (enc & 0x0f) {
  case GORC_EH_PE_ABSPTR: case GORC_EH_PE_ULEB128: case GORC_EH_PE_UDATA2: case GORC_EH_PE_UDATA4:
  case GORC_EH_PE_UDATA8: case GORC_EH_PE_SIGNED: case GORC_EH_PE_SLEB128: case GORC_EH_PE_SDATA2:
  case GORC_EH_PE_SDATA4: case GORC_EH_PE_SDATA8:
    break;
  default:
    return GORC_EH_BAD;
  }
  switch (enc & 0x70) {
  case 0: case GORC_EH_PE_PCREL: case GORC_EH_PE_DATAREL:
    return GORC_EH_OK;
  case GORC_EH_PE_TEXTREL: case GORC_EH_PE_FUNCREL: case GORC_EH_PE_ALIGNED:
    return GORC_EH_UNSUPPORTED;
  default:
    return GORC_EH_BAD;
  }
}

/* Read a pointer encoded as ENC (already accepted by gorc_eh_check_encoding).
   APPLY: apply the pcrel/datarel base (not for pc_range, which only uses
   the value format).  DATAREL is the datarel base: 0 in .eh_frame (as
   libgcc and libdw read x86-64 .eh_frame), the header's address in
   .eh_frame_hdr.  */
static inline int gorc_eh_rd_encoded(const uint8_t **pp, const uint8_t *end, uint8_t enc, int apply,
                      uint64_t datarel, uint64_t *out)
{
  const uint8_t *field = *pp;
  /* Zero: the sign extensions below read them before err is checked.  */
  uint64_t v = 0;
  int64_t sv = 0;
  int err;

  switch (enc & 0x0f) {
  case GORC_EH_PE_ABSPTR: case GORC_EH_PE_UDATA8: case GORC_EH_PE_SIGNED: case GORC_EH_PE_SDATA8:
    err = gorc_eh_rd_fixed(pp, end, 8, &v);
    break;
  case GORC_EH_PE_ULEB128:
    err = gorc_eh_rd_uleb(pp, end, &v);
    break;
  case GORC_EH_PE_SLEB128:
    err = gorc_eh_rd_sleb(pp, end, &sv);
    v = (uint64_t)sv;
    break;
  case GORC_EH_PE_UDATA2:
    err = gorc_eh_rd_fixed(pp, end, 2, &v);
    break;
  case GORC_EH_PE_SDATA2:
    err = gorc_eh_rd_fixed(pp, end, 2, &v);
    v = (uint64_t)(int64_t)(int16_t)(uint16_t)v;
    break;
  case GORC_EH_PE_UDATA4:
    err = gorc_eh_rd_fixed(pp, end, 4, &v);
    break;
  case GORC_EH_PE_SDATA4:
    err = gorc_eh_rd_fixed(pp, end, 4, &v);
    v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
    break;
  default:
    return GORC_EH_BAD;
  }
  if (err != GORC_EH_OK)
    return err;
  if (apply && (enc & 0x70) == GORC_EH_PE_PCREL)
    v += gorc_eh_addr_of(field);
  else if (apply && (enc & 0x70) == GORC_EH_PE_DATAREL)
    v += datarel;
  *out = v;
  return GORC_EH_OK;
}

/* ---- the search table (.eh_frame_hdr) ---- */

struct gorc_eh_table {
  const uint8_t *entries, *end;   /* COUNT entries of two fields */
  uint64_t hdr, count;
  unsigned field;                 /* bytes per field: 2, 4 or 8 */
  uint8_t enc;
};

/* The size of one field of a search table in ENC, or 0 when the table
   cannot be searched in place: variable-size fields cannot be bisected,
   and absolute addresses are link-time ones that the loader does not
   relocate in this read-only section.  */
static inline unsigned gorc_eh_table_field_size(uint8_t enc)
{
  if ((enc & 0x70) != GORC_EH_PE_DATAREL && (enc & 0x70) != GORC_EH_PE_PCREL)
    return 0;
  switch (enc & 0x8f) {
  case GORC_EH_PE_UDATA2: case GORC_EH_PE_SDATA2:
    return 2;
  case GORC_EH_PE_UDATA4: case GORC_EH_PE_SDATA4:
    return 4;
  case GORC_EH_PE_ABSPTR: case GORC_EH_PE_UDATA8: case GORC_EH_PE_SDATA8:
    return 8;
  default:
    return 0;
  }
}

/* Read the header: 1 with a searchable table in *T, 0 when there is none
   (or one this reader cannot search), GORC_EH_BAD when it is malformed.  */
static inline int gorc_eh_open_table(const struct gorc_eh_frame *ef, struct gorc_eh_table *t)
{
  uint64_t version, eh_ptr_enc, count_enc, table_enc, ignored;
  const uint8_t *p, *end;

  if (ef->hdr == 0 || ef->hdr_size == 0)
    return 0;
  if (ef->hdr + ef->hdr_size < ef->hdr)
    return GORC_EH_BAD;
  p = (const uint8_t *)(uintptr_t)ef->hdr;
  end = p + ef->hdr_size;
  if (gorc_eh_rd_fixed(&p, end, 1, &version) != GORC_EH_OK
      || gorc_eh_rd_fixed(&p, end, 1, &eh_ptr_enc) != GORC_EH_OK
      || gorc_eh_rd_fixed(&p, end, 1, &count_enc) != GORC_EH_OK
      || gorc_eh_rd_fixed(&p, end, 1, &table_enc) != GORC_EH_OK)
    return GORC_EH_BAD;
  if (version != 1)
    return 0;
  if (eh_ptr_enc != GORC_EH_PE_OMIT) {
    if (gorc_eh_check_encoding((uint8_t)eh_ptr_enc, 0) != GORC_EH_OK)
      return 0;
    if (gorc_eh_rd_encoded(&p, end, (uint8_t)eh_ptr_enc, 1, ef->hdr, &ignored) != GORC_EH_OK)
      return GORC_EH_BAD;
  }
  if (count_enc == GORC_EH_PE_OMIT || table_enc == GORC_EH_PE_OMIT)
    return 0;
  t->field = gorc_eh_table_field_size((uint8_t)table_enc);
  if (t->field == 0 || gorc_eh_check_encoding((uint8_t)count_enc, 0) != GORC_EH_OK)
    return 0;
  if (gorc_eh_rd_encoded(&p, end, (uint8_t)count_enc, 1, ef->hdr, &t->count) != GORC_EH_OK)
    return GORC_EH_BAD;
  if (t->count > (uint64_t)(end - p) / (2 * t->field))
    return GORC_EH_BAD;
  t->entries = p;
  t->end = end;
  t->hdr = ef->hdr;
  t->enc = (uint8_t)table_enc;
  return t->count > 0;
}

/* Field K (0: initial location, 1: FDE address) of entry I.  */
static inline uint64_t gorc_eh_table_field(const struct gorc_eh_table *t, uint64_t i, unsigned k)
{
  const uint8_t *p = t->entries + (i * 2 + k) * t->field;
  uint64_t v = 0;
  /* in bounds: checked by gorc_eh_open_table */
  gorc_eh_rd_encoded(&p, t->end, t->enc, 1, t->hdr, &v);
  return v;
}

/* The FDE address of the last entry whose initial location is at or
   below PC, with that location in *LOC; 0 when PC is below every
   entry.  *NEXT (when not NULL) gets the next entry's location
   (UINT64_MAX: none).  */
static inline int gorc_eh_search(const struct gorc_eh_table *t, uint64_t pc, uint64_t *loc,
                                 uint64_t *fde, uint64_t *next)
{
  uint64_t lo = 0, hi = t->count;
  while (lo < hi) {             /* first entry whose location is above PC */
    uint64_t mid = lo + (hi - lo) / 2;
    if (gorc_eh_table_field(t, mid, 0) <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (next)
    *next = lo < t->count ? gorc_eh_table_field(t, lo, 0) : UINT64_MAX;
  if (lo == 0)
    return 0;
  *loc = gorc_eh_table_field(t, lo - 1, 0);
  *fde = gorc_eh_table_field(t, lo - 1, 1);
  return 1;
}

/* ---- records ---- */

/* The bytes CIEs and FDEs may be read from.  */
struct gorc_eh_section {
  const uint8_t *start, *end;
};

/* One CIE or FDE: [start, end) is the whole record, BODY follows the
   CIE id / CIE pointer field ID_FIELD.  */
struct gorc_eh_record {
  const uint8_t *start, *id_field, *body, *end;
  uint64_t id;
};

/* Parse the record header at P (inside S).  Returns GORC_EH_OK, or GORC_EH_BAD
   when the record does not fit or is the zero terminator.  */
static inline int gorc_eh_rd_record(const struct gorc_eh_section *s, const uint8_t *p,
                                    struct gorc_eh_record *r)
{
  uint64_t len;
  unsigned idsize = 4;

  r->start = p;
  if (gorc_eh_rd_fixed(&p, s->end, 4, &len) != GORC_EH_OK || len == 0)
    return GORC_EH_BAD;
  if (len == 0xffffffff) {
    if (gorc_eh_rd_fixed(&p, s->end, 8, &len) != GORC_EH_OK)
      return GORC_EH_BAD;
    idsize = 8;
  }
  if (len > (uint64_t)(s->end - p) || len < idsize)
    return GORC_EH_BAD;
  r->end = p + len;
  r->id_field = p;
  if (gorc_eh_rd_fixed(&p, r->end, idsize, &r->id) != GORC_EH_OK)
    return GORC_EH_BAD;
  r->body = p;
  return GORC_EH_OK;
}

struct gorc_eh_cie {
  const uint8_t *insns, *insns_end;
  uint64_t code_align;
  int64_t data_align;
  uint64_t ra_reg;
  uint8_t fde_enc;
  int has_z;
};

/* The augmentation data of a "z" CIE: AUG names the fields.  */
static inline int gorc_eh_parse_augmentation(const uint8_t *aug, const uint8_t *aug_end,
                                             const uint8_t *d,
                              const uint8_t *dend, struct gorc_eh_cie *c)
{
  uint64_t v;
  uint8_t enc;
  int err;

  for (const uint8_t *a = aug + 1; a < aug_end; a++) {
    switch (*a) {
    case 'L':
      if (d >= dend)
        return GORC_EH_BAD;
      enc = *d++;
      if (enc != GORC_EH_PE_OMIT && (err = gorc_eh_check_encoding(enc, 0)) != GORC_EH_OK)
        return err;
      break;
    case 'R':
      if (d >= dend)
        return GORC_EH_BAD;
      c->fde_enc = *d++;
      if ((err = gorc_eh_check_encoding(c->fde_enc, 0)) != GORC_EH_OK)
        return err;
      break;
    case 'P':
      if (d >= dend)
        return GORC_EH_BAD;
      enc = *d++;
      if (enc == GORC_EH_PE_OMIT)
        break;
      if ((err = gorc_eh_check_encoding(enc, 1)) != GORC_EH_OK)
        return err;
      if (gorc_eh_rd_encoded(&d, dend, enc, 0, 0, &v) != GORC_EH_OK)
        return GORC_EH_BAD;
      break;
    case 'S':                   /* a signal frame: its rows read normally */
      break;
    default:
      return GORC_EH_UNSUPPORTED;
    }
  }
  return GORC_EH_OK;
}

static inline int gorc_eh_parse_cie(const struct gorc_eh_record *r, struct gorc_eh_cie *c)
{
  const uint8_t *p = r->body, *end = r->end, *aug, *aug_end;
  uint64_t version, v, auglen;
  int err;

  if (r->id != 0)
    return GORC_EH_BAD;
  c->fde_enc = GORC_EH_PE_ABSPTR;
  c->has_z = 0;
  if (gorc_eh_rd_fixed(&p, end, 1, &version) != GORC_EH_OK)
    return GORC_EH_BAD;
  if (version != 1 && version != 3 && version != 4)
    return GORC_EH_UNSUPPORTED;
  aug = p;
  while (p < end && *p)
    p++;
  if (p >= end)
    return GORC_EH_BAD;
  aug_end = p++;
  if (aug < aug_end && aug[0] != 'z')
    return GORC_EH_UNSUPPORTED;      /* e.g. the pre-"z" GCC "eh" */
  if (version == 4) {           /* address_size, segment_selector_size */
    if (gorc_eh_rd_fixed(&p, end, 1, &v) != GORC_EH_OK)
      return GORC_EH_BAD;
    if (v != 8)
      return GORC_EH_UNSUPPORTED;
    if (gorc_eh_rd_fixed(&p, end, 1, &v) != GORC_EH_OK)
      return GORC_EH_BAD;
    if (v != 0)
      return GORC_EH_UNSUPPORTED;
  }
  if (gorc_eh_rd_uleb(&p, end, &c->code_align) != GORC_EH_OK
      || gorc_eh_rd_sleb(&p, end, &c->data_align) != GORC_EH_OK)
    return GORC_EH_BAD;
  if (version == 1)
    err = gorc_eh_rd_fixed(&p, end, 1, &c->ra_reg);
  else
    err = gorc_eh_rd_uleb(&p, end, &c->ra_reg);
  if (err != GORC_EH_OK)
    return GORC_EH_BAD;
  if (aug < aug_end) {
    c->has_z = 1;
    if (gorc_eh_rd_uleb(&p, end, &auglen) != GORC_EH_OK || auglen > (uint64_t)(end - p))
      return GORC_EH_BAD;
    if ((err = gorc_eh_parse_augmentation(aug, aug_end, p, p + auglen, c)) != GORC_EH_OK)
      return err;
    p += auglen;
  }
  if (c->code_align == 0)
    return GORC_EH_BAD;
  c->insns = p;
  c->insns_end = end;
  return GORC_EH_OK;
}

/* ---- the CFA program ---- */

enum gorc_eh_cfa_how {
  GORC_EH_CFA_NONE, GORC_EH_CFA_REGOFF, GORC_EH_CFA_EXPR_DEREF, GORC_EH_CFA_EXPR_PLT,
  GORC_EH_CFA_INVALID
};
enum gorc_eh_reg_how {
  GORC_EH_REG_SAME, GORC_EH_REG_UNDEF, GORC_EH_REG_OFFSET, GORC_EH_REG_EXPR_BREG,
  GORC_EH_REG_OTHER
};

struct gorc_eh_cfa_rule {
  uint8_t how;                /* enum gorc_eh_cfa_how */
  uint8_t off_ok;             /* off did not overflow */
  uint8_t threshold;          /* GORC_EH_CFA_EXPR_PLT */
  uint64_t reg;
  int64_t off;
};

struct gorc_eh_reg_rule {
  uint8_t how;                /* enum gorc_eh_reg_how */
  uint8_t reg;                /* GORC_EH_REG_EXPR_BREG */
  int64_t off;                /* GORC_EH_REG_OFFSET: CFA + off; _EXPR_BREG: reg + off */
};

struct gorc_eh_row {
  struct gorc_eh_cfa_rule cfa;
  struct gorc_eh_reg_rule bp, bx, ra;   /* fp, aux, the return address */
  uint8_t ra_signed;                    /* aarch64: negate_ra_state toggled it */
};

struct gorc_eh_interp {
  unsigned machine;           /* GORC_MACHINE_* */
  const struct gorc_eh_cie *cie;
  struct gorc_eh_row row, init;    /* init: after the CIE's instructions */
  struct gorc_eh_row stack[GORC_EH_STACK_DEPTH];
  unsigned depth;
  int in_cie;
  uint64_t loc;               /* where the current row starts */
  uint64_t pc;                /* the address looked up */
  uint64_t next;              /* where the row holding at pc ends (UINT64_MAX: the FDE's end) */
};

/* The machine's registers: see the head of the file.  */
#define GORC_EH_NO_COLUMN 0xffffffffu

static inline unsigned gorc_eh_fp_column(unsigned machine)
{
  return machine == GORC_MACHINE_AARCH64 ? GORC_DWARF_X29 : GORC_DWARF_RBP;
}

static inline unsigned gorc_eh_aux_column(unsigned machine)
{
  return machine == GORC_MACHINE_AARCH64 ? GORC_EH_NO_COLUMN : GORC_DWARF_RBX;
}

static inline unsigned gorc_eh_ra_column(unsigned machine)
{
  return machine == GORC_MACHINE_AARCH64 ? GORC_DWARF_X30 : GORC_DWARF_RA;
}

/* The highest register a CFA rule or DW_OP_bregN may name.  */
static inline unsigned gorc_eh_max_reg(unsigned machine)
{
  return machine == GORC_MACHINE_AARCH64 ? GORC_DWARF_A64_SP : GORC_DWARF_MAX_GPR;
}

static inline void gorc_eh_default_row(struct gorc_eh_row *r, unsigned machine)
{
  r->cfa.how = GORC_EH_CFA_NONE;
  r->cfa.off_ok = 1;
  r->cfa.threshold = 0;
  r->cfa.reg = 0;
  r->cfa.off = 0;
  r->bp.how = GORC_EH_REG_SAME;       /* rbp is callee-saved: same_value by default */
  r->bp.reg = 0;
  r->bp.off = 0;
  r->bx = r->bp;              /* rbx is callee-saved too */
  /* No rule: x86-64, not where gorc looks; aarch64, still in x30 (the
     entry state).  */
  r->ra.how = gorc_machine_ra_in_reg(machine) ? GORC_EH_REG_SAME : GORC_EH_REG_OTHER;
  r->ra.reg = 0;
  r->ra.off = 0;
  r->ra_signed = 0;
}

/* The state of a row gorc cannot follow.  RA_UNDEFINED keeps the
   outermost-frame mark.  */
static inline void gorc_eh_undefined_state(struct gorc_state *s, int ra_undefined)
{
  s->cfa_kind = GORC_CFA_UNDEFINED;
  s->cfa_reg = 0;
  s->bp_kind = GORC_BP_UNDEFINED;
  s->bp_reg = 0;
  s->aux_kind = GORC_AUX_UNKNOWN;
  s->ra_kind = ra_undefined ? GORC_RA_UNDEFINED : GORC_RA_CFA;
  s->ra_signed = 0;
  s->cfa_off = s->bp_off = s->aux_off = 0;
  s->ra_off = ra_undefined ? 0 : -8;
}

/* The CFA column of R into S; 0 when gorc cannot follow it.  */
static inline int gorc_eh_cfa_state(const struct gorc_eh_cfa_rule *c, unsigned machine,
                                    struct gorc_state *s)
{
  switch (c->how) {
  case GORC_EH_CFA_REGOFF:
    if (c->reg > gorc_eh_max_reg(machine) || !c->off_ok)
      return 0;
    gorc_state_set_cfa_reg(s, machine, (unsigned)c->reg, c->off);
    return 1;
  case GORC_EH_CFA_EXPR_DEREF:
    s->cfa_kind = GORC_CFA_DEREF;
    s->cfa_reg = (uint8_t)c->reg;
    s->cfa_off = c->off;
    return 1;
  case GORC_EH_CFA_EXPR_PLT:
    s->cfa_kind = GORC_CFA_SP_PLT;
    s->cfa_reg = c->threshold;
    s->cfa_off = c->off;
    return 1;
  default:
    return 0;
  }
}

static inline void gorc_eh_bp_state(const struct gorc_eh_reg_rule *bp, struct gorc_state *s)
{
  s->bp_kind = GORC_BP_UNDEFINED;
  s->bp_reg = 0;
  s->bp_off = 0;
  switch (bp->how) {
  case GORC_EH_REG_SAME:
    s->bp_kind = GORC_BP_SAME;
    break;
  case GORC_EH_REG_OFFSET:
    s->bp_kind = GORC_BP_CFA;
    s->bp_off = bp->off;
    break;
  case GORC_EH_REG_EXPR_BREG:
    s->bp_kind = GORC_BP_REG;
    s->bp_reg = bp->reg;
    s->bp_off = bp->off;
    break;
  default:
    break;
  }
}

static inline void gorc_eh_aux_state(const struct gorc_eh_reg_rule *bx, struct gorc_state *s)
{
  s->aux_off = 0;
  if (bx->how == GORC_EH_REG_SAME) {
    s->aux_kind = GORC_AUX_SAME;
  } else if (bx->how == GORC_EH_REG_OFFSET) {
    s->aux_kind = GORC_AUX_CFA;
    s->aux_off = bx->off;
  } else {
    s->aux_kind = GORC_AUX_UNKNOWN;
  }
}

/* The state of the current row (the rules are in the file's head).  */
static inline void gorc_eh_row_state(const struct gorc_eh_interp *it, struct gorc_state *s)
{
  const struct gorc_eh_row *r = &it->row;
  int ra_undefined = r->ra.how == GORC_EH_REG_UNDEF;
  int ra_in_reg = gorc_machine_ra_in_reg(it->machine) && r->ra.how == GORC_EH_REG_SAME;

  gorc_eh_undefined_state(s, ra_undefined);
  if (it->cie->ra_reg != gorc_eh_ra_column(it->machine)
      || (!ra_undefined && !ra_in_reg && r->ra.how != GORC_EH_REG_OFFSET))
    return;
  if (!gorc_eh_cfa_state(&r->cfa, it->machine, s))
    return;
  if (ra_in_reg) {
    s->ra_kind = GORC_RA_SAME;
    s->ra_off = 0;
  } else if (!ra_undefined) {
    s->ra_off = r->ra.off;
  }
  s->ra_signed = r->ra_signed;
  gorc_eh_bp_state(&r->bp, s);
  if (gorc_eh_aux_column(it->machine) != GORC_EH_NO_COLUMN)
    gorc_eh_aux_state(&r->bx, s);
}

/* The row at it->loc is complete; the next one starts at NEW_LOC.
   GORC_EH_DONE when the current row is the one holding at PC.  */
static inline int gorc_eh_advance(struct gorc_eh_interp *it, uint64_t new_loc)
{
  if (it->in_cie || new_loc < it->loc)
    return GORC_EH_BAD;
  if (new_loc > it->pc) {
    it->next = new_loc;
    return GORC_EH_DONE;
  }
  it->loc = new_loc;
  return GORC_EH_OK;
}

static inline int gorc_eh_advance_by(struct gorc_eh_interp *it, uint64_t delta)
{
  uint64_t d, loc;
  if (__builtin_mul_overflow(delta, it->cie->code_align, &d)
      || __builtin_add_overflow(it->loc, d, &loc))
    loc = UINT64_MAX;           /* past any address */
  return gorc_eh_advance(it, loc);
}

/* N * data_align; 0 on overflow (*OUT is then 0).  */
static inline int gorc_eh_mul_daf(const struct gorc_eh_interp *it, int64_t n, int64_t *out)
{
  if (__builtin_mul_overflow(n, it->cie->data_align, out)) {
    *out = 0;
    return 0;
  }
  return 1;
}

/* The rule of column REG in R, or NULL for a column gorc does not track.  */
static inline struct gorc_eh_reg_rule *gorc_eh_column(unsigned machine, struct gorc_eh_row *r,
                                                      uint64_t reg)
{
  if (reg == gorc_eh_fp_column(machine))
    return &r->bp;
  if (reg == gorc_eh_aux_column(machine))
    return &r->bx;
  if (reg == gorc_eh_ra_column(machine))
    return &r->ra;
  return NULL;
}

static inline void gorc_eh_set_offset(struct gorc_eh_interp *it, uint64_t reg, int ok, int64_t off)
{
  struct gorc_eh_reg_rule *rr = gorc_eh_column(it->machine, &it->row, reg);
  if (!rr)
    return;
  rr->how = ok ? GORC_EH_REG_OFFSET : GORC_EH_REG_OTHER;
  rr->off = ok ? off : 0;
}

static inline void gorc_eh_set_how(struct gorc_eh_interp *it, uint64_t reg, uint8_t how)
{
  struct gorc_eh_reg_rule *rr = gorc_eh_column(it->machine, &it->row, reg);
  if (rr)
    rr->how = how;
}

static inline void gorc_eh_restore_column(struct gorc_eh_interp *it, uint64_t reg)
{
  struct gorc_eh_reg_rule *rr = gorc_eh_column(it->machine, &it->row, reg);
  if (rr)
    *rr = *gorc_eh_column(it->machine, &it->init, reg);
}

/* A DWARF expression block of LEN bytes at *PP.  */
static inline int gorc_eh_rd_block(const uint8_t **pp, const uint8_t *end, const uint8_t **blk,
                    const uint8_t **blk_end)
{
  uint64_t len;
  if (gorc_eh_rd_uleb(pp, end, &len) != GORC_EH_OK || len > (uint64_t)(end - *pp))
    return GORC_EH_BAD;
  *blk = *pp;
  *blk_end = *pp + len;
  *pp += len;
  return GORC_EH_OK;
}

/* Is [p, end) exactly "DW_OP_bregN k" (N a register of MACHINE),
   followed by DW_OP_deref when DEREF?  */
static inline int gorc_eh_match_breg(unsigned machine, const uint8_t *p, const uint8_t *end,
                                     int deref, uint8_t *reg, int64_t *off)
{
  if (p >= end || *p < GORC_EH_OP_BREG0 || *p > GORC_EH_OP_BREG0 + gorc_eh_max_reg(machine))
    return 0;
  *reg = (uint8_t)(*p++ - GORC_EH_OP_BREG0);
  if (gorc_eh_rd_sleb(&p, end, off) != GORC_EH_OK)
    return 0;
  if (deref) {
    if (p >= end || *p != GORC_EH_OP_DEREF)
      return 0;
    p++;
  }
  return p == end;
}

/* Is [p, end) ld's CFA expression for x86-64 PLT stubs,
     DW_OP_breg7 off; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit<t>;
     DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
   (CFA = rsp + off, plus 8 once (rip & 15) >= t: the stub's push has run;
   t is 11 for the lazy .plt, 9 for the IBT one)?  */
static inline int gorc_eh_match_plt(const uint8_t *p, const uint8_t *end, int64_t *off,
                                    uint8_t *threshold)
{
  static const uint8_t tail[] = { GORC_EH_OP_GE, GORC_EH_OP_LIT0 + 3, GORC_EH_OP_SHL,
                                  GORC_EH_OP_PLUS };
  int64_t rip_off;

  if (p >= end || *p++ != GORC_EH_OP_BREG0 + GORC_DWARF_RSP
      || gorc_eh_rd_sleb(&p, end, off) != GORC_EH_OK)
    return 0;
  if (p >= end || *p++ != GORC_EH_OP_BREG0 + GORC_DWARF_RA
      || gorc_eh_rd_sleb(&p, end, &rip_off) != GORC_EH_OK
      || rip_off != 0)
    return 0;
  if (end - p != 3 + (long)sizeof tail || p[0] != GORC_EH_OP_LIT0 + 15 || p[1] != GORC_EH_OP_AND
      || p[2] < GORC_EH_OP_LIT0 || p[2] > GORC_EH_OP_LIT31)
    return 0;
  *threshold = (uint8_t)(p[2] - GORC_EH_OP_LIT0);
  for (unsigned i = 0; i < sizeof tail; i++)
    if (p[3 + i] != tail[i])
      return 0;
  return 1;
}

/* DW_CFA_def_cfa_expression with the block [blk, blk_end).  */
static inline void gorc_eh_def_cfa_expression(struct gorc_eh_interp *it, const uint8_t *blk,
                                              const uint8_t *blk_end)
{
  struct gorc_eh_cfa_rule *c = &it->row.cfa;
  uint8_t r8;
  int64_t off;

  c->off_ok = 1;
  if (gorc_eh_match_breg(it->machine, blk, blk_end, 1, &r8, &off)) {
    c->how = GORC_EH_CFA_EXPR_DEREF;
    c->reg = r8;
    c->off = off;
  } else if (it->machine == GORC_MACHINE_X86_64
             && gorc_eh_match_plt(blk, blk_end, &off, &c->threshold)) {
    c->how = GORC_EH_CFA_EXPR_PLT;
    c->reg = GORC_DWARF_RSP;
    c->off = off;
  } else {
    c->how = GORC_EH_CFA_INVALID;
  }
}

/* DW_CFA_expression on column REG with the block [blk, blk_end).  */
static inline void gorc_eh_reg_expression(struct gorc_eh_interp *it, uint64_t reg,
                                          const uint8_t *blk,
                           const uint8_t *blk_end)
{
  struct gorc_eh_reg_rule *rr = gorc_eh_column(it->machine, &it->row, reg);
  uint8_t r8;
  int64_t off;

  if (!rr)
    return;
  if (gorc_eh_match_breg(it->machine, blk, blk_end, 0, &r8, &off)) {
    rr->how = GORC_EH_REG_EXPR_BREG;
    rr->reg = r8;
    rr->off = off;
  } else {
    rr->how = GORC_EH_REG_OTHER;
  }
}

/* CFA = register REG + offset OFF (OK: OFF did not overflow).  */
static inline void gorc_eh_def_cfa(struct gorc_eh_interp *it, uint64_t reg, int ok, int64_t off)
{
  it->row.cfa.how = GORC_EH_CFA_REGOFF;
  it->row.cfa.reg = reg;
  it->row.cfa.off_ok = (uint8_t)ok;
  it->row.cfa.off = ok ? off : 0;
}

/* A new CFA offset for the current register rule.  */
static inline void gorc_eh_def_cfa_offset(struct gorc_eh_interp *it, int ok, int64_t off)
{
  if (it->row.cfa.how == GORC_EH_CFA_REGOFF)
    gorc_eh_def_cfa(it, it->row.cfa.reg, ok, off);
  else
    it->row.cfa.how = GORC_EH_CFA_INVALID;
}

/* The primary opcodes (advance_loc, offset, restore: the operand in the
   low 6 bits).  */
static inline int gorc_eh_run_primary(struct gorc_eh_interp *it, uint8_t op, const uint8_t **pp,
                                      const uint8_t *end)
{
  uint8_t low = op & 0x3f;
  uint64_t u;
  int64_t sv;

  switch (op & 0xc0) {
  case GORC_EH_CFA_ADVANCE_LOC:
    return gorc_eh_advance_by(it, low);
  case GORC_EH_CFA_OFFSET: {
    if (gorc_eh_rd_uleb(pp, end, &u) != GORC_EH_OK)
      return GORC_EH_BAD;
    /* A factor above INT64_MAX is no offset: sv is then never written
       (the rule becomes "other", its offset 0).  */
    sv = 0;
    int ok = u <= INT64_MAX && gorc_eh_mul_daf(it, (int64_t)u, &sv);
    gorc_eh_set_offset(it, low, ok, sv);
    return GORC_EH_OK;
  }
  default:                      /* GORC_EH_CFA_RESTORE */
    gorc_eh_restore_column(it, low);
    return GORC_EH_OK;
  }
}

/* Opcodes that move to the next row or save and restore rows.  */
static inline int gorc_eh_run_row_op(struct gorc_eh_interp *it, uint8_t op, const uint8_t **pp,
                                     const uint8_t *end)
{
  uint64_t u, loc;

  switch (op) {
  case GORC_EH_CFA_SET_LOC:
    if (it->in_cie || gorc_eh_rd_encoded(pp, end, it->cie->fde_enc, 1, 0, &loc) != GORC_EH_OK)
      return GORC_EH_BAD;
    return gorc_eh_advance(it, loc);
  case GORC_EH_CFA_ADVANCE_LOC1:
  case GORC_EH_CFA_ADVANCE_LOC2:
  case GORC_EH_CFA_ADVANCE_LOC4:
    if (gorc_eh_rd_fixed(pp, end, op == GORC_EH_CFA_ADVANCE_LOC1   ? 1
                                  : op == GORC_EH_CFA_ADVANCE_LOC2 ? 2
                                                                   : 4, &u) != GORC_EH_OK)
      return GORC_EH_BAD;
    return gorc_eh_advance_by(it, u);
  case GORC_EH_CFA_REMEMBER_STATE:
    if (it->depth >= GORC_EH_STACK_DEPTH)
      return GORC_EH_BAD;
    it->stack[it->depth++] = it->row;
    return GORC_EH_OK;
  default:                      /* GORC_EH_CFA_RESTORE_STATE */
    if (it->depth == 0)
      return GORC_EH_BAD;
    it->row = it->stack[--it->depth];
    return GORC_EH_OK;
  }
}

/* Opcodes that set the CFA rule.  */
static inline int gorc_eh_run_cfa_op(struct gorc_eh_interp *it, uint8_t op, const uint8_t **pp,
                                     const uint8_t *end)
{
  uint64_t reg, u;
  int64_t sv, off;
  int ok;
  const uint8_t *blk, *blk_end;

  switch (op) {
  case GORC_EH_CFA_DEF_CFA:
    if (gorc_eh_rd_uleb(pp, end, &reg) != GORC_EH_OK || gorc_eh_rd_uleb(pp, end, &u) != GORC_EH_OK)
      return GORC_EH_BAD;
    gorc_eh_def_cfa(it, reg, u <= INT64_MAX, (int64_t)(u & INT64_MAX));
    return GORC_EH_OK;
  case GORC_EH_CFA_DEF_CFA_SF:
    if (gorc_eh_rd_uleb(pp, end, &reg) != GORC_EH_OK || gorc_eh_rd_sleb(pp, end, &sv) != GORC_EH_OK)
      return GORC_EH_BAD;
    ok = gorc_eh_mul_daf(it, sv, &off);
    gorc_eh_def_cfa(it, reg, ok, off);
    return GORC_EH_OK;
  case GORC_EH_CFA_DEF_CFA_REGISTER:
    if (gorc_eh_rd_uleb(pp, end, &reg) != GORC_EH_OK)
      return GORC_EH_BAD;
    if (it->row.cfa.how == GORC_EH_CFA_REGOFF)
      it->row.cfa.reg = reg;
    else
      it->row.cfa.how = GORC_EH_CFA_INVALID;
    return GORC_EH_OK;
  case GORC_EH_CFA_DEF_CFA_OFFSET:
    if (gorc_eh_rd_uleb(pp, end, &u) != GORC_EH_OK)
      return GORC_EH_BAD;
    gorc_eh_def_cfa_offset(it, u <= INT64_MAX, (int64_t)(u & INT64_MAX));
    return GORC_EH_OK;
  case GORC_EH_CFA_DEF_CFA_OFFSET_SF:
    if (gorc_eh_rd_sleb(pp, end, &sv) != GORC_EH_OK)
      return GORC_EH_BAD;
    ok = gorc_eh_mul_daf(it, sv, &off);
    gorc_eh_def_cfa_offset(it, ok, off);
    return GORC_EH_OK;
  default:                      /* GORC_EH_CFA_DEF_CFA_EXPRESSION */
    if (gorc_eh_rd_block(pp, end, &blk, &blk_end) != GORC_EH_OK)
      return GORC_EH_BAD;
    gorc_eh_def_cfa_expression(it, blk, blk_end);
    return GORC_EH_OK;
  }
}

/* Opcodes that set a register's rule.  */
static inline int gorc_eh_run_reg_op(struct gorc_eh_interp *it, uint8_t op, const uint8_t **pp,
                                     const uint8_t *end)
{
  uint64_t reg, u;
  int64_t sv, off;
  const uint8_t *blk, *blk_end;
  int ok;

  if (gorc_eh_rd_uleb(pp, end, &reg) != GORC_EH_OK)
    return GORC_EH_BAD;
  switch (op) {
  case GORC_EH_CFA_OFFSET_EXTENDED:
  case GORC_EH_CFA_GNU_NEGATIVE_OFFSET_EXTENDED:
    if (gorc_eh_rd_uleb(pp, end, &u) != GORC_EH_OK)
      return GORC_EH_BAD;
    sv = 0;
    ok = u <= INT64_MAX && gorc_eh_mul_daf(it, (int64_t)u, &sv);
    if (op == GORC_EH_CFA_GNU_NEGATIVE_OFFSET_EXTENDED) {
      if (sv == INT64_MIN)
        ok = 0;
      else
        sv = -sv;
    }
    gorc_eh_set_offset(it, reg, ok, sv);
    return GORC_EH_OK;
  case GORC_EH_CFA_OFFSET_EXTENDED_SF:
    if (gorc_eh_rd_sleb(pp, end, &sv) != GORC_EH_OK)
      return GORC_EH_BAD;
    ok = gorc_eh_mul_daf(it, sv, &off);
    gorc_eh_set_offset(it, reg, ok, off);
    return GORC_EH_OK;
  case GORC_EH_CFA_RESTORE_EXTENDED:
    gorc_eh_restore_column(it, reg);
    return GORC_EH_OK;
  case GORC_EH_CFA_UNDEFINED:
    gorc_eh_set_how(it, reg, GORC_EH_REG_UNDEF);
    return GORC_EH_OK;
  case GORC_EH_CFA_SAME_VALUE:
    gorc_eh_set_how(it, reg, GORC_EH_REG_SAME);
    return GORC_EH_OK;
  case GORC_EH_CFA_REGISTER:
  case GORC_EH_CFA_VAL_OFFSET:
    if (gorc_eh_rd_uleb(pp, end, &u) != GORC_EH_OK)
      return GORC_EH_BAD;
    gorc_eh_set_how(it, reg, GORC_EH_REG_OTHER);
    return GORC_EH_OK;
  case GORC_EH_CFA_VAL_OFFSET_SF:
    if (gorc_eh_rd_sleb(pp, end, &sv) != GORC_EH_OK)
      return GORC_EH_BAD;
    gorc_eh_set_how(it, reg, GORC_EH_REG_OTHER);
    return GORC_EH_OK;
  case GORC_EH_CFA_EXPRESSION:
    if (gorc_eh_rd_block(pp, end, &blk, &blk_end) != GORC_EH_OK)
      return GORC_EH_BAD;
    gorc_eh_reg_expression(it, reg, blk, blk_end);
    return GORC_EH_OK;
  default:                      /* GORC_EH_CFA_VAL_EXPRESSION */
    if (gorc_eh_rd_block(pp, end, &blk, &blk_end) != GORC_EH_OK)
      return GORC_EH_BAD;
    gorc_eh_set_how(it, reg, GORC_EH_REG_OTHER);
    return GORC_EH_OK;
  }
}

/* Run the instructions [*pp, end) until the row holding at it->pc is
   complete (GORC_EH_DONE) or they end (GORC_EH_OK: the current row
   holds).  Each turn consumes at least one byte; *PP is left after the
   last one run, so that a walk over the rows goes on from there
   (gorc_eh_rows_state).  */
static inline int gorc_eh_run(struct gorc_eh_interp *it, const uint8_t **pp, const uint8_t *end)
{
  const uint8_t *p = *pp;
  uint64_t u;
  int err;

  while (p < end) {
    uint8_t op = *p++;
    if (op & 0xc0) {
      err = gorc_eh_run_primary(it, op, &p, end);
    } else {
      switch (op) {
      case GORC_EH_CFA_NOP:
        err = GORC_EH_OK;
        break;
      case GORC_EH_CFA_SET_LOC: case GORC_EH_CFA_ADVANCE_LOC1: case GORC_EH_CFA_ADVANCE_LOC2:
      case GORC_EH_CFA_ADVANCE_LOC4: case GORC_EH_CFA_REMEMBER_STATE:
      case GORC_EH_CFA_RESTORE_STATE:
        err = gorc_eh_run_row_op(it, op, &p, end);
        break;
      case GORC_EH_CFA_DEF_CFA: case GORC_EH_CFA_DEF_CFA_SF: case GORC_EH_CFA_DEF_CFA_REGISTER:
      case GORC_EH_CFA_DEF_CFA_OFFSET: case GORC_EH_CFA_DEF_CFA_OFFSET_SF:
      case GORC_EH_CFA_DEF_CFA_EXPRESSION:
        err = gorc_eh_run_cfa_op(it, op, &p, end);
        break;
      case GORC_EH_CFA_OFFSET_EXTENDED: case GORC_EH_CFA_GNU_NEGATIVE_OFFSET_EXTENDED:
      case GORC_EH_CFA_OFFSET_EXTENDED_SF: case GORC_EH_CFA_RESTORE_EXTENDED:
      case GORC_EH_CFA_UNDEFINED:
      case GORC_EH_CFA_SAME_VALUE: case GORC_EH_CFA_REGISTER: case GORC_EH_CFA_VAL_OFFSET:
      case GORC_EH_CFA_VAL_OFFSET_SF:
      case GORC_EH_CFA_EXPRESSION: case GORC_EH_CFA_VAL_EXPRESSION:
        err = gorc_eh_run_reg_op(it, op, &p, end);
        break;
      case GORC_EH_CFA_GNU_ARGS_SIZE:
        err = gorc_eh_rd_uleb(&p, end, &u);
        break;
      case GORC_EH_CFA_GNU_WINDOW_SAVE:
        /* aarch64's negate_ra_state (SPARC's window save elsewhere).  */
        if (it->machine != GORC_MACHINE_AARCH64)
          return GORC_EH_BAD;
        it->row.ra_signed ^= 1;
        err = GORC_EH_OK;
        break;
      default:
        return GORC_EH_BAD;          /* unknown or vendor opcode */
      }
    }
    if (err != GORC_EH_OK) {
      *pp = p;
      return err;
    }
  }
  *pp = p;
  return GORC_EH_OK;
}

/* The state at PC of an FDE covering [pc_begin, ...) whose instructions
   are [insns, insns_end); *NEXT (when not NULL) where the row holding at
   PC ends (UINT64_MAX: at the FDE's end).  */
/* IT made ready to run an FDE's instructions from PC_BEGIN towards PC:
   the CIE's initial instructions run.  GORC_EH_OK or GORC_EH_BAD.  */
static inline int gorc_eh_interp_start(struct gorc_eh_interp *it, unsigned machine,
                                       const struct gorc_eh_cie *cie, uint64_t pc_begin,
                                       uint64_t pc)
{
  const uint8_t *p = cie->insns;

  it->machine = machine;
  it->cie = cie;
  gorc_eh_default_row(&it->row, machine);
  it->init = it->row;         /* what DW_CFA_restore in the CIE goes back to */
  it->depth = 0;
  it->in_cie = 1;
  it->loc = pc_begin;
  it->pc = pc;
  it->next = UINT64_MAX;
  if (gorc_eh_run(it, &p, cie->insns_end) != GORC_EH_OK)
    return GORC_EH_BAD;
  it->init = it->row;
  it->in_cie = 0;
  return GORC_EH_OK;
}

/* ---- the FDE ---- */

/* The CIE of the FDE R: its pointer counts back from its own field to a
   CIE that ends before the FDE starts.  */
static inline int gorc_eh_fde_cie(const struct gorc_eh_section *s,
                                  const struct gorc_eh_record *r, struct gorc_eh_cie *cie)
{
  struct gorc_eh_record cr;

  if (r->id == 0 || r->id > (uint64_t)(r->id_field - s->start))
    return GORC_EH_BAD;
  if (gorc_eh_rd_record(s, r->id_field - r->id, &cr) != GORC_EH_OK || cr.end > r->start)
    return GORC_EH_BAD;
  return gorc_eh_parse_cie(&cr, cie);
}

/* An FDE read: its CIE, the range it covers, and (once
   gorc_eh_fde_insns has passed its augmentation data) its
   instructions.  */
struct gorc_eh_fde {
  struct gorc_eh_cie cie;
  uint64_t pc_begin, pc_range;
  const uint8_t *insns, *insns_end;
};

/* The FDE at FDE_ADDR, which the search table says starts at LOC, into
   *F.  1, 0 (its CIE is not for gorc) or GORC_EH_BAD.  */
static inline int gorc_eh_fde_open(const struct gorc_eh_frame *ef, uint64_t fde_addr,
                                   uint64_t loc, struct gorc_eh_fde *f)
{
  struct gorc_eh_section s;
  struct gorc_eh_record r;
  int err;

  if (ef->lo > ef->hi || fde_addr < ef->lo || fde_addr >= ef->hi)
    return GORC_EH_BAD;
  s.start = (const uint8_t *)(uintptr_t)ef->lo;
  s.end = (const uint8_t *)(uintptr_t)ef->hi;
  if (gorc_eh_rd_record(&s, (const uint8_t *)(uintptr_t)fde_addr, &r) != GORC_EH_OK)
    return GORC_EH_BAD;
  if ((err = gorc_eh_fde_cie(&s, &r, &f->cie)) != GORC_EH_OK)
    return err == GORC_EH_UNSUPPORTED ? 0 : GORC_EH_BAD;
  f->insns = r.body;
  f->insns_end = r.end;
  if (gorc_eh_rd_encoded(&f->insns, r.end, f->cie.fde_enc, 1, 0, &f->pc_begin) != GORC_EH_OK
      || gorc_eh_rd_encoded(&f->insns, r.end, f->cie.fde_enc & 0x0f, 0, 0, &f->pc_range)
             != GORC_EH_OK)
    return GORC_EH_BAD;
  if (f->pc_begin != loc)
    return GORC_EH_BAD;              /* the table and the FDE disagree */
  return 1;
}

/* The FDE of EF covering PC into *F: 1, 0 when none does (or EF has no
   search table), GORC_EH_BAD when the tables are malformed where the
   search went.  *LOC gets the location of the last search-table entry
   at or below PC (UINT64_MAX: none), *NEXT the next entry's.  An FDE's
   first address is its function's entry: gorc-prof names a function no
   symbol names by it.  */
static inline int gorc_eh_fde_at(const struct gorc_eh_frame *ef, uint64_t pc,
                                 struct gorc_eh_fde *f, uint64_t *loc, uint64_t *next)
{
  struct gorc_eh_table t;
  uint64_t fde_addr;
  int rc = gorc_eh_open_table(ef, &t);

  *loc = *next = UINT64_MAX;
  if (rc != 1)
    return rc;
  if (!gorc_eh_search(&t, pc, loc, &fde_addr, next))
    return 0;
  rc = gorc_eh_fde_open(ef, fde_addr, *loc, f);
  return rc == 1 && pc - f->pc_begin >= f->pc_range ? 0 : rc;
}

/* F's instructions found: its augmentation data passed.  */
static inline int gorc_eh_fde_insns(struct gorc_eh_fde *f)
{
  uint64_t auglen;

  if (!f->cie.has_z)
    return GORC_EH_OK;
  if (gorc_eh_rd_uleb(&f->insns, f->insns_end, &auglen) != GORC_EH_OK
      || auglen > (uint64_t)(f->insns_end - f->insns))
    return GORC_EH_BAD;
  f->insns += auglen;
  return GORC_EH_OK;
}

/* ---- a walk over the rows ---- */

/* The lookup, and a walk over a module's rows in address order (a table
   builder: gorc-prof --unwind=bpf).  On a walk an FDE's interpretation
   goes on from one row to the next, where a lookup runs the FDE from its
   first instruction: linear in an FDE's rows, not quadratic (libc:
   30,840 rows).  LIVE 0 to start (nothing else is read before it is
   written); it does not move (IT points at FDE's CIE).  */
struct gorc_eh_rows {
  struct gorc_eh_fde fde;
  struct gorc_eh_interp it;
  const uint8_t *p;              /* FDE's instructions not run yet */
  uint64_t next_fde;             /* the next FDE's start (the search table's) */
  int live;                      /* IT holds FDE's row that ends at it.next */
};

static inline uint64_t gorc_eh_min3(uint64_t a, uint64_t b, uint64_t c)
{
  uint64_t m = a < b ? a : b;
  return m < c ? m : c;
}

/* PC, which no FDE covers, in the module's entry code: from EF->entry,
   where no FDE starts (BELOW: the last FDE starting at or below PC,
   UINT64_MAX for none), up to the next FDE (NEXT_FDE).  The kernel
   starts a process there on its initial stack: its frame is the
   outermost.  glibc's ld.so has no CFI for its _start and
   _dl_start_user, from which _dl_start and the libraries' constructors
   are called; each stack through them ended there, incomplete.  A
   program's own _start has CFI saying the same (the return address
   undefined), and a shared library has no entry point.  */
static inline int gorc_eh_in_entry(const struct gorc_eh_frame *ef, uint64_t pc, uint64_t below,
                                   uint64_t next_fde)
{
  return ef->entry && ef->entry <= pc && pc < next_fde
         && (below == UINT64_MAX || below < ef->entry);
}

/* The state at PC (gorc_eh_frame_state's answer), and in *NEXT the
   first address above PC where it may change, through the walk W: where
   the last answer's row ended (its *NEXT), inside the same FDE, the
   interpretation goes on; elsewhere it starts over: a search of the
   table, the FDE it names read and checked to cover PC, and its
   instructions run up to the row that holds at PC.  */
static inline int gorc_eh_rows_state(const struct gorc_eh_frame *ef, struct gorc_eh_rows *w,
                                     uint64_t pc, struct gorc_state *out, uint64_t *next)
{
  uint64_t loc = UINT64_MAX, next_fde = UINT64_MAX;
  int rc;

  if (w->live && pc == w->it.next && pc - w->fde.pc_begin < w->fde.pc_range) {
    w->it.loc = pc;
    w->it.pc = pc;
    w->it.next = UINT64_MAX;
    rc = gorc_eh_run(&w->it, &w->p, w->fde.insns_end) == GORC_EH_BAD ? GORC_EH_BAD : 1;
    next_fde = w->next_fde;
  } else {
    w->live = 0;
    rc = gorc_eh_fde_at(ef, pc, &w->fde, &loc, &next_fde);
    if (rc == 1
        && (gorc_eh_fde_insns(&w->fde) != GORC_EH_OK
            || gorc_eh_interp_start(&w->it, ef->machine, &w->fde.cie, w->fde.pc_begin, pc)
                   != GORC_EH_OK))
      rc = GORC_EH_BAD;
    if (rc == 1) {
      w->p = w->fde.insns;
      if (gorc_eh_run(&w->it, &w->p, w->fde.insns_end) == GORC_EH_BAD)
        rc = GORC_EH_BAD;
    }
  }
  w->live = rc == 1;
  w->next_fde = next_fde;
  if (rc == 1) {
    gorc_eh_row_state(&w->it, out);
    *next = gorc_eh_min3(w->it.next, w->fde.pc_begin + w->fde.pc_range, next_fde);
  } else if (rc == 0 && gorc_eh_in_entry(ef, pc, loc, next_fde)) {
    gorc_eh_undefined_state(out, 1);
    *next = next_fde;
    rc = 1;
  } else {
    /* (a gap below the entry ends at it) */
    *next = rc == 0 && ef->entry > pc && ef->entry < next_fde ? ef->entry : next_fde;
  }
  return rc == GORC_EH_BAD ? -1 : rc;
}

static inline int gorc_eh_frame_state(const struct gorc_eh_frame *ef, uint64_t pc,
                                      struct gorc_state *out)
{
  struct gorc_eh_rows w;
  uint64_t next;

  w.live = 0;
  return gorc_eh_rows_state(ef, &w, pc, out, &next);
}

#endif /* GORC_EH_FRAME_H */
