/* gorc record format, version 2: the one definition shared by the plugin
   (which encodes), the runtime and the tools (which decode).

   docs/FORMAT.md describes every byte; this header is its executable form.
   Everything here is plain C that also compiles as C++ (the plugin), with
   no allocation and no libc calls, so the runtime may decode from a signal
   handler.

   Layout in one linked module (executable or shared library):

     .note.gorc         one ELF note (owner "gorc", type GORC_NOTE_TABLE)
                        whose descriptor holds the version, the machine and
                        PC-relative offsets to the two sections below.
     gorc_unwind_index  one fixed-size entry per range, 8 bytes: where the
                        range starts and where its body is.  Sorted by
                        start address in a final link (SHF_LINK_ORDER), so a
                        reader bisects it in place.
     gorc_unwind        the range bodies.

     body   := entry* end
     entry  := uleb128(delta << 3 | op) operands   (see enum gorc_op)
     end    := uleb128(delta << 3 | GORC_OP_END)   (end = last entry + delta)

   Every range begins with an implicit entry at its start holding the
   machine's entry state (x86-64: cfa=sp+8, bp same), which costs no
   bytes.  An entry's state holds from its address up to the next entry's
   address; of entries at one address the last one holds.  States refer
   to earlier entries of their range (PUSH, POP, BACK, the rbp code PREV),
   so a range is decoded from its start.  */

#ifndef GORC_FORMAT_H
#define GORC_FORMAT_H

#include <stdint.h>
#include <stddef.h>

#define GORC_FORMAT_VERSION 2

/* The ELF note that lets a module's table be found from its program
   headers (PT_NOTE) without section headers.  */
#define GORC_NOTE_NAME "gorc"           /* owner, namesz 5 with the NUL */
#define GORC_NOTE_TABLE 1               /* n_type */
#define GORC_NOTE_DESC_SIZE 24          /* 6 x 4 bytes, see gorc_note_parse */
#define GORC_NOTE_V1_DESC_SIZE 12       /* version 1: version, start, end */
#define GORC_SECTION_NAME "gorc_unwind" /* C identifiers: __start_/__stop_ */
#define GORC_INDEX_SECTION_NAME "gorc_unwind_index"
#define GORC_NOTE_SECTION_NAME ".note.gorc"
#define GORC_INDEX_ENTRY_SIZE 8

/* Machines (ELF e_machine values), each with its register numbering.  */
#define GORC_MACHINE_X86_64 62
#define GORC_MACHINE_AARCH64 183

/* Where the canonical frame address (CFA) is.  The caller's stack
   pointer is the CFA.  */
enum gorc_cfa_kind {
  GORC_CFA_END = 0,       /* not a state: the range ends */
  GORC_CFA_SP = 1,        /* CFA = sp + off */
  GORC_CFA_BP = 2,        /* CFA = fp + off (rbp, x29) */
  GORC_CFA_REG = 3,       /* CFA = reg + off (the DRAP register) */
  GORC_CFA_DEREF = 4,     /* CFA = *(reg + off) (stack realignment) */
  GORC_CFA_UNDEFINED = 5, /* nothing exact is known: stop unwinding */
  /* Never in records (the decoder rejects kind 6): a state the runtime
     derives from .eh_frame for x86-64 PLT stubs, whose CFA rule is the
     expression ld writes: CFA = sp + off, plus 8 where
     (pc & 15) >= cfa_reg (the stub's push has run).  */
  GORC_CFA_SP_PLT = 6
};

/* Where the caller's frame pointer (rbp, x29) is.  */
enum gorc_bp_kind {
  GORC_BP_SAME = 0,       /* still in the register */
  GORC_BP_CFA = 1,        /* saved at CFA + off */
  GORC_BP_REG = 2,        /* saved at reg + off */
  GORC_BP_UNDEFINED = 3   /* not recoverable here */
};

/* Where the return address is.  x86-64: always saved at CFA - 8 (states
   carry no bytes for it); aarch64: in the link register x30 at a call,
   saved on the stack by the prologue.  */
enum gorc_ra_kind {
  GORC_RA_CFA = 0,        /* saved at CFA + ra_off */
  GORC_RA_SAME = 1,       /* still in the link register */
  GORC_RA_UNDEFINED = 2   /* the outermost frame: there is no caller */
};

/* One more callee-saved register, rbx on x86-64.  Records never describe
   it (decoded states say UNKNOWN); the runtime's .eh_frame interpreter
   does, because glibc's lazy-binding resolver keeps its CFA in rbx.  */
enum gorc_aux_kind {
  GORC_AUX_UNKNOWN = 0,   /* not known in the caller */
  GORC_AUX_SAME = 1,      /* unchanged in the caller */
  GORC_AUX_CFA = 2        /* saved at CFA + aux_off */
};

/* DWARF register numbers the format uses.  */
#define GORC_DWARF_RBX 3
#define GORC_DWARF_RBP 6
#define GORC_DWARF_RSP 7
#define GORC_DWARF_RA 16                /* x86-64: the return address column */
#define GORC_DWARF_MAX_GPR 15           /* x86-64: rax..r15 */
#define GORC_DWARF_X29 29
#define GORC_DWARF_X30 30
#define GORC_DWARF_A64_SP 31
#define GORC_DWARF_A64_MAX_GPR 30       /* aarch64: x0..x30 */

/* The state of one instruction boundary: the one type from the decoder
   (and the runtime's .eh_frame interpreter) to the unwind step.  */
struct gorc_state {
  uint8_t cfa_kind;       /* enum gorc_cfa_kind */
  uint8_t cfa_reg;        /* DWARF register (REG, DEREF); threshold (SP_PLT) */
  uint8_t bp_kind;        /* enum gorc_bp_kind */
  uint8_t bp_reg;         /* DWARF register for GORC_BP_REG */
  uint8_t ra_kind;        /* enum gorc_ra_kind */
  uint8_t aux_kind;       /* enum gorc_aux_kind */
  int64_t cfa_off;
  int64_t bp_off;
  int64_t ra_off;
  int64_t aux_off;
  /* Last, so that positional initializers of the fields above still
     work: */
  uint8_t ra_signed;      /* aarch64: the return address carries a pointer
                             authentication code (between paciasp and
                             autiasp): strip it before use.  Always 0 on
                             x86-64; the .eh_frame interpreter of the
                             x86-64 runtime leaves it unset, so
                             gorc_state_equal does not look at it. */
};

/* Entry ops: the low 3 bits of an entry's first number.  */
enum gorc_op {
  GORC_OP_END = 0,        /* the range ends at this entry's address */
  GORC_OP_PUSH = 1,       /* the previous state, CFA offset + the slot */
  GORC_OP_POP = 2,        /* the previous state, CFA offset - the slot */
  GORC_OP_BACK = 3,       /* operand k (1 byte, 2..GORC_BACK_MAX): the
                             state of the k-th entry before this one */
  GORC_OP_STATE = 4       /* a state follows (head byte and operands) */
  /* 5, 6, 7: reserved */
};
#define GORC_OP_BITS 3
#define GORC_BACK_MAX 8

/* State head byte (GORC_OP_STATE): bits 0-2 cfa_kind, bits 3-4 an rbp
   code, bits 5-7 a short CFA offset (n = 1..7 means off = slot * n; 0
   means an offset operand follows).  The rbp code is not enum
   gorc_bp_kind: the rule that is commonest after SAME is "the same as the
   previous entry", so it has a code of its own, and the rare REG and
   UNDEFINED rules share an escape:
     GORC_BPCODE_SAME   the register still holds it
     GORC_BPCODE_CFA    saved at CFA + bp_off
     GORC_BPCODE_PREV   the previous entry's rule, operands and all
     GORC_BPCODE_OTHER  one more byte: GORC_BPX_UNDEFINED, or GORC_BPX_REG
                        then bp_reg and bp_off
   On machines whose return address is in a register at a call
   (aarch64), an RA byte follows the head: a GORC_RACODE_* rule in its
   low two bits, and GORC_RACODE_SIGNED when the return address is signed
   (pointer authentication: DWARF's "negate RA state", which GCC prints
   as .cfi_window_save).  The signed flag is its own bit, not part of the
   rule, so PREV copies the rule only.
   Operands follow in this order, each only when needed:
     ra code (1 byte)   aarch64 only
     cfa_reg (1 byte)   for GORC_CFA_REG and GORC_CFA_DEREF
     cfa_off (offset)   when the short code is 0 (not for UNDEFINED)
     bp escape (1 byte) for GORC_BPCODE_OTHER
     bp_reg  (1 byte)   for GORC_BPX_REG
     bp_off  (offset)   for GORC_BPCODE_CFA and GORC_BPX_REG
     ra_off  (offset)   for GORC_RACODE_CFA
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
#define GORC_RACODE_SAME 0
#define GORC_RACODE_CFA 1
#define GORC_RACODE_PREV 2
#define GORC_RACODE_UNDEFINED 3
#define GORC_RACODE_RULE_MASK 0x03
#define GORC_RACODE_SIGNED 0x04
#define GORC_LEB_MAX_BYTES 10
/* Operand bytes of the longest entry (BACK's 1 or a STATE's).  */
#define GORC_OPERANDS_MAX_BYTES (1 + 1 + 1 + 10 + 1 + 1 + 10 + 10)

enum gorc_decode_error {
  GORC_DECODE_OK = 0,
  GORC_DECODE_TRUNCATED = -1,  /* ran past the end of the table */
  GORC_DECODE_BAD_LEB = -2,    /* over-long or overflowing LEB128 */
  GORC_DECODE_BAD_STATE = -3,  /* reserved op, kind, register or offset */
  GORC_DECODE_BAD_RANGE = -4,  /* wrapping or empty range, body outside */
  GORC_DECODE_VERSION = -5,    /* a format version this reader does not know */
  GORC_DECODE_MACHINE = -6     /* a machine this reader does not know */
};

static inline const char *gorc_decode_strerror(int err)
{
  switch (err) {
  case GORC_DECODE_OK: return "no error";
  case GORC_DECODE_TRUNCATED: return "table truncated";
  case GORC_DECODE_BAD_LEB: return "malformed LEB128 number";
  case GORC_DECODE_BAD_STATE: return "malformed state";
  case GORC_DECODE_BAD_RANGE: return "malformed range";
  case GORC_DECODE_VERSION: return "unsupported format version";
  case GORC_DECODE_MACHINE: return "unsupported machine";
  default: return "unknown decode error";
  }
}

/* ---- machines ---- */

static inline int gorc_machine_known(unsigned machine)
{
  return machine == GORC_MACHINE_X86_64 || machine == GORC_MACHINE_AARCH64;
}

/* Does a call leave the return address in a register?  */
static inline int gorc_machine_ra_in_reg(unsigned machine)
{
  return machine == GORC_MACHINE_AARCH64;
}

/* The step of PUSH, POP and the short CFA offset: x86-64 pushes 8 bytes,
   aarch64 keeps sp 16-byte aligned.  */
static inline int64_t gorc_machine_slot(unsigned machine)
{
  return machine == GORC_MACHINE_AARCH64 ? 16 : 8;
}

static inline unsigned gorc_machine_max_reg(unsigned machine)
{
  return machine == GORC_MACHINE_AARCH64 ? GORC_DWARF_A64_MAX_GPR : GORC_DWARF_MAX_GPR;
}

/* The state at a function's first instruction, every range's implicit
   first entry.  */
static inline struct gorc_state gorc_entry_state(unsigned machine)
{
  struct gorc_state s;
  s.cfa_kind = GORC_CFA_SP;
  s.cfa_reg = 0;
  s.bp_kind = GORC_BP_SAME;
  s.bp_reg = 0;
  s.aux_kind = GORC_AUX_UNKNOWN;
  s.ra_signed = 0;
  s.bp_off = s.aux_off = 0;
  if (gorc_machine_ra_in_reg(machine)) {
    s.cfa_off = 0;
    s.ra_kind = GORC_RA_SAME;
    s.ra_off = 0;
  } else {
    s.cfa_off = 8;
    s.ra_kind = GORC_RA_CFA;
    s.ra_off = -8;
  }
  return s;
}

/* ---- comparing states ---- */

static inline int gorc_cfa_has_reg(unsigned kind)
{
  return kind == GORC_CFA_REG || kind == GORC_CFA_DEREF || kind == GORC_CFA_SP_PLT;
}

static inline int gorc_cfa_has_off(unsigned kind)
{
  return kind != GORC_CFA_END && kind != GORC_CFA_UNDEFINED;
}

static inline int gorc_bp_rule_equal(const struct gorc_state *a, const struct gorc_state *b)
{
  return a->bp_kind == b->bp_kind
         && (a->bp_kind != GORC_BP_REG || a->bp_reg == b->bp_reg)
         && ((a->bp_kind != GORC_BP_CFA && a->bp_kind != GORC_BP_REG)
             || a->bp_off == b->bp_off);
}

/* The rule alone (PREV); gorc_state_identical also compares ra_signed.  */
static inline int gorc_ra_rule_equal(const struct gorc_state *a, const struct gorc_state *b)
{
  return a->ra_kind == b->ra_kind && (a->ra_kind != GORC_RA_CFA || a->ra_off == b->ra_off);
}

static inline int gorc_aux_rule_equal(const struct gorc_state *a, const struct gorc_state *b)
{
  return a->aux_kind == b->aux_kind && (a->aux_kind != GORC_AUX_CFA || a->aux_off == b->aux_off);
}

/* Do A and B have the same rules (CFA, frame pointer, return address,
   aux)?  (Fields a rule does not use are ignored, and so is ra_signed.)  */
static inline int gorc_state_equal(const struct gorc_state *a,
                                   const struct gorc_state *b)
{
  return a->cfa_kind == b->cfa_kind
         && (!gorc_cfa_has_reg(a->cfa_kind) || a->cfa_reg == b->cfa_reg)
         && (!gorc_cfa_has_off(a->cfa_kind) || a->cfa_off == b->cfa_off)
         && gorc_bp_rule_equal(a, b) && gorc_ra_rule_equal(a, b) && gorc_aux_rule_equal(a, b);
}

/* The same rules and the same signed flag: one record.  What an encoder
   compares, and a reader of records.  */
static inline int gorc_state_identical(const struct gorc_state *a,
                                       const struct gorc_state *b)
{
  return gorc_state_equal(a, b) && a->ra_signed == b->ra_signed;
}

/* The gap state: "no records here".  One range may cover several
   functions of one code section (a run, docs/FORMAT.md); the bytes
   between two of them (alignment padding, code the plugin did not see:
   toplevel asm, functions without records) get this state, the CFA
   undefined with the frame pointer and the return address where they
   are at a call (x86-64 STATE 05; aarch64 STATE 05 00).  A reader
   treats such an address as covered by no range (a runtime falls back
   to .eh_frame there).  Code the plugin cannot describe exactly says
   UNDEFINED with the frame pointer undefined too, so never looks like
   a gap.  */
static inline struct gorc_state gorc_gap_state(unsigned machine)
{
  struct gorc_state s = gorc_entry_state(machine);
  s.cfa_kind = GORC_CFA_UNDEFINED;
  s.cfa_off = 0;
  return s;
}

static inline int gorc_state_is_gap(const struct gorc_state *s)
{
  return s->cfa_kind == GORC_CFA_UNDEFINED && s->bp_kind == GORC_BP_SAME
         && s->ra_kind != GORC_RA_UNDEFINED && !s->ra_signed;
}

/* Does a GORC_BP_REG rule's slot, at SLOT (its register's value + off),
   lie in its frame, [SP, CFA)?  Every save slot does.  GCC's CFI for a
   realigned frame says "fp saved at [fp + 0]" up to the return, also
   once the epilogue has restored fp (leave, pop %rbp): from then on fp
   is the caller's, which points elsewhere (above the CFA when the caller
   keeps a frame pointer), and the rule is stale: fp is still in the
   register.  Unwinders (libgorc, gorc-prof) ask this before they read
   the slot.  */
static inline int gorc_bp_slot_in_frame(uint64_t slot, uint64_t sp, uint64_t cfa)
{
  return slot >= sp && slot < cfa;
}

/* CFA = DWARF register REG + OFF: sp and fp have kinds of their own,
   any other register is GORC_CFA_REG.  (The caller checks REG.)  */
static inline void gorc_state_set_cfa_reg(struct gorc_state *s, unsigned machine, unsigned reg,
                                          int64_t off)
{
  unsigned sp = machine == GORC_MACHINE_AARCH64 ? GORC_DWARF_A64_SP : GORC_DWARF_RSP;
  unsigned fp = machine == GORC_MACHINE_AARCH64 ? GORC_DWARF_X29 : GORC_DWARF_RBP;
  s->cfa_reg = 0;
  if (reg == sp) {
    s->cfa_kind = GORC_CFA_SP;
  } else if (reg == fp) {
    s->cfa_kind = GORC_CFA_BP;
  } else {
    s->cfa_kind = GORC_CFA_REG;
    s->cfa_reg = (uint8_t)reg;
  }
  s->cfa_off = off;
}

/* ---- LEB128 and offsets ---- */

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

/* Offsets (cfa_off, bp_off, ra_off) are stored as an sleb128 of a
   "scaled" value: stack slots are 8 bytes, so a multiple of 8 is stored
   as (off / 8) * 2 and anything else as off * 2 + 1.  One byte then
   covers -256..+248 in steps of 8 instead of -64..+63.  */
static inline size_t gorc_put_off(uint8_t *out, int64_t off)
{
  int64_t z = off % 8 == 0 ? (off / 8) * 2 : off * 2 + 1;
  return gorc_put_sleb(out, z);
}

static inline int gorc_get_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
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

static inline int gorc_get_sleb(const uint8_t **pp, const uint8_t *end, int64_t *out)
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
  /* Offsets of real frames are far below 2^60: this keeps every sum of
     an offset and an address from overflowing in a decoder's checks.  */
  if (z > INT64_MAX / 16 || z < INT64_MIN / 16)
    return GORC_DECODE_BAD_STATE;
  *off = (z & 1) ? (z - 1) / 2 : (z / 2) * 8;
  return GORC_DECODE_OK;
}

static inline uint32_t gorc_get_le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- the history of a range's states (PUSH, POP, BACK, PREV) ---- */

struct gorc_history {
  unsigned machine;
  unsigned n;                               /* states pushed so far */
  struct gorc_state ring[GORC_BACK_MAX];    /* the last GORC_BACK_MAX */
};

static inline void gorc_history_push(struct gorc_history *h, const struct gorc_state *s)
{
  h->ring[h->n % GORC_BACK_MAX] = *s;
  h->n++;
}

/* Start a range: its implicit first entry, the entry state.  */
static inline void gorc_history_init(struct gorc_history *h, unsigned machine)
{
  struct gorc_state entry = gorc_entry_state(machine);
  h->machine = machine;
  h->n = 0;
  gorc_history_push(h, &entry);
}

/* The state K entries back (1: the last one); K <= h->n, K <= GORC_BACK_MAX.  */
static inline const struct gorc_state *gorc_history_back(const struct gorc_history *h,
                                                         unsigned k)
{
  return &h->ring[(h->n - k) % GORC_BACK_MAX];
}

/* ---- encoding (the plugin) ---- */

static inline int gorc_state_has_short_off(const struct gorc_state *s, int64_t slot)
{
  return gorc_cfa_has_off(s->cfa_kind) && s->cfa_off > 0 && s->cfa_off <= 7 * slot
         && s->cfa_off % slot == 0;
}

/* The operands of a STATE S that follows PREV, into OUT; returns their
   length.  */
static inline size_t gorc_encode_state(unsigned machine, const struct gorc_state *s,
                                       const struct gorc_state *prev, uint8_t *out)
{
  int64_t slot = gorc_machine_slot(machine);
  size_t n = 1;
  unsigned short_off = 0, bp_code, ra_code = GORC_RACODE_SAME;

  if (s->bp_kind == GORC_BP_SAME)
    bp_code = GORC_BPCODE_SAME;
  else if (gorc_bp_rule_equal(s, prev))
    bp_code = GORC_BPCODE_PREV;
  else if (s->bp_kind == GORC_BP_CFA)
    bp_code = GORC_BPCODE_CFA;
  else
    bp_code = GORC_BPCODE_OTHER;
  if (gorc_state_has_short_off(s, slot))
    short_off = (unsigned)(s->cfa_off / slot);
  out[0] = (uint8_t)(s->cfa_kind | (bp_code << GORC_HEAD_BP_SHIFT)
                     | (short_off << GORC_HEAD_OFF_SHIFT));
  if (gorc_machine_ra_in_reg(machine)) {
    if (s->ra_kind == GORC_RA_SAME)
      ra_code = GORC_RACODE_SAME;
    else if (gorc_ra_rule_equal(s, prev))
      ra_code = GORC_RACODE_PREV;
    else if (s->ra_kind == GORC_RA_CFA)
      ra_code = GORC_RACODE_CFA;
    else
      ra_code = GORC_RACODE_UNDEFINED;
    out[n++] = (uint8_t)(ra_code | (s->ra_signed ? GORC_RACODE_SIGNED : 0));
  }
  if (s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF)
    out[n++] = s->cfa_reg;
  if (gorc_cfa_has_off(s->cfa_kind) && !short_off)
    n += gorc_put_off(out + n, s->cfa_off);
  if (bp_code == GORC_BPCODE_OTHER) {
    out[n++] = s->bp_kind == GORC_BP_REG ? GORC_BPX_REG : GORC_BPX_UNDEFINED;
    if (s->bp_kind == GORC_BP_REG)
      out[n++] = s->bp_reg;
  }
  if (bp_code == GORC_BPCODE_CFA || (bp_code == GORC_BPCODE_OTHER && s->bp_kind == GORC_BP_REG))
    n += gorc_put_off(out + n, s->bp_off);
  if (ra_code == GORC_RACODE_CFA)
    n += gorc_put_off(out + n, s->ra_off);
  return n;
}

/* Can S be written as PUSH or POP after PREV (the same state but the
   CFA offset, which moved by one slot)?  Returns the op, or GORC_OP_END
   when it cannot.  */
static inline unsigned gorc_push_pop_op(unsigned machine, const struct gorc_state *s,
                                        const struct gorc_state *prev)
{
  int64_t slot = gorc_machine_slot(machine);
  struct gorc_state moved = *prev;
  if (s->cfa_kind != GORC_CFA_SP && s->cfa_kind != GORC_CFA_BP && s->cfa_kind != GORC_CFA_REG)
    return GORC_OP_END;
  if (prev->cfa_off < INT64_MAX / 2 && prev->cfa_off > INT64_MIN / 2) {
    moved.cfa_off = prev->cfa_off + slot;
    if (gorc_state_identical(s, &moved))
      return GORC_OP_PUSH;
    moved.cfa_off = prev->cfa_off - slot;
    if (gorc_state_identical(s, &moved))
      return GORC_OP_POP;
  }
  return GORC_OP_END;
}

/* Encode S, the next entry of the range whose states so far are H: the
   shortest op, whose operand bytes go to OUT (GORC_OPERANDS_MAX_BYTES).
   Returns the op; *LEN gets the operand length.  The caller writes
   uleb128(delta << GORC_OP_BITS | op) then the operands, and pushes S
   onto H.  */
static inline unsigned gorc_encode_entry(const struct gorc_history *h,
                                         const struct gorc_state *s, uint8_t *out,
                                         size_t *len)
{
  const struct gorc_state *prev = gorc_history_back(h, 1);
  unsigned op = gorc_push_pop_op(h->machine, s, prev);
  if (op != GORC_OP_END) {
    *len = 0;
    return op;
  }
  size_t state_len = gorc_encode_state(h->machine, s, prev, out);
  for (unsigned k = 2; k <= GORC_BACK_MAX && k <= h->n; k++) {
    if (state_len > 1 && gorc_state_identical(s, gorc_history_back(h, k))) {
      out[0] = (uint8_t)k;
      *len = 1;
      return GORC_OP_BACK;
    }
  }
  *len = state_len;
  return GORC_OP_STATE;
}

/* ---- decoding (runtime and tools): every read is bounds-checked ---- */

static inline int gorc_check_reg(unsigned machine, unsigned reg)
{
  return reg <= gorc_machine_max_reg(machine) ? GORC_DECODE_OK : GORC_DECODE_BAD_STATE;
}

/* The rbp rule of a STATE with rbp code CODE.  */
static inline int gorc_decode_bp(const uint8_t **pp, const uint8_t *end, unsigned machine,
                                 unsigned code, const struct gorc_state *prev,
                                 struct gorc_state *s)
{
  switch (code) {
  case GORC_BPCODE_SAME:
    return GORC_DECODE_OK;
  case GORC_BPCODE_CFA:
    s->bp_kind = GORC_BP_CFA;
    return gorc_get_off(pp, end, &s->bp_off);
  case GORC_BPCODE_PREV:
    s->bp_kind = prev->bp_kind;
    s->bp_reg = prev->bp_reg;
    s->bp_off = prev->bp_off;
    return GORC_DECODE_OK;
  default:
    if (*pp >= end)
      return GORC_DECODE_TRUNCATED;
    switch (*(*pp)++) {
    case GORC_BPX_UNDEFINED:
      s->bp_kind = GORC_BP_UNDEFINED;
      return GORC_DECODE_OK;
    case GORC_BPX_REG:
      s->bp_kind = GORC_BP_REG;
      if (*pp >= end)
        return GORC_DECODE_TRUNCATED;
      s->bp_reg = *(*pp)++;
      if (gorc_check_reg(machine, s->bp_reg) != GORC_DECODE_OK)
        return GORC_DECODE_BAD_STATE;
      return gorc_get_off(pp, end, &s->bp_off);
    default:
      return GORC_DECODE_BAD_STATE;
    }
  }
}

/* The return-address rule of a STATE: aarch64 reads its RA code (the
   offset comes last, see gorc_decode_state), x86-64 has none.  */
static inline int gorc_decode_ra_code(const uint8_t **pp, const uint8_t *end,
                                      unsigned machine, const struct gorc_state *prev,
                                      struct gorc_state *s, unsigned *code)
{
  *code = GORC_RACODE_SAME;
  if (!gorc_machine_ra_in_reg(machine)) {
    s->ra_kind = GORC_RA_CFA;
    s->ra_off = -8;
    return GORC_DECODE_OK;
  }
  if (*pp >= end)
    return GORC_DECODE_TRUNCATED;
  *code = *(*pp)++;
  if (*code & ~(unsigned)(GORC_RACODE_RULE_MASK | GORC_RACODE_SIGNED))
    return GORC_DECODE_BAD_STATE;
  s->ra_signed = (*code & GORC_RACODE_SIGNED) != 0;
  *code &= GORC_RACODE_RULE_MASK;
  switch (*code) {
  case GORC_RACODE_SAME:
    s->ra_kind = GORC_RA_SAME;
    return GORC_DECODE_OK;
  case GORC_RACODE_CFA:
    s->ra_kind = GORC_RA_CFA;
    return GORC_DECODE_OK;
  case GORC_RACODE_PREV:
    s->ra_kind = prev->ra_kind;
    s->ra_off = prev->ra_off;
    return GORC_DECODE_OK;
  case GORC_RACODE_UNDEFINED:
    s->ra_kind = GORC_RA_UNDEFINED;
    return GORC_DECODE_OK;
  default:
    return GORC_DECODE_BAD_STATE;
  }
}

/* Decode the operands of a STATE that follows PREV.  */
static inline int gorc_decode_state(const uint8_t **pp, const uint8_t *end, unsigned machine,
                                    const struct gorc_state *prev, struct gorc_state *s)
{
  const uint8_t *p = *pp;
  unsigned ra_code;
  int err;

  if (p >= end)
    return GORC_DECODE_TRUNCATED;
  uint8_t head = *p++;
  unsigned short_off = head >> GORC_HEAD_OFF_SHIFT;
  unsigned bp_code = (head & GORC_HEAD_BP_MASK) >> GORC_HEAD_BP_SHIFT;
  s->cfa_kind = head & GORC_HEAD_CFA_MASK;
  s->bp_kind = GORC_BP_SAME;
  s->aux_kind = GORC_AUX_UNKNOWN;
  s->ra_signed = 0;
  s->cfa_reg = s->bp_reg = 0;
  s->cfa_off = s->bp_off = s->ra_off = s->aux_off = 0;

  if (s->cfa_kind == GORC_CFA_END || s->cfa_kind > GORC_CFA_UNDEFINED)
    return GORC_DECODE_BAD_STATE;
  if ((err = gorc_decode_ra_code(&p, end, machine, prev, s, &ra_code)) != GORC_DECODE_OK)
    return err;
  if (s->cfa_kind == GORC_CFA_REG || s->cfa_kind == GORC_CFA_DEREF) {
    if (p >= end)
      return GORC_DECODE_TRUNCATED;
    s->cfa_reg = *p++;
    if (gorc_check_reg(machine, s->cfa_reg) != GORC_DECODE_OK)
      return GORC_DECODE_BAD_STATE;
  }
  if (s->cfa_kind == GORC_CFA_UNDEFINED) {
    if (short_off)
      return GORC_DECODE_BAD_STATE;
  } else if (short_off) {
    s->cfa_off = gorc_machine_slot(machine) * (int64_t)short_off;
  } else if ((err = gorc_get_off(&p, end, &s->cfa_off)) != GORC_DECODE_OK) {
    return err;
  }
  if ((err = gorc_decode_bp(&p, end, machine, bp_code, prev, s)) != GORC_DECODE_OK)
    return err;
  if (ra_code == GORC_RACODE_CFA && (err = gorc_get_off(&p, end, &s->ra_off)) != GORC_DECODE_OK)
    return err;
  *pp = p;
  return GORC_DECODE_OK;
}

/* ---- the note ---- */

/* A module's table as its note describes it: addresses (run-time or
   link-time, as the note's own address was given) of the index and of the
   bodies.  */
struct gorc_note_info {
  uint32_t version;
  uint32_t machine;
  uint64_t index_start, index_end;      /* [start, end): 8-byte entries */
  uint64_t records_start, records_end;  /* the bodies */
};

/* Parse a gorc note descriptor DESC of DESCSZ bytes at address
   DESC_VADDR.  Version 1 (12 bytes, version 1) gives
   GORC_DECODE_VERSION with info->version 1, so a reader can say what it
   found; so does any other version.  */
static inline int gorc_note_parse(const uint8_t *desc, uint32_t descsz, uint64_t desc_vaddr,
                                   struct gorc_note_info *info)
{
  if (descsz < 4)
    return GORC_DECODE_TRUNCATED;
  info->version = gorc_get_le32(desc);
  info->machine = 0;
  info->index_start = info->index_end = info->records_start = info->records_end = 0;
  if (info->version != GORC_FORMAT_VERSION)
    return GORC_DECODE_VERSION;
  if (descsz != GORC_NOTE_DESC_SIZE)
    return GORC_DECODE_TRUNCATED;
  info->machine = gorc_get_le32(desc + 4);
  if (!gorc_machine_known(info->machine))
    return GORC_DECODE_MACHINE;
  uint64_t *fields[4] = { &info->index_start, &info->index_end, &info->records_start,
                          &info->records_end };
  for (unsigned i = 0; i < 4; i++) {
    uint64_t at = desc_vaddr + 8 + 4 * i;
    *fields[i] = at + (uint64_t)(int64_t)(int32_t)gorc_get_le32(desc + 8 + 4 * i);
  }
  if (info->index_end < info->index_start || info->records_end < info->records_start
      || (info->index_end - info->index_start) % GORC_INDEX_ENTRY_SIZE != 0)
    return GORC_DECODE_BAD_RANGE;
  return GORC_DECODE_OK;
}

/* ---- the index ---- */

/* Index entry I: int32 range start - address of the field, int32 body -
   address of the field.  ENTRY points at the entry's bytes, ENTRY_VADDR is
   its address.  */
static inline uint64_t gorc_index_start(const uint8_t *entry, uint64_t entry_vaddr)
{
  return entry_vaddr + (uint64_t)(int64_t)(int32_t)gorc_get_le32(entry);
}

static inline uint64_t gorc_index_body(const uint8_t *entry, uint64_t entry_vaddr)
{
  return entry_vaddr + 4 + (uint64_t)(int64_t)(int32_t)gorc_get_le32(entry + 4);
}

/* ---- walking one range's body ---- */

struct gorc_range {
  uint64_t start;          /* address of the first covered byte */
  uint64_t next_addr;      /* address of the last entry returned */
  const uint8_t *pos;      /* next entry's bytes */
  const uint8_t *end;      /* end of the bodies */
  unsigned entries;        /* entries returned so far */
  struct gorc_history hist;
  int done;
};

struct gorc_entry {
  uint64_t addr;           /* the state holds from here ... */
  struct gorc_state state; /* ... (cfa_kind GORC_CFA_END: the range ends) */
};

/* Open the range that starts at START (from the index) and whose body is
   at BODY, within bodies ending at END.  */
static inline void gorc_range_open(struct gorc_range *r, unsigned machine, uint64_t start,
                                   const uint8_t *body, const uint8_t *end)
{
  r->start = start;
  r->next_addr = start;
  r->pos = body;
  r->end = end;
  r->entries = 0;
  r->done = 0;
  gorc_history_init(&r->hist, machine);
}

/* The state of an entry with op OP (not END), read from *PP.  */
static inline int gorc_decode_op(const uint8_t **pp, const uint8_t *end, unsigned op,
                                 const struct gorc_history *h, struct gorc_state *s)
{
  const struct gorc_state *prev = gorc_history_back(h, 1);
  int64_t slot = gorc_machine_slot(h->machine);
  switch (op) {
  case GORC_OP_PUSH:
  case GORC_OP_POP:
    if (prev->cfa_kind != GORC_CFA_SP && prev->cfa_kind != GORC_CFA_BP
        && prev->cfa_kind != GORC_CFA_REG)
      return GORC_DECODE_BAD_STATE;
    *s = *prev;
    s->cfa_off += op == GORC_OP_PUSH ? slot : -slot;
    return GORC_DECODE_OK;
  case GORC_OP_BACK: {
    if (*pp >= end)
      return GORC_DECODE_TRUNCATED;
    unsigned k = *(*pp)++;
    if (k < 2 || k > GORC_BACK_MAX || k > h->n)
      return GORC_DECODE_BAD_STATE;
    *s = *gorc_history_back(h, k);
    return GORC_DECODE_OK;
  }
  case GORC_OP_STATE:
    return gorc_decode_state(pp, end, h->machine, prev, s);
  default:
    return GORC_DECODE_BAD_STATE;
  }
}

/* Returns 1 with an entry, 0 once the end entry has been returned, or a
   negative enum gorc_decode_error.  The first entry returned is the
   implicit one (the entry state at the range start, no bytes).  An entry
   may have delta 0 (the compiler cannot always know that two state
   changes are at one address): of several entries at one address, the
   last one holds.  A range must end after its start.  */
static inline int gorc_range_next(struct gorc_range *r, struct gorc_entry *e)
{
  uint64_t word;
  int err;

  if (r->done)
    return 0;
  if (r->entries == 0) {
    e->addr = r->start;
    e->state = *gorc_history_back(&r->hist, 1);
    r->entries++;
    return 1;
  }
  if ((err = gorc_get_uleb(&r->pos, r->end, &word)) != GORC_DECODE_OK)
    return err;
  uint64_t delta = word >> GORC_OP_BITS;
  unsigned op = (unsigned)(word & ((1u << GORC_OP_BITS) - 1));
  if (r->next_addr + delta < r->next_addr)
    return GORC_DECODE_BAD_RANGE;
  e->addr = r->next_addr + delta;
  if (op == GORC_OP_END) {
    if (e->addr == r->start)
      return GORC_DECODE_BAD_RANGE;
    e->state.cfa_kind = GORC_CFA_END;
    r->done = 1;
  } else {
    if ((err = gorc_decode_op(&r->pos, r->end, op, &r->hist, &e->state)) != GORC_DECODE_OK)
      return err;
    gorc_history_push(&r->hist, &e->state);
  }
  r->entries++;
  r->next_addr = e->addr;
  return 1;
}

#endif /* GORC_FORMAT_H */
