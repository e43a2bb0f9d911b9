/* libgorc: the unwind state of one address from .eh_frame, read in place
   at walk time (see ehframe.h for the interface and the rules produced).

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
   row's CFA, rbp, rbx and return-address rules onto a gorc_state:

     CFA  reg R + off   R 7 -> GORC_CFA_SP, 6 -> GORC_CFA_BP,
                        other 0..15 -> GORC_CFA_REG (cfa_reg R)
          expression "DW_OP_bregR off; DW_OP_deref" (R 0..15)
                        -> GORC_CFA_DEREF
          ld's PLT expression (see match_plt) -> GORC_CFA_SP_PLT
          anything else -> GORC_CFA_UNDEFINED
     rbp  same_value or no rule (the ABI default) -> GORC_BP_SAME
          offset(N)     -> GORC_BP_CFA, bp_off = N * data_align
          expression "DW_OP_bregR k" (R 0..15) -> GORC_BP_REG
          anything else -> GORC_BP_UNDEFINED
     rbx  same_value or no rule -> GORC_AUX_SAME
          offset(N)     -> GORC_AUX_CFA, aux_off = N * data_align
          anything else -> GORC_AUX_UNKNOWN
     RA   offset(N)     -> GORC_RA_CFA, ra_off = N * data_align
          undefined (glibc's _start, clone, start_thread: the outermost
          frame) -> GORC_RA_UNDEFINED, the other columns as above
          anything else (and a CIE whose return-address column is not
          16) -> the CFA is GORC_CFA_UNDEFINED
   A state whose CFA is GORC_CFA_UNDEFINED always has rbp
   GORC_BP_UNDEFINED, rbx GORC_AUX_UNKNOWN and zero offsets (ra_off -8
   unless the return address is undefined), so equal rules give equal
   states.  */

#include <stddef.h>
#include "arch-x86_64.h"
#include "ehframe.h"
#include "gorc.h"

#define EH_STACK_DEPTH 8

/* DW_EH_PE_* pointer encodings.  */
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SIGNED 0x08
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_TEXTREL 0x20
#define PE_DATAREL 0x30
#define PE_FUNCREL 0x40
#define PE_ALIGNED 0x50
#define PE_INDIRECT 0x80
#define PE_OMIT 0xff

/* DW_CFA_* opcodes.  */
#define CFA_ADVANCE_LOC 0x40
#define CFA_OFFSET 0x80
#define CFA_RESTORE 0xc0
#define CFA_NOP 0x00
#define CFA_SET_LOC 0x01
#define CFA_ADVANCE_LOC1 0x02
#define CFA_ADVANCE_LOC2 0x03
#define CFA_ADVANCE_LOC4 0x04
#define CFA_OFFSET_EXTENDED 0x05
#define CFA_RESTORE_EXTENDED 0x06
#define CFA_UNDEFINED 0x07
#define CFA_SAME_VALUE 0x08
#define CFA_REGISTER 0x09
#define CFA_REMEMBER_STATE 0x0a
#define CFA_RESTORE_STATE 0x0b
#define CFA_DEF_CFA 0x0c
#define CFA_DEF_CFA_REGISTER 0x0d
#define CFA_DEF_CFA_OFFSET 0x0e
#define CFA_DEF_CFA_EXPRESSION 0x0f
#define CFA_EXPRESSION 0x10
#define CFA_OFFSET_EXTENDED_SF 0x11
#define CFA_DEF_CFA_SF 0x12
#define CFA_DEF_CFA_OFFSET_SF 0x13
#define CFA_VAL_OFFSET 0x14
#define CFA_VAL_OFFSET_SF 0x15
#define CFA_VAL_EXPRESSION 0x16
#define CFA_GNU_ARGS_SIZE 0x2e
#define CFA_GNU_NEGATIVE_OFFSET_EXTENDED 0x2f

/* DW_OP_* opcodes of the expressions recognised.  */
#define OP_DEREF 0x06
#define OP_AND 0x1a
#define OP_PLUS 0x22
#define OP_SHL 0x24
#define OP_GE 0x2a
#define OP_LIT0 0x30
#define OP_LIT31 0x4f
#define OP_BREG0 0x70
#define OP_BREG15 0x7f

/* Results of the parsing helpers.  */
#define EH_OK 0
#define EH_BAD (-1)          /* malformed: -GORC_ECORRUPT */
#define EH_UNSUPPORTED (-2)  /* well-formed but not for gorc: no FDE here */
#define EH_DONE 1            /* interpretation reached the row of PC */

/* ---- bounded readers ---- */

static int rd_fixed(const uint8_t **pp, const uint8_t *end, unsigned n, uint64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t v = 0;
  if (p > end || (size_t)(end - p) < n)
    return EH_BAD;
  for (unsigned i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8 * i);
  *pp = p + n;
  *out = v;
  return EH_OK;
}

static int rd_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  return gorc_get_uleb(pp, end, out) == GORC_DECODE_OK ? EH_OK : EH_BAD;
}

static int rd_sleb(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
  return gorc_get_sleb(pp, end, out) == GORC_DECODE_OK ? EH_OK : EH_BAD;
}

static uint64_t addr_of(const uint8_t *p)
{
  return (uint64_t)(uintptr_t)p;
}

/* Is ENC an encoding this reader can decode?  ALLOW_INDIRECT only for the
   personality, whose value is never used.  */
static int check_encoding(uint8_t enc, int allow_indirect)
{
  if (enc == PE_OMIT)
    return EH_UNSUPPORTED;
  if ((enc & PE_INDIRECT) && !allow_indirect)
    return EH_UNSUPPORTED;
  switch (enc & 0x0f) {
  case PE_ABSPTR: case PE_ULEB128: case PE_UDATA2: case PE_UDATA4:
  case PE_UDATA8: case PE_SIGNED: case PE_SLEB128: case PE_SDATA2:
  case PE_SDATA4: case PE_SDATA8:
    break;
  default:
    return EH_BAD;
  }
  switch (enc & 0x70) {
  case 0: case PE_PCREL: case PE_DATAREL:
    return EH_OK;
  case PE_TEXTREL: case PE_FUNCREL: case PE_ALIGNED:
    return EH_UNSUPPORTED;
  default:
    return EH_BAD;
  }
}

/* Read a pointer encoded as ENC (already accepted by check_encoding).
   APPLY: apply the pcrel/datarel base (not for pc_range, which only uses
   the value format).  DATAREL is the datarel base: 0 in .eh_frame (as
   libgcc and libdw read x86-64 .eh_frame), the header's address in
   .eh_frame_hdr.  */
static int rd_encoded(const uint8_t **pp, const uint8_t *end, uint8_t enc, int apply,
                      uint64_t datarel, uint64_t *out)
{
  const uint8_t *field = *pp;
  uint64_t v;
  int64_t sv;
  int err;

  switch (enc & 0x0f) {
  case PE_ABSPTR: case PE_UDATA8: case PE_SIGNED: case PE_SDATA8:
    err = rd_fixed(pp, end, 8, &v);
    break;
  case PE_ULEB128:
    err = rd_uleb(pp, end, &v);
    break;
  case PE_SLEB128:
    err = rd_sleb(pp, end, &sv);
    v = (uint64_t)sv;
    break;
  case PE_UDATA2:
    err = rd_fixed(pp, end, 2, &v);
    break;
  case PE_SDATA2:
    err = rd_fixed(pp, end, 2, &v);
    v = (uint64_t)(int64_t)(int16_t)(uint16_t)v;
    break;
  case PE_UDATA4:
    err = rd_fixed(pp, end, 4, &v);
    break;
  case PE_SDATA4:
    err = rd_fixed(pp, end, 4, &v);
    v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
    break;
  default:
    return EH_BAD;
  }
  if (err != EH_OK)
    return err;
  if (apply && (enc & 0x70) == PE_PCREL)
    v += addr_of(field);
  else if (apply && (enc & 0x70) == PE_DATAREL)
    v += datarel;
  *out = v;
  return EH_OK;
}

/* ---- the search table (.eh_frame_hdr) ---- */

struct eh_table {
  const uint8_t *entries, *end;   /* COUNT entries of two fields */
  uint64_t hdr, count;
  unsigned field;                 /* bytes per field: 2, 4 or 8 */
  uint8_t enc;
};

/* The size of one field of a search table in ENC, or 0 when the table
   cannot be searched in place: variable-size fields cannot be bisected,
   and absolute addresses are link-time ones that the loader does not
   relocate in this read-only section.  */
static unsigned table_field_size(uint8_t enc)
{
  if ((enc & 0x70) != PE_DATAREL && (enc & 0x70) != PE_PCREL)
    return 0;
  switch (enc & 0x8f) {
  case PE_UDATA2: case PE_SDATA2:
    return 2;
  case PE_UDATA4: case PE_SDATA4:
    return 4;
  case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8:
    return 8;
  default:
    return 0;
  }
}

/* Read the header: 1 with a searchable table in *T, 0 when there is none
   (or one this reader cannot search), EH_BAD when it is malformed.  */
static int open_table(const struct gorc_rt_ehframe *ef, struct eh_table *t)
{
  uint64_t version, eh_ptr_enc, count_enc, table_enc, ignored;
  const uint8_t *p, *end;

  if (ef->hdr == 0 || ef->hdr_size == 0)
    return 0;
  if (ef->hdr + ef->hdr_size < ef->hdr)
    return EH_BAD;
  p = (const uint8_t *)(uintptr_t)ef->hdr;
  end = p + ef->hdr_size;
  if (rd_fixed(&p, end, 1, &version) != EH_OK || rd_fixed(&p, end, 1, &eh_ptr_enc) != EH_OK
      || rd_fixed(&p, end, 1, &count_enc) != EH_OK || rd_fixed(&p, end, 1, &table_enc) != EH_OK)
    return EH_BAD;
  if (version != 1)
    return 0;
  if (eh_ptr_enc != PE_OMIT) {
    if (check_encoding((uint8_t)eh_ptr_enc, 0) != EH_OK)
      return 0;
    if (rd_encoded(&p, end, (uint8_t)eh_ptr_enc, 1, ef->hdr, &ignored) != EH_OK)
      return EH_BAD;
  }
  if (count_enc == PE_OMIT || table_enc == PE_OMIT)
    return 0;
  t->field = table_field_size((uint8_t)table_enc);
  if (t->field == 0 || check_encoding((uint8_t)count_enc, 0) != EH_OK)
    return 0;
  if (rd_encoded(&p, end, (uint8_t)count_enc, 1, ef->hdr, &t->count) != EH_OK)
    return EH_BAD;
  if (t->count > (uint64_t)(end - p) / (2 * t->field))
    return EH_BAD;
  t->entries = p;
  t->end = end;
  t->hdr = ef->hdr;
  t->enc = (uint8_t)table_enc;
  return t->count > 0;
}

/* Field K (0: initial location, 1: FDE address) of entry I.  */
static uint64_t table_field(const struct eh_table *t, uint64_t i, unsigned k)
{
  const uint8_t *p = t->entries + (i * 2 + k) * t->field;
  uint64_t v = 0;
  rd_encoded(&p, t->end, t->enc, 1, t->hdr, &v);  /* in bounds: checked by open_table */
  return v;
}

/* The FDE address of the last entry whose initial location is at or
   below PC, with that location in *LOC; 0 when PC is below every
   entry.  */
static int search(const struct eh_table *t, uint64_t pc, uint64_t *loc, uint64_t *fde)
{
  uint64_t lo = 0, hi = t->count;
  while (lo < hi) {             /* first entry whose location is above PC */
    uint64_t mid = lo + (hi - lo) / 2;
    if (table_field(t, mid, 0) <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return 0;
  *loc = table_field(t, lo - 1, 0);
  *fde = table_field(t, lo - 1, 1);
  return 1;
}

/* ---- records ---- */

/* The bytes CIEs and FDEs may be read from.  */
struct eh_section {
  const uint8_t *start, *end;
};

/* One CIE or FDE: [start, end) is the whole record, BODY follows the
   CIE id / CIE pointer field ID_FIELD.  */
struct eh_record {
  const uint8_t *start, *id_field, *body, *end;
  uint64_t id;
};

/* Parse the record header at P (inside S).  Returns EH_OK, or EH_BAD
   when the record does not fit or is the zero terminator.  */
static int rd_record(const struct eh_section *s, const uint8_t *p, struct eh_record *r)
{
  uint64_t len;
  unsigned idsize = 4;

  r->start = p;
  if (rd_fixed(&p, s->end, 4, &len) != EH_OK || len == 0)
    return EH_BAD;
  if (len == 0xffffffff) {
    if (rd_fixed(&p, s->end, 8, &len) != EH_OK)
      return EH_BAD;
    idsize = 8;
  }
  if (len > (uint64_t)(s->end - p) || len < idsize)
    return EH_BAD;
  r->end = p + len;
  r->id_field = p;
  if (rd_fixed(&p, r->end, idsize, &r->id) != EH_OK)
    return EH_BAD;
  r->body = p;
  return EH_OK;
}

struct eh_cie {
  const uint8_t *insns, *insns_end;
  uint64_t code_align;
  int64_t data_align;
  uint64_t ra_reg;
  uint8_t fde_enc;
  int has_z;
};

/* The augmentation data of a "z" CIE: AUG names the fields.  */
static int parse_augmentation(const uint8_t *aug, const uint8_t *aug_end, const uint8_t *d,
                              const uint8_t *dend, struct eh_cie *c)
{
  uint64_t v;
  uint8_t enc;
  int err;

  for (const uint8_t *a = aug + 1; a < aug_end; a++) {
    switch (*a) {
    case 'L':
      if (d >= dend)
        return EH_BAD;
      enc = *d++;
      if (enc != PE_OMIT && (err = check_encoding(enc, 0)) != EH_OK)
        return err;
      break;
    case 'R':
      if (d >= dend)
        return EH_BAD;
      c->fde_enc = *d++;
      if ((err = check_encoding(c->fde_enc, 0)) != EH_OK)
        return err;
      break;
    case 'P':
      if (d >= dend)
        return EH_BAD;
      enc = *d++;
      if (enc == PE_OMIT)
        break;
      if ((err = check_encoding(enc, 1)) != EH_OK)
        return err;
      if (rd_encoded(&d, dend, enc, 0, 0, &v) != EH_OK)
        return EH_BAD;
      break;
    case 'S':                   /* a signal frame: its rows read normally */
      break;
    default:
      return EH_UNSUPPORTED;
    }
  }
  return EH_OK;
}

static int parse_cie(const struct eh_record *r, struct eh_cie *c)
{
  const uint8_t *p = r->body, *end = r->end, *aug, *aug_end;
  uint64_t version, v, auglen;
  int err;

  if (r->id != 0)
    return EH_BAD;
  c->fde_enc = PE_ABSPTR;
  c->has_z = 0;
  if (rd_fixed(&p, end, 1, &version) != EH_OK)
    return EH_BAD;
  if (version != 1 && version != 3 && version != 4)
    return EH_UNSUPPORTED;
  aug = p;
  while (p < end && *p)
    p++;
  if (p >= end)
    return EH_BAD;
  aug_end = p++;
  if (aug < aug_end && aug[0] != 'z')
    return EH_UNSUPPORTED;      /* e.g. the pre-"z" GCC "eh" */
  if (version == 4) {           /* address_size, segment_selector_size */
    if (rd_fixed(&p, end, 1, &v) != EH_OK)
      return EH_BAD;
    if (v != 8)
      return EH_UNSUPPORTED;
    if (rd_fixed(&p, end, 1, &v) != EH_OK)
      return EH_BAD;
    if (v != 0)
      return EH_UNSUPPORTED;
  }
  if (rd_uleb(&p, end, &c->code_align) != EH_OK || rd_sleb(&p, end, &c->data_align) != EH_OK)
    return EH_BAD;
  if (version == 1)
    err = rd_fixed(&p, end, 1, &c->ra_reg);
  else
    err = rd_uleb(&p, end, &c->ra_reg);
  if (err != EH_OK)
    return EH_BAD;
  if (aug < aug_end) {
    c->has_z = 1;
    if (rd_uleb(&p, end, &auglen) != EH_OK || auglen > (uint64_t)(end - p))
      return EH_BAD;
    if ((err = parse_augmentation(aug, aug_end, p, p + auglen, c)) != EH_OK)
      return err;
    p += auglen;
  }
  if (c->code_align == 0)
    return EH_BAD;
  c->insns = p;
  c->insns_end = end;
  return EH_OK;
}

/* ---- the CFA program ---- */

enum cfa_how { CFA_NONE, CFA_REGOFF, CFA_EXPR_DEREF, CFA_EXPR_PLT, CFA_INVALID };
enum reg_how { REG_SAME, REG_UNDEF, REG_OFFSET, REG_EXPR_BREG, REG_OTHER };

struct cfa_rule {
  uint8_t how;                /* enum cfa_how */
  uint8_t off_ok;             /* off did not overflow */
  uint8_t threshold;          /* CFA_EXPR_PLT */
  uint64_t reg;
  int64_t off;
};

struct reg_rule {
  uint8_t how;                /* enum reg_how */
  uint8_t reg;                /* REG_EXPR_BREG */
  int64_t off;                /* REG_OFFSET: CFA + off; _EXPR_BREG: reg + off */
};

struct eh_row {
  struct cfa_rule cfa;
  struct reg_rule bp, bx, ra;
};

struct eh_interp {
  const struct eh_cie *cie;
  struct eh_row row, init;    /* init: after the CIE's instructions */
  struct eh_row stack[EH_STACK_DEPTH];
  unsigned depth;
  int in_cie;
  uint64_t loc;               /* where the current row starts */
  uint64_t pc;                /* the address looked up */
};

static void default_row(struct eh_row *r)
{
  r->cfa.how = CFA_NONE;
  r->cfa.off_ok = 1;
  r->cfa.threshold = 0;
  r->cfa.reg = 0;
  r->cfa.off = 0;
  r->bp.how = REG_SAME;       /* rbp is callee-saved: same_value by default */
  r->bp.reg = 0;
  r->bp.off = 0;
  r->bx = r->bp;              /* rbx is callee-saved too */
  r->ra.how = REG_OTHER;      /* no rule: not where gorc looks */
  r->ra.reg = 0;
  r->ra.off = 0;
}

/* The state of a row gorc cannot follow.  RA_UNDEFINED keeps the
   outermost-frame mark.  */
static void undefined_state(struct gorc_state *s, int ra_undefined)
{
  s->cfa_kind = GORC_CFA_UNDEFINED;
  s->cfa_reg = 0;
  s->bp_kind = GORC_BP_UNDEFINED;
  s->bp_reg = 0;
  s->aux_kind = GORC_AUX_UNKNOWN;
  s->ra_kind = ra_undefined ? GORC_RA_UNDEFINED : GORC_RA_CFA;
  s->cfa_off = s->bp_off = s->aux_off = 0;
  s->ra_off = ra_undefined ? 0 : -8;
}

/* The CFA column of R into S; 0 when gorc cannot follow it.  */
static int cfa_state(const struct cfa_rule *c, struct gorc_state *s)
{
  switch (c->how) {
  case CFA_REGOFF:
    if (c->reg > GORC_DWARF_MAX_GPR || !c->off_ok)
      return 0;
    gorc_state_set_cfa_reg(s, GORC_RT_MACHINE, (unsigned)c->reg, c->off);
    return 1;
  case CFA_EXPR_DEREF:
    s->cfa_kind = GORC_CFA_DEREF;
    s->cfa_reg = (uint8_t)c->reg;
    s->cfa_off = c->off;
    return 1;
  case CFA_EXPR_PLT:
    s->cfa_kind = GORC_CFA_SP_PLT;
    s->cfa_reg = c->threshold;
    s->cfa_off = c->off;
    return 1;
  default:
    return 0;
  }
}

static void bp_state(const struct reg_rule *bp, struct gorc_state *s)
{
  s->bp_kind = GORC_BP_UNDEFINED;
  s->bp_reg = 0;
  s->bp_off = 0;
  switch (bp->how) {
  case REG_SAME:
    s->bp_kind = GORC_BP_SAME;
    break;
  case REG_OFFSET:
    s->bp_kind = GORC_BP_CFA;
    s->bp_off = bp->off;
    break;
  case REG_EXPR_BREG:
    s->bp_kind = GORC_BP_REG;
    s->bp_reg = bp->reg;
    s->bp_off = bp->off;
    break;
  default:
    break;
  }
}

static void aux_state(const struct reg_rule *bx, struct gorc_state *s)
{
  s->aux_off = 0;
  if (bx->how == REG_SAME) {
    s->aux_kind = GORC_AUX_SAME;
  } else if (bx->how == REG_OFFSET) {
    s->aux_kind = GORC_AUX_CFA;
    s->aux_off = bx->off;
  } else {
    s->aux_kind = GORC_AUX_UNKNOWN;
  }
}

/* The state of the current row (the rules are in the file's head).  */
static void row_state(const struct eh_interp *it, struct gorc_state *s)
{
  const struct eh_row *r = &it->row;
  int ra_undefined = r->ra.how == REG_UNDEF;

  undefined_state(s, ra_undefined);
  if (it->cie->ra_reg != GORC_DWARF_RA || (!ra_undefined && r->ra.how != REG_OFFSET))
    return;
  if (!cfa_state(&r->cfa, s))
    return;
  if (!ra_undefined)
    s->ra_off = r->ra.off;
  bp_state(&r->bp, s);
  aux_state(&r->bx, s);
}

/* The row at it->loc is complete; the next one starts at NEW_LOC.
   EH_DONE when the current row is the one holding at PC.  */
static int advance(struct eh_interp *it, uint64_t new_loc)
{
  if (it->in_cie || new_loc < it->loc)
    return EH_BAD;
  if (new_loc > it->pc)
    return EH_DONE;
  it->loc = new_loc;
  return EH_OK;
}

static int advance_by(struct eh_interp *it, uint64_t delta)
{
  uint64_t d, loc;
  if (__builtin_mul_overflow(delta, it->cie->code_align, &d)
      || __builtin_add_overflow(it->loc, d, &loc))
    loc = UINT64_MAX;           /* past any address */
  return advance(it, loc);
}

/* N * data_align; 0 on overflow (*OUT is then 0).  */
static int mul_daf(const struct eh_interp *it, int64_t n, int64_t *out)
{
  if (__builtin_mul_overflow(n, it->cie->data_align, out)) {
    *out = 0;
    return 0;
  }
  return 1;
}

/* The rule of column REG in R, or NULL for a column gorc does not track.  */
static struct reg_rule *column(struct eh_row *r, uint64_t reg)
{
  if (reg == GORC_DWARF_RBP)
    return &r->bp;
  if (reg == GORC_DWARF_RBX)
    return &r->bx;
  if (reg == GORC_DWARF_RA)
    return &r->ra;
  return NULL;
}

static void set_offset(struct eh_interp *it, uint64_t reg, int ok, int64_t off)
{
  struct reg_rule *rr = column(&it->row, reg);
  if (!rr)
    return;
  rr->how = ok ? REG_OFFSET : REG_OTHER;
  rr->off = off;
}

static void set_how(struct eh_interp *it, uint64_t reg, uint8_t how)
{
  struct reg_rule *rr = column(&it->row, reg);
  if (rr)
    rr->how = how;
}

static void restore_column(struct eh_interp *it, uint64_t reg)
{
  struct reg_rule *rr = column(&it->row, reg);
  if (rr)
    *rr = *column(&it->init, reg);
}

/* A DWARF expression block of LEN bytes at *PP.  */
static int rd_block(const uint8_t **pp, const uint8_t *end, const uint8_t **blk,
                    const uint8_t **blk_end)
{
  uint64_t len;
  if (rd_uleb(pp, end, &len) != EH_OK || len > (uint64_t)(end - *pp))
    return EH_BAD;
  *blk = *pp;
  *blk_end = *pp + len;
  *pp += len;
  return EH_OK;
}

/* Is [p, end) exactly "DW_OP_bregN k" (N 0..15), followed by DW_OP_deref
   when DEREF?  */
static int match_breg(const uint8_t *p, const uint8_t *end, int deref, uint8_t *reg,
                      int64_t *off)
{
  if (p >= end || *p < OP_BREG0 || *p > OP_BREG15)
    return 0;
  *reg = (uint8_t)(*p++ - OP_BREG0);
  if (rd_sleb(&p, end, off) != EH_OK)
    return 0;
  if (deref) {
    if (p >= end || *p != OP_DEREF)
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
static int match_plt(const uint8_t *p, const uint8_t *end, int64_t *off, uint8_t *threshold)
{
  static const uint8_t tail[] = { OP_GE, OP_LIT0 + 3, OP_SHL, OP_PLUS };
  int64_t rip_off;

  if (p >= end || *p++ != OP_BREG0 + GORC_DWARF_RSP || rd_sleb(&p, end, off) != EH_OK)
    return 0;
  if (p >= end || *p++ != OP_BREG0 + GORC_DWARF_RA || rd_sleb(&p, end, &rip_off) != EH_OK
      || rip_off != 0)
    return 0;
  if (end - p != 3 + (long)sizeof tail || p[0] != OP_LIT0 + 15 || p[1] != OP_AND
      || p[2] < OP_LIT0 || p[2] > OP_LIT31)
    return 0;
  *threshold = (uint8_t)(p[2] - OP_LIT0);
  for (unsigned i = 0; i < sizeof tail; i++)
    if (p[3 + i] != tail[i])
      return 0;
  return 1;
}

/* DW_CFA_def_cfa_expression with the block [blk, blk_end).  */
static void def_cfa_expression(struct eh_interp *it, const uint8_t *blk, const uint8_t *blk_end)
{
  struct cfa_rule *c = &it->row.cfa;
  uint8_t r8;
  int64_t off;

  c->off_ok = 1;
  if (match_breg(blk, blk_end, 1, &r8, &off)) {
    c->how = CFA_EXPR_DEREF;
    c->reg = r8;
    c->off = off;
  } else if (match_plt(blk, blk_end, &off, &c->threshold)) {
    c->how = CFA_EXPR_PLT;
    c->reg = GORC_DWARF_RSP;
    c->off = off;
  } else {
    c->how = CFA_INVALID;
  }
}

/* DW_CFA_expression on column REG with the block [blk, blk_end).  */
static void reg_expression(struct eh_interp *it, uint64_t reg, const uint8_t *blk,
                           const uint8_t *blk_end)
{
  struct reg_rule *rr = column(&it->row, reg);
  uint8_t r8;
  int64_t off;

  if (!rr)
    return;
  if (match_breg(blk, blk_end, 0, &r8, &off)) {
    rr->how = REG_EXPR_BREG;
    rr->reg = r8;
    rr->off = off;
  } else {
    rr->how = REG_OTHER;
  }
}

/* CFA = register REG + offset OFF (OK: OFF did not overflow).  */
static void def_cfa(struct eh_interp *it, uint64_t reg, int ok, int64_t off)
{
  it->row.cfa.how = CFA_REGOFF;
  it->row.cfa.reg = reg;
  it->row.cfa.off_ok = (uint8_t)ok;
  it->row.cfa.off = ok ? off : 0;
}

/* A new CFA offset for the current register rule.  */
static void def_cfa_offset(struct eh_interp *it, int ok, int64_t off)
{
  if (it->row.cfa.how == CFA_REGOFF)
    def_cfa(it, it->row.cfa.reg, ok, off);
  else
    it->row.cfa.how = CFA_INVALID;
}

/* The primary opcodes (advance_loc, offset, restore: the operand in the
   low 6 bits).  */
static int run_primary(struct eh_interp *it, uint8_t op, const uint8_t **pp, const uint8_t *end)
{
  uint8_t low = op & 0x3f;
  uint64_t u;
  int64_t sv;

  switch (op & 0xc0) {
  case CFA_ADVANCE_LOC:
    return advance_by(it, low);
  case CFA_OFFSET: {
    if (rd_uleb(pp, end, &u) != EH_OK)
      return EH_BAD;
    int ok = u <= INT64_MAX && mul_daf(it, (int64_t)u, &sv);
    set_offset(it, low, ok, sv);
    return EH_OK;
  }
  default:                      /* CFA_RESTORE */
    restore_column(it, low);
    return EH_OK;
  }
}

/* Opcodes that move to the next row or save and restore rows.  */
static int run_row_op(struct eh_interp *it, uint8_t op, const uint8_t **pp, const uint8_t *end)
{
  uint64_t u, loc;

  switch (op) {
  case CFA_SET_LOC:
    if (it->in_cie || rd_encoded(pp, end, it->cie->fde_enc, 1, 0, &loc) != EH_OK)
      return EH_BAD;
    return advance(it, loc);
  case CFA_ADVANCE_LOC1:
  case CFA_ADVANCE_LOC2:
  case CFA_ADVANCE_LOC4:
    if (rd_fixed(pp, end, op == CFA_ADVANCE_LOC1 ? 1 : op == CFA_ADVANCE_LOC2 ? 2 : 4, &u)
        != EH_OK)
      return EH_BAD;
    return advance_by(it, u);
  case CFA_REMEMBER_STATE:
    if (it->depth >= EH_STACK_DEPTH)
      return EH_BAD;
    it->stack[it->depth++] = it->row;
    return EH_OK;
  default:                      /* CFA_RESTORE_STATE */
    if (it->depth == 0)
      return EH_BAD;
    it->row = it->stack[--it->depth];
    return EH_OK;
  }
}

/* Opcodes that set the CFA rule.  */
static int run_cfa_op(struct eh_interp *it, uint8_t op, const uint8_t **pp, const uint8_t *end)
{
  uint64_t reg, u;
  int64_t sv, off;
  int ok;
  const uint8_t *blk, *blk_end;

  switch (op) {
  case CFA_DEF_CFA:
    if (rd_uleb(pp, end, &reg) != EH_OK || rd_uleb(pp, end, &u) != EH_OK)
      return EH_BAD;
    def_cfa(it, reg, u <= INT64_MAX, (int64_t)(u & INT64_MAX));
    return EH_OK;
  case CFA_DEF_CFA_SF:
    if (rd_uleb(pp, end, &reg) != EH_OK || rd_sleb(pp, end, &sv) != EH_OK)
      return EH_BAD;
    ok = mul_daf(it, sv, &off);
    def_cfa(it, reg, ok, off);
    return EH_OK;
  case CFA_DEF_CFA_REGISTER:
    if (rd_uleb(pp, end, &reg) != EH_OK)
      return EH_BAD;
    if (it->row.cfa.how == CFA_REGOFF)
      it->row.cfa.reg = reg;
    else
      it->row.cfa.how = CFA_INVALID;
    return EH_OK;
  case CFA_DEF_CFA_OFFSET:
    if (rd_uleb(pp, end, &u) != EH_OK)
      return EH_BAD;
    def_cfa_offset(it, u <= INT64_MAX, (int64_t)(u & INT64_MAX));
    return EH_OK;
  case CFA_DEF_CFA_OFFSET_SF:
    if (rd_sleb(pp, end, &sv) != EH_OK)
      return EH_BAD;
    ok = mul_daf(it, sv, &off);
    def_cfa_offset(it, ok, off);
    return EH_OK;
  default:                      /* CFA_DEF_CFA_EXPRESSION */
    if (rd_block(pp, end, &blk, &blk_end) != EH_OK)
      return EH_BAD;
    def_cfa_expression(it, blk, blk_end);
    return EH_OK;
  }
}

/* Opcodes that set a register's rule.  */
static int run_reg_op(struct eh_interp *it, uint8_t op, const uint8_t **pp, const uint8_t *end)
{
  uint64_t reg, u;
  int64_t sv, off;
  const uint8_t *blk, *blk_end;
  int ok;

  if (rd_uleb(pp, end, &reg) != EH_OK)
    return EH_BAD;
  switch (op) {
  case CFA_OFFSET_EXTENDED:
  case CFA_GNU_NEGATIVE_OFFSET_EXTENDED:
    if (rd_uleb(pp, end, &u) != EH_OK)
      return EH_BAD;
    sv = 0;
    ok = u <= INT64_MAX && mul_daf(it, (int64_t)u, &sv);
    if (op == CFA_GNU_NEGATIVE_OFFSET_EXTENDED) {
      if (sv == INT64_MIN)
        ok = 0;
      else
        sv = -sv;
    }
    set_offset(it, reg, ok, sv);
    return EH_OK;
  case CFA_OFFSET_EXTENDED_SF:
    if (rd_sleb(pp, end, &sv) != EH_OK)
      return EH_BAD;
    ok = mul_daf(it, sv, &off);
    set_offset(it, reg, ok, off);
    return EH_OK;
  case CFA_RESTORE_EXTENDED:
    restore_column(it, reg);
    return EH_OK;
  case CFA_UNDEFINED:
    set_how(it, reg, REG_UNDEF);
    return EH_OK;
  case CFA_SAME_VALUE:
    set_how(it, reg, REG_SAME);
    return EH_OK;
  case CFA_REGISTER:
  case CFA_VAL_OFFSET:
    if (rd_uleb(pp, end, &u) != EH_OK)
      return EH_BAD;
    set_how(it, reg, REG_OTHER);
    return EH_OK;
  case CFA_VAL_OFFSET_SF:
    if (rd_sleb(pp, end, &sv) != EH_OK)
      return EH_BAD;
    set_how(it, reg, REG_OTHER);
    return EH_OK;
  case CFA_EXPRESSION:
    if (rd_block(pp, end, &blk, &blk_end) != EH_OK)
      return EH_BAD;
    reg_expression(it, reg, blk, blk_end);
    return EH_OK;
  default:                      /* CFA_VAL_EXPRESSION */
    if (rd_block(pp, end, &blk, &blk_end) != EH_OK)
      return EH_BAD;
    set_how(it, reg, REG_OTHER);
    return EH_OK;
  }
}

/* Run the instructions [p, end) until the row holding at it->pc is
   complete (EH_DONE) or they end (EH_OK: the current row holds).  Each
   turn consumes at least one byte.  */
static int run(struct eh_interp *it, const uint8_t *p, const uint8_t *end)
{
  uint64_t u;
  int err;

  while (p < end) {
    uint8_t op = *p++;
    if (op & 0xc0) {
      err = run_primary(it, op, &p, end);
    } else {
      switch (op) {
      case CFA_NOP:
        err = EH_OK;
        break;
      case CFA_SET_LOC: case CFA_ADVANCE_LOC1: case CFA_ADVANCE_LOC2:
      case CFA_ADVANCE_LOC4: case CFA_REMEMBER_STATE: case CFA_RESTORE_STATE:
        err = run_row_op(it, op, &p, end);
        break;
      case CFA_DEF_CFA: case CFA_DEF_CFA_SF: case CFA_DEF_CFA_REGISTER:
      case CFA_DEF_CFA_OFFSET: case CFA_DEF_CFA_OFFSET_SF: case CFA_DEF_CFA_EXPRESSION:
        err = run_cfa_op(it, op, &p, end);
        break;
      case CFA_OFFSET_EXTENDED: case CFA_GNU_NEGATIVE_OFFSET_EXTENDED:
      case CFA_OFFSET_EXTENDED_SF: case CFA_RESTORE_EXTENDED: case CFA_UNDEFINED:
      case CFA_SAME_VALUE: case CFA_REGISTER: case CFA_VAL_OFFSET: case CFA_VAL_OFFSET_SF:
      case CFA_EXPRESSION: case CFA_VAL_EXPRESSION:
        err = run_reg_op(it, op, &p, end);
        break;
      case CFA_GNU_ARGS_SIZE:
        err = rd_uleb(&p, end, &u);
        break;
      default:
        return EH_BAD;          /* unknown or vendor opcode */
      }
    }
    if (err != EH_OK)
      return err;
  }
  return EH_OK;
}

/* The state at PC of an FDE covering [pc_begin, ...) whose instructions
   are [insns, insns_end).  */
static int interpret(const struct eh_cie *cie, const uint8_t *insns, const uint8_t *insns_end,
                     uint64_t pc_begin, uint64_t pc, struct gorc_state *out)
{
  struct eh_interp it;
  int err;

  it.cie = cie;
  default_row(&it.row);
  it.init = it.row;           /* what DW_CFA_restore in the CIE goes back to */
  it.depth = 0;
  it.in_cie = 1;
  it.loc = pc_begin;
  it.pc = pc;
  if (run(&it, cie->insns, cie->insns_end) != EH_OK)
    return EH_BAD;
  it.init = it.row;
  it.in_cie = 0;
  err = run(&it, insns, insns_end);
  if (err == EH_BAD)
    return EH_BAD;
  row_state(&it, out);
  return EH_OK;
}

/* ---- the FDE ---- */

/* The CIE of the FDE R: its pointer counts back from its own field to a
   CIE that ends before the FDE starts.  */
static int fde_cie(const struct eh_section *s, const struct eh_record *r, struct eh_cie *cie)
{
  struct eh_record cr;

  if (r->id == 0 || r->id > (uint64_t)(r->id_field - s->start))
    return EH_BAD;
  if (rd_record(s, r->id_field - r->id, &cr) != EH_OK || cr.end > r->start)
    return EH_BAD;
  return parse_cie(&cr, cie);
}

/* The state at PC from the FDE at FDE_ADDR, which the search table says
   starts at LOC.  1, 0 (the FDE does not cover PC, or is not for gorc)
   or EH_BAD.  */
static int fde_state(const struct gorc_rt_ehframe *ef, uint64_t fde_addr, uint64_t loc,
                     uint64_t pc, struct gorc_state *out)
{
  struct eh_section s;
  struct eh_record r;
  struct eh_cie cie;
  const uint8_t *p;
  uint64_t pc_begin, pc_range, auglen;
  int err;

  if (ef->lo > ef->hi || fde_addr < ef->lo || fde_addr >= ef->hi)
    return EH_BAD;
  s.start = (const uint8_t *)(uintptr_t)ef->lo;
  s.end = (const uint8_t *)(uintptr_t)ef->hi;
  if (rd_record(&s, (const uint8_t *)(uintptr_t)fde_addr, &r) != EH_OK)
    return EH_BAD;
  if ((err = fde_cie(&s, &r, &cie)) != EH_OK)
    return err == EH_UNSUPPORTED ? 0 : EH_BAD;
  p = r.body;
  if (rd_encoded(&p, r.end, cie.fde_enc, 1, 0, &pc_begin) != EH_OK
      || rd_encoded(&p, r.end, cie.fde_enc & 0x0f, 0, 0, &pc_range) != EH_OK)
    return EH_BAD;
  if (pc_begin != loc)
    return EH_BAD;              /* the table and the FDE disagree */
  if (pc - pc_begin >= pc_range)
    return 0;
  if (cie.has_z) {
    if (rd_uleb(&p, r.end, &auglen) != EH_OK || auglen > (uint64_t)(r.end - p))
      return EH_BAD;
    p += auglen;
  }
  if (interpret(&cie, p, r.end, pc_begin, pc, out) != EH_OK)
    return EH_BAD;
  return 1;
}

int gorc_rt_ehframe_state(const struct gorc_rt_ehframe *ef, uint64_t pc,
                          struct gorc_state *out)
{
  struct eh_table t;
  uint64_t loc, fde_addr;
  int rc;

  rc = open_table(ef, &t);
  if (rc == 1 && search(&t, pc, &loc, &fde_addr))
    rc = fde_state(ef, fde_addr, loc, pc, out);
  else if (rc == 1)
    rc = 0;
  return rc == EH_BAD ? -GORC_ECORRUPT : rc;
}
