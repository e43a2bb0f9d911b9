/* Hand-built .eh_frame sections and search tables, looked up in place at
   every byte around the FDEs with the exact answers expected: pointer
   encodings, augmentations, 64-bit records, the rules, what is not for
   gorc (0), what is malformed (-GORC_ECORRUPT, only where the lookup goes)
   and the search tables that can and cannot be searched.  Linked -no-pie:
   the sections live in .bss below 2 GiB, so 4-byte absolute pointers can
   reach the addresses described.  Prints PASS/FAIL lines; exits 1 on any
   failure.  */

#include <stdarg.h>
#include "eh-test.h"

static int failures;

struct buf {
  uint8_t d[8192];
  size_t n;
};

static struct buf b, hdr;       /* the section, its .eh_frame_hdr */

/* The FDEs the search table lists: address and offset in the section.  */
static struct fde_ref {
  uint64_t pc;
  size_t off;
} fdes[64];
static size_t nfdes;

static void b8(struct buf *x, unsigned v) { x->d[x->n++] = (uint8_t)v; }
static void bn(struct buf *x, uint64_t v, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    b8(x, (unsigned)(v >> (8 * i)));
}
static void buleb(struct buf *x, uint64_t v) { x->n += gorc_put_uleb(x->d + x->n, v); }
static void bsleb(struct buf *x, int64_t v) { x->n += gorc_put_sleb(x->d + x->n, v); }
static void bbytes(struct buf *x, const char *s, size_t n) { memcpy(x->d + x->n, s, n); x->n += n; }
static uint64_t addr(const struct buf *x, size_t off) { return (uint64_t)(uintptr_t)x->d + off; }
static uint64_t here(const struct buf *x) { return addr(x, x->n); }

static void reset(void)
{
  memset(&b, 0, sizeof b);
  nfdes = 0;
}

/* Patch the 32-bit length at OFF to cover up to the current end.  */
static void close_rec(struct buf *x, size_t off)
{
  uint32_t len = (uint32_t)(x->n - off - 4);
  for (int i = 0; i < 4; i++)
    x->d[off + i] = (uint8_t)(len >> (8 * i));
}

static void note_fde(uint64_t pc, size_t off)
{
  fdes[nfdes].pc = pc;
  fdes[nfdes++].off = off;
}

/* A CIE: version 1, AUG, caf 1, daf -8, RA 16, AUGDATA (for "z..."),
   then def_cfa rsp 8; offset rip 1 and EXTRA instructions.  */
static size_t cie(const char *aug, const uint8_t *augdata, size_t augdata_len, const char *extra,
                  size_t extra_len)
{
  size_t off = b.n;
  bn(&b, 0, 4);
  bn(&b, 0, 4);
  b8(&b, 1);
  bbytes(&b, aug, strlen(aug) + 1);
  buleb(&b, 1);
  bsleb(&b, -8);
  b8(&b, 16);
  if (aug[0] == 'z') {
    buleb(&b, augdata_len);
    bbytes(&b, (const char *)augdata, augdata_len);
  }
  bbytes(&b, "\x0c\x07\x08\x90\x01", 5);
  bbytes(&b, extra, extra_len);
  close_rec(&b, off);
  return off;
}

/* Encode a pointer as ENC at the current position.  */
static void bptr(uint8_t enc, uint64_t v)
{
  if ((enc & 0x70) == 0x10)
    v -= here(&b);
  switch (enc & 0x0f) {
  case 0x00: case 0x04: case 0x08: case 0x0c: bn(&b, v, 8); break;
  case 0x01: buleb(&b, v); break;
  case 0x09: bsleb(&b, (int64_t)v); break;
  case 0x02: case 0x0a: bn(&b, v, 2); break;
  case 0x03: case 0x0b: bn(&b, v, 4); break;
  }
}

/* An FDE for CIE_OFF with pointers in ENC, listed in the search table;
   HAS_Z adds an empty augmentation data length.  */
static size_t fde(size_t cie_off, uint8_t enc, int has_z, uint64_t pc, uint64_t range,
                  const char *insns, size_t insns_len)
{
  size_t off = b.n;
  bn(&b, 0, 4);
  bn(&b, b.n - cie_off, 4);
  bptr(enc, pc);
  bptr(enc & 0x0f, range);
  if (has_z)
    buleb(&b, 0);
  bbytes(&b, insns, insns_len);
  close_rec(&b, off);
  note_fde(pc, off);
  return off;
}

static int by_pc(const void *x, const void *y)
{
  const struct fde_ref *p = x, *q = y;
  return p->pc < q->pc ? -1 : p->pc > q->pc;
}

/* The search table: version 1, .eh_frame pointer pcrel|sdata4, the count
   in COUNT_ENC, entries in TABLE_ENC (datarel: from the header, pcrel:
   from each field).  */
static void build_hdr(uint8_t count_enc, uint8_t table_enc)
{
  memset(&hdr, 0, sizeof hdr);
  qsort(fdes, nfdes, sizeof *fdes, by_pc);
  b8(&hdr, 1);
  b8(&hdr, 0x1b);
  b8(&hdr, count_enc);
  b8(&hdr, table_enc);
  bn(&hdr, addr(&b, 0) - here(&hdr), 4);
  if (count_enc == 0x01)
    buleb(&hdr, nfdes);
  else
    bn(&hdr, nfdes, count_enc == 0x04 ? 8 : 4);
  unsigned size = (table_enc & 0x0f) == 0x0c ? 8 : 4;
  for (size_t i = 0; i < nfdes; i++) {
    uint64_t v[2] = { fdes[i].pc, addr(&b, fdes[i].off) };
    for (int k = 0; k < 2; k++)
      bn(&hdr, v[k] - ((table_enc & 0x70) == 0x10 ? here(&hdr) : addr(&hdr, 0)), size);
  }
}

static struct gorc_rt_ehframe frame(void)
{
  struct gorc_rt_ehframe ef = { addr(&hdr, 0), hdr.n, addr(&b, 0), addr(&b, b.n), 0 };
  return ef;
}

enum { W_STATE, W_NONE, W_BAD };

struct want {
  uint64_t pc;
  int what;                     /* from PC on: a state, rc 0 or rc -GORC_ECORRUPT */
  struct gorc_state s;
};

static struct gorc_state mk(unsigned ck, unsigned creg, int64_t coff, unsigned bk, unsigned breg,
                            int64_t boff, unsigned rk, int64_t roff, unsigned xk, int64_t xoff)
{
  struct gorc_state s = { .cfa_kind = (uint8_t)ck, .cfa_reg = (uint8_t)creg, .bp_kind = (uint8_t)bk,
                          .bp_reg = (uint8_t)breg, .ra_kind = (uint8_t)rk, .aux_kind = (uint8_t)xk,
                          .cfa_off = coff, .bp_off = boff, .ra_off = roff, .aux_off = xoff };
  return s;
}

#define RA GORC_RA_CFA, -8
#define SAMEBX GORC_AUX_SAME, 0
#define SPS(o) mk(GORC_CFA_SP, 0, o, GORC_BP_SAME, 0, 0, RA, SAMEBX)
#define SP(pc, o) { pc, W_STATE, SPS(o) }
#define SPBP(pc, o, bo) { pc, W_STATE, mk(GORC_CFA_SP, 0, o, GORC_BP_CFA, 0, bo, RA, SAMEBX) }
#define ST(pc, s) { pc, W_STATE, s }
#define NONE(pc) { pc, W_NONE, SPS(0) }
#define BAD(pc) { pc, W_BAD, SPS(0) }
#define UNDEFS mk(GORC_CFA_UNDEFINED, 0, 0, GORC_BP_UNDEFINED, 0, 0, RA, GORC_AUX_UNKNOWN, 0)

/* Look up every byte from one before the first wanted address (from the
   first when that one is -GORC_ECORRUPT: a broken header breaks every
   address) to one after the last: each must get the answer of the last W
   entry at or below it (nothing before the first).  */
static void check_ef(const char *name, const struct gorc_rt_ehframe *ef, const struct want *w,
                     size_t nw)
{
  int ok = 1;
  uint64_t lo = w[0].pc - (w[0].what != W_BAD), hi = w[nw - 1].pc + 1;
  for (uint64_t a = lo; a <= hi && ok; a++) {
    const struct want *x = NULL;
    for (size_t i = 0; i < nw; i++)
      if (w[i].pc <= a)
        x = &w[i];
    struct gorc_state got;
    memset(&got, 0, sizeof got);
    int rc = eh_state(ef, a, &got);
    int want_rc = !x || x->what == W_NONE ? 0 : x->what == W_BAD ? -GORC_ECORRUPT : 1;
    ok = rc == want_rc && (rc != 1 || (eh_well_formed(&got) && gorc_state_equal(&x->s, &got)));
    if (!ok) {
      printf("  at %#lx: rc %d (want %d) ", (unsigned long)a, rc, want_rc);
      if (rc == 1)
        eh_print_state(stdout, &got);
      if (want_rc == 1) {
        printf(", want ");
        eh_print_state(stdout, &x->s);
      }
      printf("\n");
    }
  }
  printf("%s: synthetic: %s\n", ok ? "PASS" : "FAIL", name);
  failures += !ok;
}

/* The section as built, with ld's table (datarel|sdata4, count udata4).  */
static void check(const char *name, const struct want *w, size_t nw)
{
  build_hdr(0x03, 0x3b);
  struct gorc_rt_ehframe ef = frame();
  check_ef(name, &ef, w, nw);
}

#define N(a) (sizeof (a) / sizeof (a)[0])
#define S(lit) lit, sizeof lit - 1

/* push rbp; ...; pop: cfa sp+16 and rbp saved from +1, back at +4.  */
static const char body[] = "\x41\x0e\x10\x86\x02\x43\x0e\x08\xc6";

static void encodings(void)
{
  static const uint8_t enc_list[] = { 0x1b, 0x03, 0x0b, 0x13, 0x1a, 0x12, 0x01, 0x09,
                                      0x19, 0x04, 0x0c, 0x1c, 0x00, 0x33, 0x3b, 0x08 };
  for (size_t i = 0; i < N(enc_list); i++) {
    uint8_t enc = enc_list[i];
    char name[64];
    /* (2-byte encodings only pcrel: absolute ones cannot reach .bss) */
    reset();
    size_t c = cie("zR", &enc, 1, "", 0);
    uint64_t pc = here(&b) + 0x1000;
    fde(c, enc, 1, pc, 0x20, S(body));
    bn(&b, 0, 4);
    struct want w[] = { SP(pc, 8), SPBP(pc + 1, 16, -16), SP(pc + 4, 8), NONE(pc + 0x20) };
    snprintf(name, sizeof name, "FDE pointer encoding 0x%02x", enc);
    check(name, w, N(w));
  }
}

static void augmentations(void)
{
  reset();
  size_t c = cie("", NULL, 0, "", 0);
  fde(c, 0x00, 0, 0x90000, 0x10, S(body));
  {
    struct want w[] = { SP(0x90000, 8), SPBP(0x90001, 16, -16), SP(0x90004, 8),
                        NONE(0x90010) };
    check("augmentation \"\"", w, N(w));
  }

  /* zPLR with an indirect personality, zLR, zS, zPR (omitted LSDA).  */
  static const uint8_t plr[] = { 0x9b, 0, 0, 0, 0, 0x1b, 0x1b };
  static const uint8_t lr[] = { 0x1b, 0x1b };
  static const uint8_t pr[] = { 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b };
  reset();
  size_t c1 = cie("zPLR", plr, sizeof plr, "", 0);
  size_t c2 = cie("zLR", lr, sizeof lr, "", 0);
  size_t c3 = cie("zS", NULL, 0, "", 0);
  size_t c4 = cie("zPR", pr, sizeof pr, "", 0);
  size_t f = b.n;               /* FDE augmentation data: a 4-byte LSDA pointer */
  bn(&b, 0, 4);
  bn(&b, b.n - c1, 4);
  bptr(0x1b, 0x90000);
  bn(&b, 0x10, 4);
  buleb(&b, 4);
  bn(&b, 0x12345678, 4);
  bbytes(&b, S(body));
  close_rec(&b, f);
  note_fde(0x90000, f);
  fde(c2, 0x1b, 1, 0x90010, 0x10, "\x41\x0e\x10", 3);
  fde(c3, 0x00, 1, 0x90020, 0x10, "\x42\x0e\x10", 3);   /* zS: absptr, rows as usual */
  fde(c4, 0x1b, 1, 0x90030, 0x10, "", 0);
  bn(&b, 0, 4);
  struct want w[] = { SP(0x90000, 8), SPBP(0x90001, 16, -16), SP(0x90004, 8),
                      SP(0x90010, 8), SP(0x90011, 16), SP(0x90020, 8), SP(0x90022, 16),
                      SP(0x90030, 8), NONE(0x90040) };
  check("augmentations zPLR (indirect personality), zLR, zS, zPR", w, N(w));
}

/* A 64-bit CIE and FDE with set_loc, CIE version 3 (uleb RA) and 4.  */
static void wide_records(void)
{
  reset();
  size_t c64 = b.n;
  bn(&b, 0xffffffff, 4);
  size_t lenpos = b.n;
  bn(&b, 0, 8);
  bn(&b, 0, 8);
  b8(&b, 3);
  bbytes(&b, "zR", 3);
  buleb(&b, 1);
  bsleb(&b, -8);
  buleb(&b, 16);
  buleb(&b, 1);
  b8(&b, 0x1c);
  bbytes(&b, "\x0c\x07\x08\x90\x01", 5);
  uint64_t len = b.n - lenpos - 8;
  for (int i = 0; i < 8; i++)
    b.d[lenpos + i] = (uint8_t)(len >> (8 * i));
  size_t f = b.n;
  bn(&b, 0xffffffff, 4);
  lenpos = b.n;
  bn(&b, 0, 8);
  bn(&b, b.n - c64, 8);
  bptr(0x1c, 0x90000);
  bn(&b, 0x10, 8);
  buleb(&b, 0);
  b8(&b, 0x01);                 /* set_loc 0x90008 */
  bptr(0x1c, 0x90008);
  bbytes(&b, "\x0e\x18", 2);
  len = b.n - lenpos - 8;
  for (int i = 0; i < 8; i++)
    b.d[lenpos + i] = (uint8_t)(len >> (8 * i));
  note_fde(0x90000, f);
  size_t c4 = b.n;              /* version 4: address_size 8, segment_selector_size 0 */
  bn(&b, 0, 4);
  bn(&b, 0, 4);
  b8(&b, 4);
  bbytes(&b, "zR", 3);
  b8(&b, 8);
  b8(&b, 0);
  buleb(&b, 4);                 /* caf 4 */
  bsleb(&b, -8);
  buleb(&b, 16);
  buleb(&b, 1);
  b8(&b, 0x1b);
  bbytes(&b, "\x0c\x07\x08\x90\x01", 5);
  close_rec(&b, c4);
  fde(c4, 0x1b, 1, 0x90010, 0x10, "\x41\x0e\x10", 3);
  struct want w[] = { SP(0x90000, 8), SP(0x90008, 24), SP(0x90010, 8), SP(0x90014, 16),
                      NONE(0x90020) };
  check("64-bit records with set_loc; CIE versions 3 and 4", w, N(w));
}

static void rules(void)
{
  reset();
  size_t c = cie("zR", (const uint8_t *)"\x1b", 1, "", 0);
  fde(c, 0x1b, 1, 0x90000, 0x40,
      S("\x41\x0c\x0a\x00"                   /* +1 cfa r10+0 */
        "\x41\x10\x06\x02\x76\x00"           /* +2 rbp at rbp+0 */
        "\x41\x0f\x03\x76\x78\x06"           /* +3 cfa *(rbp-8) */
        "\x41\x0c\x07\x08\x07\x06"           /* +4 sp+8, rbp undefined */
        "\x41\x08\x06\x09\x06\x00"           /* +5 rbp same, then in rax: UNDEFINED */
        "\x41\x08\x06\x14\x10\x01"           /* +6 rbp same; ra val_offset: UNDEFINED */
        "\x41\x90\x01\x07\x10"               /* +7 ra undefined: outermost */
        "\x41\xd0"                            /* +8 restore ra */
        "\x41\x0c\x10\x08"                   /* +9 cfa on rip: UNDEFINED */
        "\x41\x0c\x07\x08\x2e\x20\x00"       /* +10 sp+8, args_size, nop */
        "\x41\x0e\x90\x80\x80\x80\x08"       /* +11 offset 2^31 + 16 */
        "\x41\x0e\x10\x86\x81\x80\x80\x80\x01" /* +12 rbp at CFA - 8 * (2^28 + 1) */
        "\x41\x86\x7f\x90\x02\x83\x03"       /* +13 rbp CFA-1016, ra CFA-16, rbx CFA-24 */
        "\x41\x90\x01\xc3"                    /* +14 ra back at CFA-8, rbx restored */
        "\x41\x09\x03\x00"                    /* +15 rbx in rax: UNKNOWN */
        "\x41\x0c\x88\x01\x08"));             /* +16 cfa on r136: UNDEFINED */
  bn(&b, 0, 4);
  const int64_t big = 0x80000010, bigbp = -8 * ((1ll << 28) + 1);
  struct want w[] = {
    SP(0x90000, 8),
    ST(0x90001, mk(GORC_CFA_REG, 10, 0, GORC_BP_SAME, 0, 0, RA, SAMEBX)),
    ST(0x90002, mk(GORC_CFA_REG, 10, 0, GORC_BP_REG, 6, 0, RA, SAMEBX)),
    ST(0x90003, mk(GORC_CFA_DEREF, 6, -8, GORC_BP_REG, 6, 0, RA, SAMEBX)),
    ST(0x90004, mk(GORC_CFA_SP, 0, 8, GORC_BP_UNDEFINED, 0, 0, RA, SAMEBX)),
    ST(0x90006, UNDEFS),
    ST(0x90007, mk(GORC_CFA_SP, 0, 8, GORC_BP_SAME, 0, 0, GORC_RA_UNDEFINED, 0, SAMEBX)),
    SP(0x90008, 8),
    ST(0x90009, UNDEFS),
    SP(0x9000a, 8),
    SP(0x9000b, big),
    ST(0x9000c, mk(GORC_CFA_SP, 0, 16, GORC_BP_CFA, 0, bigbp, RA, SAMEBX)),
    ST(0x9000d, mk(GORC_CFA_SP, 0, 16, GORC_BP_CFA, 0, -1016, GORC_RA_CFA, -16,
                   GORC_AUX_CFA, -24)),
    SPBP(0x9000e, 16, -1016),
    ST(0x9000f, mk(GORC_CFA_SP, 0, 16, GORC_BP_CFA, 0, -1016, RA, GORC_AUX_UNKNOWN, 0)),
    ST(0x90010, UNDEFS),
    NONE(0x90040) };
  check("CFA, rbp, rbx and return-address rules", w, N(w));
}

/* ld's PLT expressions (lit11: .plt, lit9: the IBT .plt) and near misses.  */
static void plt(void)
{
  reset();
  size_t c = cie("zR", (const uint8_t *)"\x1b", 1, "", 0);
  fde(c, 0x1b, 1, 0x90000, 0x30,
      S("\x0e\x10\x46\x0e\x18\x4a"
        "\x0f\x0b\x77\x08\x80\x00\x3f\x1a\x3b\x2a\x33\x24\x22"    /* +16 lit11 */
        "\x41\x0f\x0b\x77\x08\x80\x00\x3f\x1a\x39\x2a\x33\x24\x22" /* +17 lit9 */
        "\x41\x0f\x0b\x77\x08\x80\x08\x3f\x1a\x39\x2a\x33\x24\x22" /* +18 breg16 8 */
        "\x41\x0f\x0b\x77\x08\x80\x00\x3f\x1a\x39\x2a\x33\x24\x1c" /* +19 minus */
        "\x41\x0f\x0c\x77\x08\x80\x00\x3f\x1a\x39\x2a\x33\x24\x22\x22")); /* +20 longer */
  bn(&b, 0, 4);
  struct want w[] = {
    SP(0x90000, 16), SP(0x90006, 24),
    ST(0x90010, mk(GORC_CFA_SP_PLT, 11, 8, GORC_BP_SAME, 0, 0, RA, SAMEBX)),
    ST(0x90011, mk(GORC_CFA_SP_PLT, 9, 8, GORC_BP_SAME, 0, 0, RA, SAMEBX)),
    ST(0x90012, UNDEFS), NONE(0x90030) };
  check("ld's PLT CFA expressions, and near misses", w, N(w));
}

/* Not for gorc (0): textrel, funcrel, aligned, indirect FDE pointers,
   unknown augmentations, "eh", CIE version 2, a zero-length FDE.  */
static void unsupported(void)
{
  static const uint8_t encs[] = { 0x20, 0x40, 0x50, 0x9b };
  reset();
  for (size_t i = 0; i < N(encs); i++) {
    size_t cc = cie("zR", &encs[i], 1, "", 0);
    size_t f = b.n;
    bn(&b, 0, 4);
    bn(&b, b.n - cc, 4);
    bn(&b, 0x90000, 8);
    bn(&b, 0x10, 8);
    buleb(&b, 0);
    close_rec(&b, f);
    note_fde(0x90000, f);
  }
  size_t cx = cie("zX", (const uint8_t *)"", 0, "", 0);
  fde(cx, 0x00, 1, 0x90000, 0x10, "", 0);
  size_t ceh = cie("eh", NULL, 0, "", 0);
  fde(ceh, 0x00, 0, 0x90000, 0x10, "", 0);
  size_t cv2 = cie("zR", (const uint8_t *)"\x1b", 1, "", 0);
  b.d[cv2 + 8] = 2;
  fde(cv2, 0x1b, 1, 0x90000, 0x10, "", 0);
  size_t cok = cie("zR", (const uint8_t *)"\x1b", 1, "", 0);
  fde(cok, 0x1b, 1, 0x90000, 0, "", 0);
  fde(cok, 0x1b, 1, 0x90100, 0x10, "", 0);
  bn(&b, 0, 4);
  struct want w[] = { NONE(0x90000), SP(0x90100, 8), NONE(0x90110) };
  check("unsupported encodings and augmentations: no state", w, N(w));
}

/* Malformed FDEs: -GORC_ECORRUPT from where the lookup meets the fault,
   the rows before it intact.  */
static void malformed(void)
{
  reset();
  size_t cok = cie("zR", (const uint8_t *)"\x1b", 1, "", 0);
  char deep[16];
  memset(deep, 0x0a, 9);        /* 9 x remember_state: too deep */
  fde(cok, 0x1b, 1, 0x90000, 0x10, deep, 9);
  fde(cok, 0x1b, 1, 0x90010, 0x10, "\x41\x0e\x10\x0b", 4);     /* restore_state, none */
  fde(cok, 0x1b, 1, 0x90020, 0x10, "\x41\x0e\x10\x2d", 4);     /* GNU_window_save */
  fde(cok, 0x1b, 1, 0x90030, 0x10, "\x41\x0e\x10\x0e", 4);     /* truncated operand */
  fde(cok, 0x1b, 1, 0x90040, 0x10, "\x41\x0f\x09\x77", 4);     /* expression too long */
  fde(cok, 0x1b, 1, 0x90050, 0x10, "\x41\x0e\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
      13);                                                      /* LEB overflow */
  size_t f = fde(cok, 0x1b, 1, 0x90060, 0x10, "", 0);          /* bad CIE pointer */
  b.d[f + 4] = 0xf0;
  b.d[f + 5] = 0xff;
  size_t prev = fde(cok, 0x1b, 1, 0x90070, 0x10, "", 0);
  f = fde(cok, 0x1b, 1, 0x90080, 0x10, "", 0);                 /* its CIE is an FDE */
  uint32_t v = (uint32_t)(f + 4 - prev);
  memcpy(b.d + f + 4, &v, 4);
  f = b.n;                                                      /* set_loc backwards */
  bn(&b, 0, 4);
  bn(&b, b.n - cok, 4);
  bptr(0x1b, 0x90090);
  bn(&b, 0x10, 4);
  buleb(&b, 0);
  b8(&b, 0x41);
  b8(&b, 0x01);
  bptr(0x1b, 0x90090);
  close_rec(&b, f);
  note_fde(0x90090, f);
  size_t cadv = cie("zR", (const uint8_t *)"\x1b", 1, "\x41", 1);  /* a CIE that advances */
  fde(cadv, 0x1b, 1, 0x900a0, 0x10, "", 0);
  fde(cok, 0x1b, 1, 0x90100, 0x10, "\x41\x0e\x10", 3);
  size_t last = fde(cok, 0x1b, 1, 0x90200, 0x10, "", 0);
  bn(&b, 0, 4);
  struct want w[] = { BAD(0x90000), SP(0x90010, 8), BAD(0x90011), SP(0x90020, 8), BAD(0x90021),
                      SP(0x90030, 8), BAD(0x90031), SP(0x90040, 8), BAD(0x90041),
                      SP(0x90050, 8), BAD(0x90051), BAD(0x90060), SP(0x90070, 8),
                      BAD(0x90080), SP(0x90090, 8), BAD(0x90091), BAD(0x900a0), NONE(0x900b0),
                      SP(0x90100, 8), SP(0x90101, 16), NONE(0x90110), SP(0x90200, 8),
                      NONE(0x90210) };
  check("malformed FDEs: ECORRUPT from the fault on", w, N(w));

  /* The last FDE's length runs past the section, then the section ends
     inside it: the table leads every address from its start on there.  */
  b.d[last + 1] = 0x10;
  struct want w2[] = { SP(0x90100, 8), SP(0x90101, 16), NONE(0x90110), BAD(0x90200) };
  check("an FDE past the end of the section", w2, N(w2));
  b.n = last + 2;
  check("the section ends inside an FDE's length", w2, N(w2));
}

/* The answers for the tables' section: five FDEs of 0x10 bytes every
   0x20 bytes from 0x90000 (BAD_FROM.. BAD_TO: -GORC_ECORRUPT instead).  */
static size_t table_want(struct want *w, uint64_t bad_from, uint64_t bad_to)
{
  size_t n = 0;
  int in_bad = 0;
  struct want held = NONE(0);   /* the last answer the fault hides */
  for (uint64_t pc = 0x90000; pc < 0x900a0; pc += 0x20) {
    struct want row[] = { SP(pc, 8), SP(pc + 1, 16), NONE(pc + 0x10) };
    for (size_t i = 0; i < N(row); i++) {
      if (row[i].pc >= bad_from && row[i].pc < bad_to) {
        if (!in_bad) {
          struct want bad = BAD(bad_from);
          w[n++] = bad;
        }
        in_bad = 1;
        held = row[i];
        continue;
      }
      if (in_bad && row[i].pc > bad_to) {
        held.pc = bad_to;
        w[n++] = held;
      }
      in_bad = 0;
      w[n++] = row[i];
    }
  }
  return n;
}

/* Search tables: the encodings ld, gold and lld write and others that can
   be bisected in place; tables that cannot be searched (0); malformed
   ones (-GORC_ECORRUPT).  */
static void tables(void)
{
  static const uint8_t ok_encs[][2] = { { 0x03, 0x3b }, { 0x0b, 0x3b }, { 0x01, 0x3b },
                                        { 0x04, 0x3c }, { 0x03, 0x1b }, { 0x03, 0x1c } };
  reset();
  size_t c = cie("zR", (const uint8_t *)"\x1b", 1, "", 0);
  for (int i = 0; i < 5; i++)
    fde(c, 0x1b, 1, 0x90000 + 0x20 * (uint64_t)(4 - i), 0x10, "\x41\x0e\x10", 3);
  bn(&b, 0, 4);
  struct want w[32], x[32];
  size_t nw = table_want(w, 0, 0), nx;
  char name[96];
  for (size_t i = 0; i < N(ok_encs); i++) {
    build_hdr(ok_encs[i][0], ok_encs[i][1]);
    struct gorc_rt_ehframe ef = frame();
    snprintf(name, sizeof name, "search table count 0x%02x, entries 0x%02x", ok_encs[i][0],
             ok_encs[i][1]);
    check_ef(name, &ef, w, nw);
  }
  struct want none[] = { NONE(0x90000), NONE(0x90090) };
  struct want bad[] = { BAD(0x8fff0), BAD(0x900a0) };
  struct gorc_rt_ehframe ef;
  build_hdr(0x03, 0x03);        /* absolute: link-time addresses */
  ef = frame();
  check_ef("search table with absolute addresses: not searched", &ef, none, N(none));
  build_hdr(0x03, 0x3b);
  hdr.d[3] = 0x39;              /* sleb128 entries cannot be bisected */
  ef = frame();
  check_ef("search table of LEB128 entries: not searched", &ef, none, N(none));
  build_hdr(0x03, 0x3b);
  hdr.d[0] = 2;
  ef = frame();
  check_ef("search table version 2: not searched", &ef, none, N(none));
  build_hdr(0x03, 0x3b);
  hdr.d[2] = 0xff;
  ef = frame();
  check_ef("no search table (count omitted)", &ef, none, N(none));
  build_hdr(0x03, 0x3b);
  memset(hdr.d + 8, 0, 4);
  ef = frame();
  check_ef("search table with no entries", &ef, none, N(none));
  ef.hdr = ef.hdr_size = 0;
  check_ef("no .eh_frame_hdr", &ef, none, N(none));
  build_hdr(0x03, 0x3b);
  ef = frame();
  ef.hdr_size = 2;
  check_ef("a header cut short", &ef, bad, N(bad));
  ef = frame();
  ef.hdr_size -= 1;
  check_ef("a count larger than the table", &ef, bad, N(bad));
  ef = frame();
  ef.lo += 4;                   /* the CIE starts outside the bounds */
  struct want bad_cie[] = { NONE(0x8fff0), BAD(0x90000), BAD(0x900a0) };
  check_ef("CIEs outside [lo, hi)", &ef, bad_cie, N(bad_cie));
  ef = frame();
  ef.hi = ef.lo + fdes[0].off + 4;  /* fdes[0], at 0x90000, is the last one written */
  nx = table_want(x, 0x90000, 0x90020);
  check_ef("FDEs outside [lo, hi)", &ef, x, nx);
  build_hdr(0x03, 0x3b);
  uint32_t loc;
  memcpy(&loc, hdr.d + 12 + 8 * 2, 4);  /* the third entry one byte off */
  loc++;
  memcpy(hdr.d + 12 + 8 * 2, &loc, 4);
  ef = frame();
  /* 0x90040: the entry before leads to 0x90020's FDE, which does not
     cover it; from 0x90041 the entry leads to an FDE that does not start
     there.  */
  nx = table_want(x, 0x90041, 0x90060);
  for (size_t i = 0; i < nx; i++)
    if (x[i].pc == 0x90040)
      x[i].what = W_NONE;
  check_ef("a table entry that does not match its FDE", &ef, x, nx);
}

/* The walk over rows from FROM to TO (as gorc-prof's table builder
   does): each row's start, joined with ',' into OUT ("90000,90001,...").  */
static void row_starts(const struct gorc_rt_ehframe *ef, uint64_t from, uint64_t to, char *out,
                       size_t outlen)
{
  void *w = calloc(1, eh_rows_size());
  size_t n = 0;
  out[0] = 0;
  for (uint64_t pc = from, next; pc < to && w; pc = next) {
    struct gorc_state st;
    eh_rows_state(ef, w, pc, &st, &next);
    n += (size_t)snprintf(out + n, outlen - n, "%s%lx", n ? "," : "", (unsigned long)pc);
    if (next <= pc || n >= outlen)
      break;
  }
  free(w);
}

/* A module's entry point (ELF e_entry) where no FDE covers it: the
   outermost frame, up to the next FDE (gorc_eh_in_entry: ld.so's
   _start).  Not where an FDE starts at the entry, nor for entry 0.  */
static void entry_point(void)
{
  reset();
  size_t c = cie("zR", (const uint8_t[]){ 0x1b }, 1, "", 0);
  fde(c, 0x1b, 1, 0x90000, 0x10, S(body));
  fde(c, 0x1b, 1, 0x90040, 0x10, S(body));
  build_hdr(0x03, 0x3b);
  struct gorc_rt_ehframe ef = frame();
  const struct gorc_state outermost = mk(GORC_CFA_UNDEFINED, 0, 0, GORC_BP_UNDEFINED, 0, 0,
                                         GORC_RA_UNDEFINED, 0, GORC_AUX_UNKNOWN, 0);
  struct want in_gap[] = { SP(0x90000, 8), SPBP(0x90001, 16, -16), SP(0x90004, 8), NONE(0x90010),
                           ST(0x90020, outermost), SP(0x90040, 8), SPBP(0x90041, 16, -16),
                           SP(0x90044, 8), NONE(0x90050) };
  ef.entry = 0x90020;
  check_ef("an entry point without CFI: the outermost frame up to the next FDE", &ef, in_gap,
           N(in_gap));
  struct want below[] = { ST(0x8fff0, outermost), SP(0x90000, 8), SPBP(0x90001, 16, -16),
                          SP(0x90004, 8), NONE(0x90010) };
  ef.entry = 0x8fff0;
  check_ef("an entry point below every FDE", &ef, below, N(below));
  in_gap[4] = (struct want)NONE(0x90020);
  ef.entry = 0x90000;
  check_ef("an entry point an FDE covers: its CFI, the gap after it none", &ef, in_gap,
           N(in_gap));
  ef.entry = 0;
  check_ef("no entry point: the gap none", &ef, in_gap, N(in_gap));
  /* the rows' walk: the gap below the entry ends at it */
  char rows[256];
  ef.entry = 0x90020;
  row_starts(&ef, 0x90000, 0x90050, rows, sizeof rows);
  int ok = strcmp(rows, "90000,90001,90004,90010,90020,90040,90041,90044") == 0;
  printf("%s: synthetic: the rows' walk over an entry point: %s\n", ok ? "PASS" : "FAIL", rows);
  failures += !ok;
}

int main(void)
{
  encodings();
  augmentations();
  wide_records();
  rules();
  plt();
  unsupported();
  malformed();
  tables();
  entry_point();
  return failures ? 1 : 0;
}
