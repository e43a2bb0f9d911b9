/* Hand-built .eh_frame sections: pointer encodings, augmentations,
   64-bit records, what is skipped, what is malformed, and the exact
   entries produced.  Prints PASS/FAIL lines; exits 1 on any failure.  */

#include <stdarg.h>
#include <string.h>
#include "eh-test.h"

#define ADDR 0x100000u          /* run-time address of the section */
#define BASE 0x80000u           /* module base */

static int failures;

struct buf {
  uint8_t d[8192];
  size_t n;
};

static void b8(struct buf *b, unsigned v) { b->d[b->n++] = (uint8_t)v; }
static void bn(struct buf *b, uint64_t v, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    b8(b, (unsigned)(v >> (8 * i)));
}
static void buleb(struct buf *b, uint64_t v) { b->n += gorc_put_uleb(b->d + b->n, v); }
static void bsleb(struct buf *b, int64_t v) { b->n += gorc_put_sleb(b->d + b->n, v); }
static void bbytes(struct buf *b, const char *s, size_t n) { memcpy(b->d + b->n, s, n); b->n += n; }
static uint64_t here(const struct buf *b) { return ADDR + b->n; }

/* Patch the 32-bit length at OFF to cover up to the current end.  */
static void close_rec(struct buf *b, size_t off)
{
  uint32_t len = (uint32_t)(b->n - off - 4);
  for (int i = 0; i < 4; i++)
    b->d[off + i] = (uint8_t)(len >> (8 * i));
}

/* A CIE: version 1, AUG, caf 1, daf -8, RA 16, AUGDATA (for "z..."),
   then def_cfa rsp 8; offset rip 1 and EXTRA instructions.  */
static size_t cie(struct buf *b, const char *aug, const uint8_t *augdata, size_t augdata_len,
                  const char *extra, size_t extra_len)
{
  size_t off = b->n;
  bn(b, 0, 4);
  bn(b, 0, 4);
  b8(b, 1);
  bbytes(b, aug, strlen(aug) + 1);
  buleb(b, 1);
  bsleb(b, -8);
  b8(b, 16);
  if (aug[0] == 'z') {
    buleb(b, augdata_len);
    memcpy(b->d + b->n, augdata, augdata_len);
    b->n += augdata_len;
  }
  bbytes(b, "\x0c\x07\x08\x90\x01", 5);
  bbytes(b, extra, extra_len);
  close_rec(b, off);
  return off;
}

/* Encode a pointer as ENC at the current position.  */
static void bptr(struct buf *b, uint8_t enc, uint64_t v)
{
  if ((enc & 0x70) == 0x10)
    v -= here(b);
  switch (enc & 0x0f) {
  case 0x00: case 0x04: case 0x08: case 0x0c: bn(b, v, 8); break;
  case 0x01: buleb(b, v); break;
  case 0x09: bsleb(b, (int64_t)v); break;
  case 0x02: case 0x0a: bn(b, v, 2); break;
  case 0x03: case 0x0b: bn(b, v, 4); break;
  }
}

/* An FDE for CIE_OFF with pointers in ENC; HAS_Z adds an empty
   augmentation data length.  */
static size_t fde(struct buf *b, size_t cie_off, uint8_t enc, int has_z, uint64_t pc,
                  uint64_t range, const char *insns, size_t insns_len)
{
  size_t off = b->n;
  bn(b, 0, 4);
  bn(b, b->n - cie_off, 4);
  bptr(b, enc, pc);
  bptr(b, enc & 0x0f, range);
  if (has_z)
    buleb(b, 0);
  bbytes(b, insns, insns_len);
  close_rec(b, off);
  return off;
}

struct want {
  uint64_t pc;
  struct gorc_state s;
};

#define SP(o) { GORC_CFA_SP, 0, GORC_BP_SAME, 0, o, 0 }
#define SPBP(o, bo) { GORC_CFA_SP, 0, GORC_BP_CFA, 0, o, bo }
#define END { GORC_CFA_END, 0, 0, 0, 0, 0 }
#define UNDEF { GORC_CFA_UNDEFINED, 0, GORC_BP_UNDEFINED, 0, 0, 0 }
#define OUTER { GORC_CFA_UNDEFINED, 0xff, GORC_BP_UNDEFINED, 0, 0, 0 }

static void check(const char *name, const struct buf *b, int want_rc,
                  const struct want *w, size_t nw)
{
  struct gorc_rt_builder bl = { 0 };
  int rc = gorc_rt_convert_eh_frame(&bl, BASE, b->d, b->n, ADDR);
  int ok = rc == want_rc && !bl.failed && bl.count == nw;
  for (size_t i = 0; ok && i < nw; i++) {
    struct gorc_state got;
    eh_state_of(&bl.entries[i], &got);
    ok = bl.entries[i].pc_off == w[i].pc - BASE
         && (w[i].s.cfa_kind == GORC_CFA_END ? got.cfa_kind == GORC_CFA_END
                                             : eh_same(&w[i].s, &got));
  }
  printf("%s: synthetic: %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok) {
    failures++;
    printf("  rc %d (want %d), failed %d, %zu entries (want %zu):\n", rc, want_rc,
           bl.failed, bl.count, nw);
    for (size_t i = 0; i < bl.count; i++) {
      struct gorc_state got;
      eh_state_of(&bl.entries[i], &got);
      printf("    %#x ", bl.entries[i].pc_off + BASE);
      eh_print_state(stdout, &got);
      printf("\n");
    }
  }
  gorc_rt_builder_free(&bl);
}

#define N(a) (sizeof (a) / sizeof (a)[0])
#define S(lit) lit, sizeof lit - 1

/* push rbp; mov rsp,rbp-less body: cfa sp+16 at +1, rbp saved at +1.  */
static const char body[] = "\x41\x0e\x10\x86\x02\x43\x0e\x08\xc6";

int main(void)
{
  struct buf b;
  static const uint8_t enc_list[] = { 0x1b, 0x03, 0x0b, 0x13, 0x1a, 0x12,
                                      0x01, 0x09, 0x19, 0x04, 0x0c, 0x1c, 0x00, 0x33,
                                      0x3b, 0x08 };

  /* Every pointer encoding, each in its own "zR" CIE.  */
  for (size_t i = 0; i < N(enc_list); i++) {
    uint8_t enc = enc_list[i];
    char name[64];
    uint64_t pc = ADDR + 0x1000;
    /* (2-byte encodings only pcrel: an absolute one cannot reach BASE) */
    memset(&b, 0, sizeof b);
    size_t c = cie(&b, "zR", &enc, 1, "", 0);
    fde(&b, c, enc, 1, pc, 0x20, S(body));
    bn(&b, 0, 4);
    struct want w[] = { { pc, SP(8) }, { pc + 1, SPBP(16, -16) }, { pc + 4, SP(8) },
                        { pc + 0x20, END } };
    snprintf(name, sizeof name, "FDE pointer encoding 0x%02x", enc);
    check(name, &b, 0, w, N(w));
  }

  /* No augmentation at all: absptr, no augmentation data length.  */
  memset(&b, 0, sizeof b);
  size_t c = cie(&b, "", NULL, 0, "", 0);
  fde(&b, c, 0x00, 0, 0x90000, 0x10, S(body));
  {
    struct want w[] = { { 0x90000, SP(8) }, { 0x90001, SPBP(16, -16) }, { 0x90004, SP(8) },
                        { 0x90010, END } };
    check("augmentation \"\"", &b, 0, w, N(w));
  }

  /* zPLR with an indirect personality, zLR, zS, zPR (omitted LSDA).  */
  {
    static const uint8_t plr[] = { 0x9b, 0, 0, 0, 0, 0x1b, 0x1b };
    static const uint8_t lr[] = { 0x1b, 0x1b };
    static const uint8_t sr[] = { 0x1b };
    static const uint8_t pr[] = { 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b };
    memset(&b, 0, sizeof b);
    size_t c1 = cie(&b, "zPLR", plr, sizeof plr, "", 0);
    size_t c2 = cie(&b, "zLR", lr, sizeof lr, "", 0);
    size_t c3 = cie(&b, "zS", sr, 0, "", 0);
    size_t c4 = cie(&b, "zPR", pr, sizeof pr, "", 0);
    /* FDE augmentation data: a 4-byte LSDA pointer */
    size_t f = b.n;
    bn(&b, 0, 4);
    bn(&b, b.n - c1, 4);
    bptr(&b, 0x1b, 0x90000);
    bn(&b, 0x10, 4);
    buleb(&b, 4);
    bn(&b, 0x12345678, 4);
    bbytes(&b, S(body));
    close_rec(&b, f);
    fde(&b, c2, 0x1b, 1, 0x90010, 0x10, "\x41\x0e\x10", 3);
    /* zS: absptr FDE; an 'S' frame converts normally */
    fde(&b, c3, 0x00, 1, 0x90020, 0x10, "\x42\x0e\x10", 3);
    fde(&b, c4, 0x1b, 1, 0x90030, 0x10, "", 0);
    bn(&b, 0, 4);
    struct want w[] = { { 0x90000, SP(8) }, { 0x90001, SPBP(16, -16) }, { 0x90004, SP(8) },
                        { 0x90010, END },
                        { 0x90010, SP(8) }, { 0x90011, SP(16) }, { 0x90020, END },
                        { 0x90020, SP(8) }, { 0x90022, SP(16) }, { 0x90030, END },
                        { 0x90030, SP(8) }, { 0x90040, END } };
    check("augmentations zPLR (indirect personality), zLR, zS, zPR", &b, 0, w, N(w));
  }

  /* A 64-bit CIE and FDE, CIE version 3 (uleb RA) and 4.  */
  {
    memset(&b, 0, sizeof b);
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
    bptr(&b, 0x1c, 0x90000);
    bn(&b, 0x10, 8);
    buleb(&b, 0);
    b8(&b, 0x01);               /* set_loc 0x90008 */
    bptr(&b, 0x1c, 0x90008);
    bbytes(&b, "\x0e\x18", 2);
    len = b.n - lenpos - 8;
    for (int i = 0; i < 8; i++)
      b.d[lenpos + i] = (uint8_t)(len >> (8 * i));
    (void)f;
    /* version 4 CIE: address_size 8, segment_selector_size 0 */
    size_t c4 = b.n;
    bn(&b, 0, 4);
    bn(&b, 0, 4);
    b8(&b, 4);
    bbytes(&b, "zR", 3);
    b8(&b, 8);
    b8(&b, 0);
    buleb(&b, 4);               /* caf 4 */
    bsleb(&b, -8);
    buleb(&b, 16);
    buleb(&b, 1);
    b8(&b, 0x1b);
    bbytes(&b, "\x0c\x07\x08\x90\x01", 5);
    close_rec(&b, c4);
    fde(&b, c4, 0x1b, 1, 0x90010, 0x10, "\x41\x0e\x10", 3);
    struct want w[] = { { 0x90000, SP(8) }, { 0x90008, SP(24) }, { 0x90010, END },
                        { 0x90010, SP(8) }, { 0x90014, SP(16) }, { 0x90020, END } };
    check("64-bit records with set_loc; CIE versions 3 and 4", &b, 0, w, N(w));
  }

  /* Rules: DEREF, BP_REG, REG, outermost, unexpressible ones, dedup.  */
  {
    memset(&b, 0, sizeof b);
    size_t c1 = cie(&b, "zR", (const uint8_t *)"\x1b", 1, "", 0);
    fde(&b, c1, 0x1b, 1, 0x90000, 0x40,
        S("\x41\x0c\x0a\x00"                 /* +1 cfa r10+0 */
          "\x41\x10\x06\x02\x76\x00"         /* +2 rbp at rbp+0 */
          "\x41\x0f\x03\x76\x78\x06"         /* +3 cfa *(rbp-8) */
          "\x41\x0f\x03\x76\x78\x06"         /* +4 the same again: no entry */
          "\x41\x0c\x07\x08\x07\x06"         /* +5 sp+8, rbp undefined */
          "\x41\x08\x06\x09\x06\x00"         /* +6 rbp same, then in rax: UNDEFINED */
          "\x41\x08\x06\x14\x10\x01"         /* +7 rbp same; ra val_offset: UNDEFINED */
          "\x41\x90\x01\x07\x10"             /* +8 ra undefined: outermost */
          "\x41\xd0"                          /* +9 restore ra */
          "\x41\x0c\x10\x08"                 /* +10 cfa on rip: UNDEFINED */
          "\x41\x0c\x07\x08\x2e\x20\x00"     /* +11 sp+8, args_size, nop */
          "\x41\x0e\x90\x80\x80\x80\x08"     /* +12 offset 2^31: UNDEFINED */
          "\x41\x0e\x10\x86\x81\x80\x80\x80\x01" /* +13 rbp at CFA-2^31-8: UNDEFINED bp */
          "\x41\x86\x7f\x90\x02"             /* +14 rbp CFA-1016, ra at CFA-16: UNDEF */
          "\x41\x90\x01"));                   /* +15 back */
    bn(&b, 0, 4);
    struct gorc_state reg10 = { GORC_CFA_REG, 10, GORC_BP_SAME, 0, 0, 0 };
    struct gorc_state reg10bp = { GORC_CFA_REG, 10, GORC_BP_REG, 6, 0, 0 };
    struct gorc_state deref = { GORC_CFA_DEREF, 6, GORC_BP_REG, 6, -8, 0 };
    struct gorc_state spu = { GORC_CFA_SP, 0, GORC_BP_UNDEFINED, 0, 8, 0 };
    struct gorc_state sp16u = { GORC_CFA_SP, 0, GORC_BP_UNDEFINED, 0, 16, 0 };
    struct want w2[] = { { 0x90000, SP(8) }, { 0x90001, reg10 }, { 0x90002, reg10bp },
                         { 0x90003, deref }, { 0x90005, spu },
                         { 0x90007, UNDEF }, { 0x90008, OUTER }, { 0x90009, SP(8) },
                         { 0x9000a, UNDEF }, { 0x9000b, SP(8) }, { 0x9000c, UNDEF },
                         { 0x9000d, sp16u }, { 0x9000e, UNDEF },
                         { 0x9000f, SPBP(16, -1016) }, { 0x90040, END } };
    check("CFA and rbp rules, outermost marker, no repeated entries", &b, 0, w2, N(w2));
  }

  /* Skipped quietly (rc 0): textrel, funcrel, aligned, indirect FDE
     pointers, unknown augmentations, "eh", CIE version 2, zero-length
     FDE, an FDE below the base or over 4 GiB past it; and nothing after
     the zero terminator.  */
  {
    static const uint8_t encs[] = { 0x20, 0x40, 0x50, 0x9b };
    memset(&b, 0, sizeof b);
    for (size_t i = 0; i < N(encs); i++) {
      size_t cc = cie(&b, "zR", &encs[i], 1, "", 0);
      size_t f = b.n;
      bn(&b, 0, 4);
      bn(&b, b.n - cc, 4);
      bn(&b, 0x90000, 8);
      bn(&b, 0x10, 8);
      buleb(&b, 0);
      close_rec(&b, f);
    }
    size_t cx = cie(&b, "zX", (const uint8_t *)"", 0, "", 0);
    fde(&b, cx, 0x00, 1, 0x90000, 0x10, "", 0);
    size_t ceh = cie(&b, "eh", NULL, 0, "", 0);
    fde(&b, ceh, 0x00, 0, 0x90000, 0x10, "", 0);
    size_t cv2 = cie(&b, "zR", (const uint8_t *)"\x1b", 1, "", 0);
    b.d[cv2 + 8] = 2;
    fde(&b, cv2, 0x1b, 1, 0x90000, 0x10, "", 0);
    size_t cok = cie(&b, "zR", (const uint8_t *)"\x1b", 1, "", 0);
    fde(&b, cok, 0x1b, 1, 0x90000, 0, "", 0);
    fde(&b, cok, 0x1b, 1, BASE - 0x10, 0x20, "", 0);
    fde(&b, cok, 0x1b, 1, BASE + 0xfffffff0ull, 0x20, "", 0);
    fde(&b, cok, 0x1b, 1, 0x90100, 0x10, "", 0);
    bn(&b, 0, 4);
    fde(&b, cok, 0x1b, 1, 0x90200, 0x10, "", 0);
    struct want w[] = { { 0x90100, SP(8) }, { 0x90110, END } };
    check("unsupported encodings and augmentations skipped, stop at terminator", &b, 0, w, N(w));
  }

  /* Malformed FDEs (rc -1), each skipped whole while the good ones after
     them are converted.  */
  {
    memset(&b, 0, sizeof b);
    size_t cok = cie(&b, "zR", (const uint8_t *)"\x1b", 1, "", 0);
    char deep[40];
    memset(deep, 0x0a, 17);      /* 17 x remember_state: too deep */
    fde(&b, cok, 0x1b, 1, 0x90000, 0x10, deep, 17);
    fde(&b, cok, 0x1b, 1, 0x90010, 0x10, "\x41\x0e\x10\x0b", 4);   /* restore_state, none */
    fde(&b, cok, 0x1b, 1, 0x90020, 0x10, "\x41\x0e\x10\x2d", 4);   /* GNU_window_save */
    fde(&b, cok, 0x1b, 1, 0x90030, 0x10, "\x41\x0e\x10\x0e", 4);   /* truncated operand */
    fde(&b, cok, 0x1b, 1, 0x90040, 0x10, "\x41\x0f\x09\x77", 4);   /* expression too long */
    fde(&b, cok, 0x1b, 1, 0x90050, 0x10,
        "\x41\x0e\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 13);  /* LEB overflow */
    size_t f = fde(&b, cok, 0x1b, 1, 0x90060, 0x10, "", 0);        /* bad CIE pointer */
    b.d[f + 4] = 0xf0;
    b.d[f + 5] = 0xff;
    f = fde(&b, cok, 0x1b, 1, 0x90070, 0x10, "", 0);               /* points at an FDE */
    {
      uint32_t v = (uint32_t)(f + 4 - (f - 0x1c));
      (void)v;
    }
    size_t prev_fde = f;
    f = fde(&b, cok, 0x1b, 1, 0x90080, 0x10, "", 0);
    {
      uint32_t v = (uint32_t)(f + 4 - prev_fde);
      for (int i = 0; i < 4; i++)
        b.d[f + 4 + i] = (uint8_t)(v >> (8 * i));
    }
    /* set_loc backwards */
    f = b.n;
    bn(&b, 0, 4);
    bn(&b, b.n - cok, 4);
    bptr(&b, 0x1b, 0x90090);
    bn(&b, 0x10, 4);
    buleb(&b, 0);
    b8(&b, 0x41);
    b8(&b, 0x01);
    bptr(&b, 0x1b, 0x90090);
    close_rec(&b, f);
    /* a CIE with an instruction that advances */
    size_t cadv = cie(&b, "zR", (const uint8_t *)"\x1b", 1, "\x41", 1);
    fde(&b, cadv, 0x1b, 1, 0x900a0, 0x10, "", 0);
    fde(&b, cok, 0x1b, 1, 0x90100, 0x10, "\x41\x0e\x10", 3);      /* good */
    bn(&b, 0, 4);
    struct want w[] = { { 0x90070, SP(8) }, { 0x90080, END },
                        { 0x90100, SP(8) }, { 0x90101, SP(16) }, { 0x90110, END } };
    check("malformed FDEs skipped whole, rc -1", &b, -1, w, N(w));
  }

  /* A record whose length runs past the section: rc -1, earlier FDEs kept.  */
  {
    memset(&b, 0, sizeof b);
    size_t cok = cie(&b, "zR", (const uint8_t *)"\x1b", 1, "", 0);
    fde(&b, cok, 0x1b, 1, 0x90000, 0x10, "", 0);
    size_t f = fde(&b, cok, 0x1b, 1, 0x90010, 0x10, "", 0);
    b.d[f + 1] = 0x10;
    struct want w[] = { { 0x90000, SP(8) }, { 0x90010, END } };
    check("record past the end of the section", &b, -1, w, N(w));
    b.n = f + 2;
    check("section ends inside a length field", &b, -1, w, N(w));
    b.n = f;
    check("section without a terminator", &b, 0, w, N(w));
  }

  {
    struct gorc_rt_builder bl = { 0 };
    int ok = gorc_rt_convert_eh_frame(&bl, 0, NULL, 0, 0) == 0 && bl.count == 0
             && gorc_rt_convert_eh_frame(&bl, 0, NULL, 4, 0) == -1
             && gorc_rt_convert_eh_frame(&bl, 0, (const uint8_t *)"", 0, 0) == 0;
    printf("%s: synthetic: empty and NULL sections\n", ok ? "PASS" : "FAIL");
    failures += !ok;
  }
  return failures ? 1 : 0;
}
