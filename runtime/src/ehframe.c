/* libgorc: convert a module's .eh_frame into gorc states.

   Runs at registration, outside signal context, but like all of libgorc
   it never allocates: every piece of state lives in fixed-size objects on
   the C stack (the remember_state stack is GORC_EH_STACK_DEPTH deep).
   Every byte read is bounds-checked against [eh_frame, eh_frame + len);
   the section is only read, never written, and no address found in it is
   ever dereferenced.

   Four columns matter to gorc: the CFA, rbp (DWARF 6), rbx (DWARF 3)
   and the return address (DWARF 16).  Each row of an FDE becomes a
   gorc_state plus an rbx rule:

     CFA  reg R + off   R 7 -> GORC_CFA_SP, 6 -> GORC_CFA_BP,
                        other 0..15 -> GORC_CFA_REG (cfa_reg R)
          expression "DW_OP_bregR off; DW_OP_deref" (R 0..15)
                        -> GORC_CFA_DEREF
          anything else -> GORC_CFA_UNDEFINED
     rbp  same_value or no rule (the ABI default) -> GORC_BP_SAME
          offset(N)     -> GORC_BP_CFA, bp_off = N * data_align
          expression "DW_OP_bregR k" (R 0..15) -> GORC_BP_REG
          anything else -> GORC_BP_UNDEFINED
     rbx  same_value or no rule -> GORC_RT_RBX_SAME
          offset(N)     -> GORC_RT_RBX_CFA, rbx_off = N * data_align
          anything else -> GORC_RT_RBX_UNKNOWN
     RA   must be offset(N) with N * data_align == -8 (at CFA - 8);
          undefined (glibc's _start, clone, start_thread: the outermost
          frame) -> GORC_CFA_UNDEFINED with cfa_reg 0xff;
          anything else -> GORC_CFA_UNDEFINED (cfa_reg 0).

   A GORC_CFA_UNDEFINED state always has bp_kind GORC_BP_UNDEFINED and
   zero offsets, so equal rules give equal states.  Offsets that do not fit
   the table's 32-bit fields also become UNDEFINED.

   For each FDE: one entry at pc_begin, one more at every row where the
   state changes, and a GORC_CFA_END entry at pc_begin + pc_range.
   An FDE is interpreted twice: once to validate it (a malformed FDE is
   skipped whole, so the builder never holds half of one), once to emit.  */

#include "table.h"

#define GORC_EH_STACK_DEPTH 16
#define GORC_EH_OUTERMOST 0xff   /* cfa_reg of the "outermost frame" state */

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

#define OP_BREG0 0x70
#define OP_BREG15 0x7f
#define OP_DEREF 0x06

/* Results of the parsing helpers.  */
#define EH_OK 0
#define EH_BAD (-1)          /* malformed: counts against the section */
#define EH_UNSUPPORTED (-2)  /* well-formed but not for gorc: skip quietly */
#define EH_DONE 1            /* interpretation reached the FDE's end */

struct eh_section {
  const uint8_t *start, *end;
  uint64_t addr;              /* run-time address of *start */
};

/* ---- bounded readers ---- */

static int rd_fixed(const uint8_t **pp, const uint8_t *end, unsigned n,
                    uint64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t v = 0;
  if ((size_t)(end - p) < n)
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

static uint64_t addr_of(const struct eh_section *s, const uint8_t *p)
{
  return s->addr + (uint64_t)(p - s->start);
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
   the value format).  datarel is relative to 0, as libgcc and libdw read
   x86-64 .eh_frame.  */
static int rd_encoded(const struct eh_section *s, const uint8_t **pp,
                      const uint8_t *end, uint8_t enc, int apply,
                      uint64_t *out)
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
    v += addr_of(s, field);
  *out = v;
  return EH_OK;
}

/* ---- records ---- */

/* One CIE or FDE: [start, end) is the whole record, BODY follows the
   CIE id / CIE pointer field ID_FIELD.  */
struct eh_record {
  const uint8_t *start, *id_field, *body, *end;
  uint64_t id;
};

/* Parse the record header at P.  Returns EH_OK, EH_DONE for the zero
   terminator or the end of the section, EH_BAD when the record does not
   fit.  */
static int rd_record(const struct eh_section *s, const uint8_t *p,
                     struct eh_record *r)
{
  uint64_t len;
  unsigned idsize = 4;

  if (p == s->end)
    return EH_DONE;
  r->start = p;
  if (rd_fixed(&p, s->end, 4, &len) != EH_OK)
    return EH_BAD;
  if (len == 0)
    return EH_DONE;
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
  int has_z, signal;
};

static int parse_cie(const struct eh_section *s, const struct eh_record *r,
                     struct eh_cie *c)
{
  const uint8_t *p = r->body, *end = r->end, *aug, *aug_end;
  uint64_t version, v, auglen;
  int err;

  if (r->id != 0)
    return EH_BAD;
  c->fde_enc = PE_ABSPTR;
  c->has_z = c->signal = 0;
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
  if (rd_uleb(&p, end, &c->code_align) != EH_OK
      || rd_sleb(&p, end, &c->data_align) != EH_OK)
    return EH_BAD;
  if (version == 1)
    err = rd_fixed(&p, end, 1, &c->ra_reg);
  else
    err = rd_uleb(&p, end, &c->ra_reg);
  if (err != EH_OK)
    return EH_BAD;
  if (aug < aug_end) {
    const uint8_t *d, *dend;
    c->has_z = 1;
    if (rd_uleb(&p, end, &auglen) != EH_OK || auglen > (uint64_t)(end - p))
      return EH_BAD;
    d = p;
    dend = p + auglen;
    p = dend;
    for (const uint8_t *a = aug + 1; a < aug_end; a++) {
      uint8_t enc;
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
        if (rd_encoded(s, &d, dend, enc, 0, &v) != EH_OK)
          return EH_BAD;
        break;
      case 'S':
        c->signal = 1;          /* rows convert normally */
        break;
      default:
        return EH_UNSUPPORTED;
      }
    }
  }
  if (c->code_align == 0)
    return EH_BAD;
  c->insns = p;
  c->insns_end = end;
  return EH_OK;
}

/* ---- the CFA program ---- */

enum cfa_how { CFA_NONE, CFA_REGOFF, CFA_EXPR_DEREF, CFA_INVALID };
enum reg_how { REG_SAME, REG_UNDEF, REG_OFFSET, REG_EXPR_BREG, REG_OTHER };

struct cfa_rule {
  uint8_t how;                /* enum cfa_how */
  uint8_t off_ok;             /* off did not overflow */
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
  const struct eh_section *sec;
  const struct eh_cie *cie;
  struct gorc_rt_builder *b;  /* NULL: validate only */
  uint64_t base;
  struct eh_row row, init;    /* init: after the CIE's instructions */
  struct eh_row stack[GORC_EH_STACK_DEPTH];
  unsigned depth;
  int in_cie;
  uint64_t loc, end;
  struct gorc_state last;
  uint8_t last_rbx_kind;
  int64_t last_rbx_off;
  int have_last;
};

static void default_row(struct eh_row *r)
{
  r->cfa.how = CFA_NONE;
  r->cfa.off_ok = 1;
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

static int fits32(int64_t v)
{
  return v >= INT32_MIN && v <= INT32_MAX;
}

/* The rbx rule of the current row.  */
static void row_rbx(const struct eh_interp *it, uint8_t *kind, int64_t *off)
{
  const struct reg_rule *bx = &it->row.bx;
  *off = 0;
  if (bx->how == REG_SAME) {
    *kind = GORC_RT_RBX_SAME;
  } else if (bx->how == REG_OFFSET && fits32(bx->off)) {
    *kind = GORC_RT_RBX_CFA;
    *off = bx->off;
  } else {
    *kind = GORC_RT_RBX_UNKNOWN;
  }
}

static void row_state(const struct eh_interp *it, struct gorc_state *s)
{
  const struct eh_row *r = &it->row;

  s->cfa_kind = GORC_CFA_UNDEFINED;
  s->cfa_reg = 0;
  s->bp_kind = GORC_BP_UNDEFINED;
  s->bp_reg = 0;
  s->cfa_off = 0;
  s->bp_off = 0;

  if (it->cie->ra_reg != GORC_DWARF_RA)
    return;
  if (r->ra.how == REG_UNDEF) {
    s->cfa_reg = GORC_EH_OUTERMOST;
    return;
  }
  if (r->ra.how != REG_OFFSET || r->ra.off != -8)
    return;

  switch (r->cfa.how) {
  case CFA_REGOFF:
    if (r->cfa.reg > GORC_DWARF_MAX_GPR || !r->cfa.off_ok || !fits32(r->cfa.off))
      return;
    gorc_state_set_cfa_reg(s, r->cfa.reg, r->cfa.off);
    break;
  case CFA_EXPR_DEREF:
    if (!fits32(r->cfa.off))
      return;
    s->cfa_kind = GORC_CFA_DEREF;
    s->cfa_reg = (uint8_t)r->cfa.reg;
    break;
  default:
    return;
  }
  s->cfa_off = r->cfa.off;

  switch (r->bp.how) {
  case REG_SAME:
    s->bp_kind = GORC_BP_SAME;
    break;
  case REG_OFFSET:
    if (fits32(r->bp.off)) {
      s->bp_kind = GORC_BP_CFA;
      s->bp_off = r->bp.off;
    }
    break;
  case REG_EXPR_BREG:
    if (fits32(r->bp.off)) {
      s->bp_kind = GORC_BP_REG;
      s->bp_reg = r->bp.reg;
      s->bp_off = r->bp.off;
    }
    break;
  default:
    break;
  }
}

static void emit(struct eh_interp *it, uint64_t pc, const struct gorc_state *s)
{
  uint8_t rbx_kind;
  int64_t rbx_off;
  row_rbx(it, &rbx_kind, &rbx_off);
  if (it->have_last && gorc_state_equal(&it->last, s)
      && it->last.cfa_reg == s->cfa_reg
      && it->last_rbx_kind == rbx_kind && it->last_rbx_off == rbx_off)
    return;
  it->last = *s;
  it->last_rbx_kind = rbx_kind;
  it->last_rbx_off = rbx_off;
  it->have_last = 1;
  if (it->b)
    gorc_rt_builder_add(it->b, it->base, pc, s, rbx_kind, rbx_off);
}

/* The row at it->loc is complete; the next one starts at NEW_LOC.  */
static int advance(struct eh_interp *it, uint64_t new_loc)
{
  struct gorc_state s;
  if (it->in_cie || new_loc < it->loc)
    return EH_BAD;
  if (new_loc == it->loc)
    return EH_OK;
  row_state(it, &s);
  emit(it, it->loc, &s);
  it->loc = new_loc;
  return new_loc >= it->end ? EH_DONE : EH_OK;
}

static int advance_by(struct eh_interp *it, uint64_t delta)
{
  uint64_t d, loc;
  if (__builtin_mul_overflow(delta, it->cie->code_align, &d)
      || __builtin_add_overflow(it->loc, d, &loc))
    loc = UINT64_MAX;           /* past any FDE's end */
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

/* A DWARF expression block of LEN bytes at *PP.  */
static int rd_block(const uint8_t **pp, const uint8_t *end,
                    const uint8_t **blk, const uint8_t **blk_end)
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
static int match_breg(const uint8_t *p, const uint8_t *end, int deref,
                      uint8_t *reg, int64_t *off)
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

static int run(struct eh_interp *it, const uint8_t *p, const uint8_t *end)
{
  uint64_t reg, u, loc;
  int64_t sv, off;
  const uint8_t *blk, *blk_end;
  int err;

  while (p < end) {
    uint8_t op = *p++;
    uint8_t low = op & 0x3f;
    err = EH_OK;
    switch (op & 0xc0) {
    case CFA_ADVANCE_LOC:
      err = advance_by(it, low);
      break;
    case CFA_OFFSET:
      if (rd_uleb(&p, end, &u) != EH_OK)
        return EH_BAD;
      {
        int ok = u <= INT64_MAX && mul_daf(it, (int64_t)u, &sv);
        set_offset(it, low, ok, ok ? sv : 0);
      }
      break;
    case CFA_RESTORE: {
      struct reg_rule *rr = column(&it->row, low);
      if (rr)
        *rr = *column(&it->init, low);
      break;
    }
    default:
      switch (op) {
      case CFA_NOP:
        break;
      case CFA_SET_LOC:
        if (it->in_cie)
          return EH_BAD;
        if (rd_encoded(it->sec, &p, end, it->cie->fde_enc, 1, &loc) != EH_OK)
          return EH_BAD;
        err = advance(it, loc);
        break;
      case CFA_ADVANCE_LOC1:
      case CFA_ADVANCE_LOC2:
      case CFA_ADVANCE_LOC4:
        if (rd_fixed(&p, end, op == CFA_ADVANCE_LOC1 ? 1 : op == CFA_ADVANCE_LOC2 ? 2 : 4,
                     &u) != EH_OK)
          return EH_BAD;
        err = advance_by(it, u);
        break;
      case CFA_OFFSET_EXTENDED:
      case CFA_GNU_NEGATIVE_OFFSET_EXTENDED:
        if (rd_uleb(&p, end, &reg) != EH_OK || rd_uleb(&p, end, &u) != EH_OK)
          return EH_BAD;
        sv = 0;
        {
          int ok = u <= INT64_MAX && mul_daf(it, (int64_t)u, &sv);
          if (op == CFA_GNU_NEGATIVE_OFFSET_EXTENDED) {
            if (sv == INT64_MIN)
              ok = 0;
            else
              sv = -sv;
          }
          set_offset(it, reg, ok, sv);
        }
        break;
      case CFA_OFFSET_EXTENDED_SF:
        if (rd_uleb(&p, end, &reg) != EH_OK || rd_sleb(&p, end, &sv) != EH_OK)
          return EH_BAD;
        {
          int ok = mul_daf(it, sv, &off);
          set_offset(it, reg, ok, off);
        }
        break;
      case CFA_RESTORE_EXTENDED:
        if (rd_uleb(&p, end, &reg) != EH_OK)
          return EH_BAD;
        {
          struct reg_rule *rr = column(&it->row, reg);
          if (rr)
            *rr = *column(&it->init, reg);
        }
        break;
      case CFA_UNDEFINED:
        if (rd_uleb(&p, end, &reg) != EH_OK)
          return EH_BAD;
        set_how(it, reg, REG_UNDEF);
        break;
      case CFA_SAME_VALUE:
        if (rd_uleb(&p, end, &reg) != EH_OK)
          return EH_BAD;
        set_how(it, reg, REG_SAME);
        break;
      case CFA_REGISTER:
        if (rd_uleb(&p, end, &reg) != EH_OK || rd_uleb(&p, end, &u) != EH_OK)
          return EH_BAD;
        set_how(it, reg, REG_OTHER);
        break;
      case CFA_REMEMBER_STATE:
        if (it->depth >= GORC_EH_STACK_DEPTH)
          return EH_BAD;
        it->stack[it->depth++] = it->row;
        break;
      case CFA_RESTORE_STATE:
        if (it->depth == 0)
          return EH_BAD;
        it->row = it->stack[--it->depth];
        break;
      case CFA_DEF_CFA:
        if (rd_uleb(&p, end, &reg) != EH_OK || rd_uleb(&p, end, &u) != EH_OK)
          return EH_BAD;
        it->row.cfa.how = CFA_REGOFF;
        it->row.cfa.reg = reg;
        it->row.cfa.off_ok = u <= INT64_MAX;
        it->row.cfa.off = (int64_t)(u & INT64_MAX);
        break;
      case CFA_DEF_CFA_SF:
        if (rd_uleb(&p, end, &reg) != EH_OK || rd_sleb(&p, end, &sv) != EH_OK)
          return EH_BAD;
        it->row.cfa.how = CFA_REGOFF;
        it->row.cfa.reg = reg;
        it->row.cfa.off_ok = mul_daf(it, sv, &off);
        it->row.cfa.off = it->row.cfa.off_ok ? off : 0;
        break;
      case CFA_DEF_CFA_REGISTER:
        if (rd_uleb(&p, end, &reg) != EH_OK)
          return EH_BAD;
        if (it->row.cfa.how == CFA_REGOFF)
          it->row.cfa.reg = reg;
        else
          it->row.cfa.how = CFA_INVALID;
        break;
      case CFA_DEF_CFA_OFFSET:
        if (rd_uleb(&p, end, &u) != EH_OK)
          return EH_BAD;
        if (it->row.cfa.how == CFA_REGOFF) {
          it->row.cfa.off_ok = u <= INT64_MAX;
          it->row.cfa.off = (int64_t)(u & INT64_MAX);
        } else {
          it->row.cfa.how = CFA_INVALID;
        }
        break;
      case CFA_DEF_CFA_OFFSET_SF:
        if (rd_sleb(&p, end, &sv) != EH_OK)
          return EH_BAD;
        if (it->row.cfa.how == CFA_REGOFF) {
          it->row.cfa.off_ok = mul_daf(it, sv, &off);
          it->row.cfa.off = it->row.cfa.off_ok ? off : 0;
        } else {
          it->row.cfa.how = CFA_INVALID;
        }
        break;
      case CFA_DEF_CFA_EXPRESSION: {
        uint8_t r8;
        if (rd_block(&p, end, &blk, &blk_end) != EH_OK)
          return EH_BAD;
        if (match_breg(blk, blk_end, 1, &r8, &off)) {
          it->row.cfa.how = CFA_EXPR_DEREF;
          it->row.cfa.reg = r8;
          it->row.cfa.off = off;
          it->row.cfa.off_ok = 1;
        } else {
          it->row.cfa.how = CFA_INVALID;
        }
        break;
      }
      case CFA_EXPRESSION: {
        uint8_t r8;
        struct reg_rule *rr;
        if (rd_uleb(&p, end, &reg) != EH_OK
            || rd_block(&p, end, &blk, &blk_end) != EH_OK)
          return EH_BAD;
        rr = column(&it->row, reg);
        if (!rr)
          break;
        if (match_breg(blk, blk_end, 0, &r8, &off)) {
          rr->how = REG_EXPR_BREG;
          rr->reg = r8;
          rr->off = off;
        } else {
          rr->how = REG_OTHER;
        }
        break;
      }
      case CFA_VAL_OFFSET:
        if (rd_uleb(&p, end, &reg) != EH_OK || rd_uleb(&p, end, &u) != EH_OK)
          return EH_BAD;
        set_how(it, reg, REG_OTHER);
        break;
      case CFA_VAL_OFFSET_SF:
        if (rd_uleb(&p, end, &reg) != EH_OK || rd_sleb(&p, end, &sv) != EH_OK)
          return EH_BAD;
        set_how(it, reg, REG_OTHER);
        break;
      case CFA_VAL_EXPRESSION:
        if (rd_uleb(&p, end, &reg) != EH_OK
            || rd_block(&p, end, &blk, &blk_end) != EH_OK)
          return EH_BAD;
        set_how(it, reg, REG_OTHER);
        break;
      case CFA_GNU_ARGS_SIZE:
        if (rd_uleb(&p, end, &u) != EH_OK)
          return EH_BAD;
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

/* Interpret CIE + FDE instructions for [pc_begin, pc_end); emit into B
   unless B is NULL.  */
static int interpret(const struct eh_section *s, const struct eh_cie *cie,
                     const uint8_t *insns, const uint8_t *insns_end,
                     uint64_t pc_begin, uint64_t pc_end,
                     struct gorc_rt_builder *b, uint64_t base)
{
  struct eh_interp it;
  struct gorc_state st;
  int err;

  it.sec = s;
  it.cie = cie;
  it.b = b;
  it.base = base;
  default_row(&it.row);
  it.init = it.row;
  it.depth = 0;
  it.in_cie = 1;
  it.loc = pc_begin;
  it.end = pc_end;
  it.have_last = 0;

  if ((err = run(&it, cie->insns, cie->insns_end)) != EH_OK)
    return EH_BAD;
  it.init = it.row;
  it.in_cie = 0;
  err = run(&it, insns, insns_end);
  if (err == EH_BAD)
    return EH_BAD;
  if (err != EH_DONE) {
    row_state(&it, &st);
    emit(&it, it.loc, &st);
  }
  st.cfa_kind = GORC_CFA_END;
  st.cfa_reg = st.bp_kind = st.bp_reg = 0;
  st.cfa_off = st.bp_off = 0;
  if (b)
    gorc_rt_builder_add(b, base, pc_end, &st, GORC_RT_RBX_UNKNOWN, 0);
  return EH_OK;
}

static int convert_fde(struct gorc_rt_builder *b, uint64_t base,
                       const struct eh_section *s, const struct eh_record *r)
{
  struct eh_record cr;
  struct eh_cie cie;
  const uint8_t *p = r->body, *insns;
  uint64_t pc_begin, pc_range, pc_end, auglen;
  int err;

  /* The CIE pointer counts back from its own field to a CIE that starts
     before this FDE.  */
  if (r->id > (uint64_t)(r->id_field - s->start))
    return EH_BAD;
  const uint8_t *cp = r->id_field - r->id;
  if (cp >= r->start)
    return EH_BAD;
  if (rd_record(s, cp, &cr) != EH_OK || cr.end > r->start)
    return EH_BAD;
  if ((err = parse_cie(s, &cr, &cie)) != EH_OK)
    return err;

  if (rd_encoded(s, &p, r->end, cie.fde_enc, 1, &pc_begin) != EH_OK
      || rd_encoded(s, &p, r->end, cie.fde_enc & 0x0f, 0, &pc_range) != EH_OK)
    return EH_BAD;
  if (cie.has_z) {
    if (rd_uleb(&p, r->end, &auglen) != EH_OK
        || auglen > (uint64_t)(r->end - p))
      return EH_BAD;
    p += auglen;
  }
  insns = p;
  if (pc_range == 0)
    return EH_OK;               /* describes no code */
  if (__builtin_add_overflow(pc_begin, pc_range, &pc_end))
    return EH_BAD;
  /* The table holds 32-bit offsets from BASE (the END entry too).  */
  if (pc_begin < base || pc_end - base > UINT32_MAX)
    return EH_UNSUPPORTED;

  if ((err = interpret(s, &cie, insns, r->end, pc_begin, pc_end, NULL, base)) != EH_OK)
    return err;
  return interpret(s, &cie, insns, r->end, pc_begin, pc_end, b, base);
}

int gorc_rt_convert_eh_frame(struct gorc_rt_builder *b, uint64_t base,
                             const uint8_t *eh_frame, size_t len,
                             uint64_t eh_frame_addr)
{
  struct eh_section s;
  struct eh_record r;
  const uint8_t *p;
  int ret = 0, err;

  if (!b || (!eh_frame && len))
    return -1;
  if (!eh_frame)
    return 0;
  s.start = eh_frame;
  s.end = eh_frame + len;
  s.addr = eh_frame_addr;

  for (p = s.start;; p = r.end) {
    err = rd_record(&s, p, &r);
    if (err == EH_DONE)
      break;
    if (err != EH_OK)
      return -1;                /* cannot find the next record */
    if (r.id == 0)
      continue;                 /* a CIE: parsed with its FDEs */
    if (convert_fde(b, base, &s, &r) == EH_BAD)
      ret = -1;
  }
  return ret;
}
