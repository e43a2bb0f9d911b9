/* gorc record format, version 1: the one definition shared by the plugin
   (which encodes), the runtime and the tools (which decode).

   docs/FORMAT.md describes every byte; this header is its executable form.
   Everything here is plain C that also compiles as C++ (the plugin), with
   no allocation and no libc calls, so the runtime may decode from a signal
   handler.

   Layout in one linked module (executable or shared library):

     .note.gorc    one ELF note (owner "gorc", type GORC_NOTE_TABLE) whose
                   descriptor holds the version and PC-relative offsets to
                   the first and one-past-last byte of the gorc_unwind
                   output section.
     gorc_unwind   a sequence of ranges, one per function partition, sorted
                   by address (the linker orders SHF_LINK_ORDER sections by
                   the addresses of the code sections they are linked to).

     range  := start:int32le  entry*  end
     entry  := delta:uleb128  state        (of entries at one address the
                                           last holds)
     end    := delta:uleb128  0x00         (end = last entry + delta)

   start is relative to the address of the start field itself.  Every range
   begins with an implicit entry at its start holding the entry state
   (cfa=sp+8, bp same), which costs no bytes.  An entry's state holds from
   its address up to the next entry's address.  A state may say "rbp as in
   the previous entry", so states are decoded in order.  */

#ifndef GORC_FORMAT_H
#define GORC_FORMAT_H

#include <stdint.h>
#include <stddef.h>

#define GORC_FORMAT_VERSION 1

/* The ELF note that lets a module's table be found from its program
   headers (PT_NOTE) without section headers.  */
#define GORC_NOTE_NAME "gorc"           /* owner, namesz 5 with the NUL */
#define GORC_NOTE_TABLE 1               /* n_type */
#define GORC_NOTE_DESC_SIZE 12          /* version, start, end: 3 x 4 bytes */
#define GORC_SECTION_NAME "gorc_unwind" /* a C identifier: __start_/__stop_ */
#define GORC_NOTE_SECTION_NAME ".note.gorc"

/* Where the canonical frame address (CFA) is.  The return address is
   always at CFA - 8 and the caller's stack pointer is CFA.  */
enum gorc_cfa_kind {
  GORC_CFA_END = 0,       /* not a state: terminates a range */
  GORC_CFA_SP = 1,        /* CFA = rsp + off */
  GORC_CFA_BP = 2,        /* CFA = rbp + off */
  GORC_CFA_REG = 3,       /* CFA = reg + off (the DRAP register) */
  GORC_CFA_DEREF = 4,     /* CFA = *(reg + off) (stack realignment) */
  GORC_CFA_UNDEFINED = 5  /* nothing exact is known: stop unwinding */
};

/* Where the caller's rbp is.  */
enum gorc_bp_kind {
  GORC_BP_SAME = 0,       /* still in rbp */
  GORC_BP_CFA = 1,        /* saved at CFA + off */
  GORC_BP_REG = 2,        /* saved at reg + off */
  GORC_BP_UNDEFINED = 3   /* not recoverable here */
};

/* x86-64 DWARF register numbers used by the format.  */
#define GORC_DWARF_RBP 6
#define GORC_DWARF_RSP 7
#define GORC_DWARF_RA 16
#define GORC_DWARF_MAX_GPR 15

struct gorc_state {
  uint8_t cfa_kind;       /* enum gorc_cfa_kind */
  uint8_t cfa_reg;        /* DWARF register for GORC_CFA_REG / _DEREF */
  uint8_t bp_kind;        /* enum gorc_bp_kind */
  uint8_t bp_reg;         /* DWARF register for GORC_BP_REG */
  int64_t cfa_off;
  int64_t bp_off;
};

/* State head byte: bits 0-2 cfa_kind, bits 3-4 an rbp code, bits 5-7 a
   short CFA offset (n = 1..7 means off = 8 * n; 0 means an sleb128
   operand).  The rbp code is not enum gorc_bp_kind: the rule that is
   commonest after SAME is "the same as the previous entry" (rbp is saved
   once, the CFA moves with every push), so it has a code of its own, and
   the rare REG and UNDEFINED rules share an escape:
     GORC_BPCODE_SAME   rbp still in rbp
     GORC_BPCODE_CFA    saved at CFA + bp_off
     GORC_BPCODE_PREV   the previous entry's rbp rule, operands and all
     GORC_BPCODE_OTHER  one more byte: GORC_BPX_UNDEFINED, or GORC_BPX_REG
                        then bp_reg and bp_off
   Operands follow in this order, each only when needed:
     cfa_reg (1 byte)   for GORC_CFA_REG and GORC_CFA_DEREF
     cfa_off (offset)   when the short code is 0
     bp escape (1 byte) for GORC_BPCODE_OTHER
     bp_reg  (1 byte)   for GORC_BPX_REG
     bp_off  (offset)   for GORC_BPCODE_CFA and GORC_BPX_REG
   (offset: see gorc_put_off)  */
#define GORC_HEAD_CFA_MASK 0x07
#define GORC_HEAD_BP_SHIFT 3
#define GORC_HEAD_BP_MASK 0x18
#define GORC_HEAD_OFF_SHIFT 5
#define GORC_BPCODE_SAME 0
#define GORC_BPCODE_CFA 1
#define GORC_BPCODE_PREV 2
#define GORC_BPCODE_OTHER 3
#define GORC_BPX_UNDEFINED 0
#define GORC_BPX_REG 1
#define GORC_STATE_MAX_BYTES (1 + 1 + 10 + 1 + 1 + 10)
#define GORC_LEB_MAX_BYTES 10

enum gorc_decode_error {
  GORC_DECODE_OK = 0,
  GORC_DECODE_TRUNCATED = -1,  /* ran past the end of the table */
  GORC_DECODE_BAD_LEB = -2,    /* over-long or overflowing LEB128 */
  GORC_DECODE_BAD_STATE = -3,  /* reserved kind, register or offset */
  GORC_DECODE_BAD_RANGE = -4   /* wrapping or zero-length range */
};

static inline const char *gorc_decode_strerror(int err)
{
  switch (err) {
  case GORC_DECODE_OK: return "no error";
  case GORC_DECODE_TRUNCATED: return "table truncated";
  case GORC_DECODE_BAD_LEB: return "malformed LEB128 number";
  case GORC_DECODE_BAD_STATE: return "malformed state";
  case GORC_DECODE_BAD_RANGE: return "malformed range";
  default: return "unknown decode error";
  }
}

static inline int gorc_state_equal(const struct gorc_state *a,
                                   const struct gorc_state *b)
{
  int cfa_has_reg = a->cfa_kind == GORC_CFA_REG || a->cfa_kind == GORC_CFA_DEREF;
  int cfa_has_off = a->cfa_kind != GORC_CFA_END && a->cfa_kind != GORC_CFA_UNDEFINED;
  int bp_has_off = a->bp_kind == GORC_BP_CFA || a->bp_kind == GORC_BP_REG;
  return a->cfa_kind == b->cfa_kind && a->bp_kind == b->bp_kind
         && (!cfa_has_reg || a->cfa_reg == b->cfa_reg)
         && (!cfa_has_off || a->cfa_off == b->cfa_off)
         && (a->bp_kind != GORC_BP_REG || a->bp_reg == b->bp_reg)
         && (!bp_has_off || a->bp_off == b->bp_off);
}

/* ---- encoding (the plugin) ---- */

static inline size_t gorc_put_uleb(uint8_t *out, uint64_t v)
{
  size_t n = 0;
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    out[n++] = byte | (v ? 0x80 : 0);
  } while (v);
  return n;
}

static inline size_t gorc_put_sleb(uint8_t *out, int64_t v)
{
  size_t n = 0;
  for (;;) {
    uint8_t byte = v & 0x7f;
    v >>= 7; /* arithmetic shift: GCC and Clang on every gorc target */
    if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
      out[n++] = byte;
      return n;
    }
    out[n++] = byte | 0x80;
  }
}

/* Offsets (cfa_off, bp_off) are stored as an sleb128 of a "scaled" value:
   stack slots are 8 bytes, so a multiple of 8 is stored as (off / 8) * 2
   and anything else as off * 2 + 1.  One byte then covers -256..+248 in
   steps of 8 instead of -64..+63.  */
static inline size_t gorc_put_off(uint8_t *out, int64_t off)
{
  int64_t z = off % 8 == 0 ? (off / 8) * 2 : off * 2 + 1;
  return gorc_put_sleb(out, z);
}

/* The entry state: every range starts in it (the implicit first entry).  */
static inline struct gorc_state gorc_entry_state(void)
{
  struct gorc_state s = { GORC_CFA_SP, 0, GORC_BP_SAME, 0, 8, 0 };
  return s;
}

/* CFA = DWARF register REG + OFF: rsp and rbp have kinds of their own,
   any other register is GORC_CFA_REG.  (The caller checks REG <= 15.)  */
static inline void gorc_state_set_cfa_reg(struct gorc_state *s, unsigned reg, int64_t off)
{
  s->cfa_reg = 0;
  if (reg == GORC_DWARF_RSP) {
    s->cfa_kind = GORC_CFA_SP;
  } else if (reg == GORC_DWARF_RBP) {
    s->cfa_kind = GORC_CFA_BP;
  } else {
    s->cfa_kind = GORC_CFA_REG;
    s->cfa_reg = (uint8_t)reg;
  }
  s->cfa_off = off;
}

static inline int gorc_bp_rule_equal(const struct gorc_state *a, const struct gorc_state *b)
{
  return a->bp_kind == b->bp_kind
         && (a->bp_kind != GORC_BP_REG || a->bp_reg == b->bp_reg)
         && ((a->bp_kind != GORC_BP_CFA && a->bp_kind != GORC_BP_REG)
             || a->bp_off == b->bp_off);
}

/* Encode S, which follows PREV in its range, into OUT
   (GORC_STATE_MAX_BYTES); returns the length.  */
static inline size_t gorc_encode_state(const struct gorc_state *s,
                                       const struct gorc_state *prev,
                                       uint8_t *out)
{
  size_t n = 1;
  unsigned short_off = 0, bp_code;
  int cfa_has_off = s->cfa_kind != GORC_CFA_UNDEFINED;

  if (s->bp_kind == GORC_BP_SAME)
    bp_code = GORC_BPCODE_SAME;
  else if (gorc_bp_rule_equal(s, prev))
    bp_code = GORC_BPCODE_PREV;
  else if (s->bp_kind == GORC_BP_CFA)
    bp_code = GORC_BPCODE_CFA;
  else
    bp_code = GORC_BPCODE_OTHER;

  if (cfa_has_off && s->cfa_off > 0 && s->cfa_off <= 56 && s->cfa_off % 8 == 0)
    short_off = (unsigned)(s->cfa_off / 8);
  out[0] = (uint8_t)(s->cfa_kind | (bp_code << GORC_HEAD_BP_SHIFT)
                     | (short_off << GORC_HEAD_OFF_SHIFT));
  if (s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF)
    out[n++] = s->cfa_reg;
  if (cfa_has_off && !short_off)
    n += gorc_put_off(out + n, s->cfa_off);
  if (bp_code == GORC_BPCODE_OTHER) {
    out[n++] = s->bp_kind == GORC_BP_REG ? GORC_BPX_REG : GORC_BPX_UNDEFINED;
    if (s->bp_kind == GORC_BP_REG)
      out[n++] = s->bp_reg;
  }
  if (bp_code == GORC_BPCODE_CFA || (bp_code == GORC_BPCODE_OTHER && s->bp_kind == GORC_BP_REG))
    n += gorc_put_off(out + n, s->bp_off);
  return n;
}

/* ---- decoding (runtime and tools): every read is bounds-checked ---- */

static inline int gorc_get_uleb(const uint8_t **pp, const uint8_t *end,
                                uint64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t v = 0;
  unsigned shift = 0;
  for (int i = 0; i < GORC_LEB_MAX_BYTES; i++) {
    if (p >= end)
      return GORC_DECODE_TRUNCATED;
    uint8_t byte = *p++;
    if (shift == 63 && (byte & 0x7e))
      return GORC_DECODE_BAD_LEB;
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *pp = p;
      *out = v;
      return GORC_DECODE_OK;
    }
    shift += 7;
  }
  return GORC_DECODE_BAD_LEB;
}

static inline int gorc_get_sleb(const uint8_t **pp, const uint8_t *end,
                                int64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t v = 0;
  unsigned shift = 0;
  for (int i = 0; i < GORC_LEB_MAX_BYTES; i++) {
    if (p >= end)
      return GORC_DECODE_TRUNCATED;
    uint8_t byte = *p++;
    if (shift == 63 && byte != 0 && byte != 0x7f)
      return GORC_DECODE_BAD_LEB;
    v |= (uint64_t)(byte & 0x7f) << shift;
    shift += 7;
    if (!(byte & 0x80)) {
      if (shift < 64 && (byte & 0x40))
        v |= ~(uint64_t)0 << shift;
      *pp = p;
      *out = (int64_t)v;
      return GORC_DECODE_OK;
    }
  }
  return GORC_DECODE_BAD_LEB;
}

static inline int gorc_get_off(const uint8_t **pp, const uint8_t *end, int64_t *off)
{
  int64_t z;
  int err = gorc_get_sleb(pp, end, &z);
  if (err != GORC_DECODE_OK)
    return err;
  /* z / 2 fits; 4 * (z / 2) stays in range for any offset a frame has.  */
  if (z > INT64_MAX / 4 || z < INT64_MIN / 4)
    return GORC_DECODE_BAD_STATE;
  *off = (z & 1) ? (z - 1) / 2 : (z / 2) * 8;
  return GORC_DECODE_OK;
}

/* Decode one state (or the end marker, cfa_kind GORC_CFA_END) that
   follows PREV in its range.  */
static inline int gorc_decode_state(const uint8_t **pp, const uint8_t *end,
                                    const struct gorc_state *prev,
                                    struct gorc_state *s)
{
  const uint8_t *p = *pp;
  int err;

  if (p >= end)
    return GORC_DECODE_TRUNCATED;
  uint8_t head = *p++;
  unsigned short_off = head >> GORC_HEAD_OFF_SHIFT;
  unsigned bp_code = (head & GORC_HEAD_BP_MASK) >> GORC_HEAD_BP_SHIFT;
  s->cfa_kind = head & GORC_HEAD_CFA_MASK;
  s->bp_kind = GORC_BP_SAME;
  s->cfa_reg = s->bp_reg = 0;
  s->cfa_off = s->bp_off = 0;

  if (s->cfa_kind == GORC_CFA_END) {
    if (head != 0)
      return GORC_DECODE_BAD_STATE;
    *pp = p;
    return GORC_DECODE_OK;
  }
  if (s->cfa_kind > GORC_CFA_UNDEFINED)
    return GORC_DECODE_BAD_STATE;
  if (s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF) {
    if (p >= end)
      return GORC_DECODE_TRUNCATED;
    s->cfa_reg = *p++;
    if (s->cfa_reg > GORC_DWARF_MAX_GPR)
      return GORC_DECODE_BAD_STATE;
  }
  if (s->cfa_kind == GORC_CFA_UNDEFINED) {
    if (short_off)
      return GORC_DECODE_BAD_STATE;
  } else if (short_off) {
    s->cfa_off = 8 * (int64_t)short_off;
  } else if ((err = gorc_get_off(&p, end, &s->cfa_off)) != GORC_DECODE_OK) {
    return err;
  }
  switch (bp_code) {
  case GORC_BPCODE_SAME:
    break;
  case GORC_BPCODE_CFA:
    s->bp_kind = GORC_BP_CFA;
    if ((err = gorc_get_off(&p, end, &s->bp_off)) != GORC_DECODE_OK)
      return err;
    break;
  case GORC_BPCODE_PREV:
    s->bp_kind = prev->bp_kind;
    s->bp_reg = prev->bp_reg;
    s->bp_off = prev->bp_off;
    break;
  default:
    if (p >= end)
      return GORC_DECODE_TRUNCATED;
    switch (*p++) {
    case GORC_BPX_UNDEFINED:
      s->bp_kind = GORC_BP_UNDEFINED;
      break;
    case GORC_BPX_REG:
      s->bp_kind = GORC_BP_REG;
      if (p >= end)
        return GORC_DECODE_TRUNCATED;
      s->bp_reg = *p++;
      if (s->bp_reg > GORC_DWARF_MAX_GPR)
        return GORC_DECODE_BAD_STATE;
      if ((err = gorc_get_off(&p, end, &s->bp_off)) != GORC_DECODE_OK)
        return err;
      break;
    default:
      return GORC_DECODE_BAD_STATE;
    }
    break;
  }
  *pp = p;
  return GORC_DECODE_OK;
}

/* Walking one range.  TABLE_VADDR is the run-time (or link-time) address
   of the byte at TABLE; the decoder never dereferences addresses.  */
struct gorc_range {
  uint64_t start;          /* address of the first covered byte */
  uint64_t next_addr;      /* address of the entry that comes next */
  const uint8_t *pos;      /* next entry's bytes */
  const uint8_t *end;      /* end of the table */
  unsigned entries;        /* entries returned so far */
  struct gorc_state prev;  /* the last entry's state */
  int done;
};

struct gorc_entry {
  uint64_t addr;           /* the state holds from here ... */
  struct gorc_state state; /* ... (cfa_kind GORC_CFA_END: range ends) */
};

static inline int gorc_range_open(struct gorc_range *r, const uint8_t *p,
                                  const uint8_t *end, uint64_t p_vaddr)
{
  if (end - p < 4)
    return GORC_DECODE_TRUNCATED;
  uint32_t raw = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
                 | (uint32_t)p[3] << 24;
  r->start = p_vaddr + (uint64_t)(int64_t)(int32_t)raw;
  r->next_addr = r->start;
  r->pos = p + 4;
  r->end = end;
  r->entries = 0;
  r->prev = gorc_entry_state();
  r->done = 0;
  return GORC_DECODE_OK;
}

/* Returns 1 with an entry, 0 once the end entry has been returned, or a
   negative enum gorc_decode_error.  The first entry returned is the
   implicit one (entry state at the range start, no bytes).  An entry may
   have delta 0 (the compiler cannot always know that two state changes
   are at one address): of several entries at one address, the last one
   holds.  */
static inline int gorc_range_next(struct gorc_range *r, struct gorc_entry *e)
{
  uint64_t delta;
  int err;

  if (r->done)
    return 0;
  if (r->entries == 0) {
    e->addr = r->start;
    e->state = r->prev;
    r->entries++;
    return 1;
  }
  if ((err = gorc_get_uleb(&r->pos, r->end, &delta)) != GORC_DECODE_OK)
    return err;
  if (r->next_addr + delta < r->next_addr)
    return GORC_DECODE_BAD_RANGE;
  e->addr = r->next_addr + delta;
  if ((err = gorc_decode_state(&r->pos, r->end, &r->prev, &e->state)) != GORC_DECODE_OK)
    return err;
  if (e->state.cfa_kind == GORC_CFA_END) {
    if (e->addr == r->start)
      return GORC_DECODE_BAD_RANGE;
    r->done = 1;
  } else {
    r->prev = e->state;
  }
  r->entries++;
  r->next_addr = e->addr;
  return 1;
}

/* The address just past the range's bytes in the table, valid once
   gorc_range_next has returned 0: where the next range begins.  */
static inline const uint8_t *gorc_range_table_end(const struct gorc_range *r)
{
  return r->pos;
}

#endif /* GORC_FORMAT_H */
