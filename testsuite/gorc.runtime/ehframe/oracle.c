/* Oracle test for eh_state: each file given is mapped the
   way the loader would place it (read-only, never run), and for every byte
   of every executable section the state looked up in place must agree
   with what libdw's CFI reader says, mapped through the same rules
   (ehframe.h, eh-lookup.c):

     CFA  DW_OP_bregx R off (a reg+off rule), R 0..15 -> SP / BP / REG
          DW_OP_bregR off; DW_OP_deref                -> DEREF
          ld's PLT expression (breg7 off; breg16 0; lit15; and; lit<t>;
          ge; lit3; shl; plus)                        -> SP_PLT, cfa_reg t
          anything else                               -> UNDEFINED
     rbp  same value                 -> SAME
          at CFA + k                 -> CFA k
          at bregR k                 -> REG R k
          anything else              -> UNDEFINED
     RA   (the frame's return address column must be 16)
          at CFA + k                 -> RA_CFA k
          undefined                  -> RA_UNDEFINED (the rest as above)
          anything else              -> the CFA is UNDEFINED
     rbx  same value (or no rule)    -> AUX_SAME
          at CFA + k                 -> AUX_CFA k
          anything else              -> AUX_UNKNOWN
   A state whose CFA is UNDEFINED has rbp UNDEFINED, rbx UNKNOWN.  Where
   libdw finds no FDE the lookup must return 0; where libdw fails inside an
   FDE, 0, -GORC_ECORRUPT or an UNDEFINED CFA.  -GORC_ECORRUPT anywhere
   else is a disagreement.

   usage: oracle [-v] FILE...   prints "FILE: N/M bytes agree (...)" per
   file and exits 1 on any disagreement.  */

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include "eh-test.h"

static int verbose;

static int is_cfa_plus(const Dwarf_Op *ops, size_t nops, int64_t *k)
{
  if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
    *k = 0;
    return 1;
  }
  if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa
      && ops[1].atom == DW_OP_plus_uconst) {
    *k = (int64_t)ops[1].number;
    return 1;
  }
  if (nops == 3 && ops[0].atom == DW_OP_call_frame_cfa
      && (ops[1].atom == DW_OP_consts || ops[1].atom == DW_OP_constu)
      && ops[2].atom == DW_OP_plus) {
    *k = (int64_t)ops[1].number;
    return 1;
  }
  return 0;
}

static int is_breg(const Dwarf_Op *ops, size_t nops, unsigned *reg, int64_t *k)
{
  /* libdw may or may not show the CFA that DW_CFA_expression pushes.  */
  if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa) {
    ops++;
    nops--;
  }
  if (nops == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15) {
    *reg = ops[0].atom - DW_OP_breg0;
    *k = (int64_t)ops[0].number;
    return 1;
  }
  return 0;
}

static void dump_ops(const char *what, const Dwarf_Op *ops, size_t nops)
{
  fprintf(stderr, "  %s:", what);
  if (!ops)
    fprintf(stderr, " (same)");
  for (size_t i = 0; i < nops; i++)
    fprintf(stderr, " op%#x(%#" PRIx64 ",%#" PRIx64 ")", ops[i].atom,
            (uint64_t)ops[i].number, (uint64_t)ops[i].number2);
  fprintf(stderr, "\n");
}

static int is_plt(const Dwarf_Op *ops, size_t nops, int64_t *off, uint8_t *threshold)
{
  static const uint8_t tail[] = { DW_OP_lit15, DW_OP_and, 0, DW_OP_ge, DW_OP_lit3, DW_OP_shl,
                                  DW_OP_plus };
  if (nops != 9 || ops[0].atom != DW_OP_breg7 || ops[1].atom != DW_OP_breg16
      || ops[1].number != 0 || ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31)
    return 0;
  for (unsigned i = 0; i < sizeof tail; i++)
    if (i != 2 && ops[2 + i].atom != tail[i])
      return 0;
  *off = (int64_t)ops[0].number;
  *threshold = (uint8_t)(ops[4].atom - DW_OP_lit0);
  return 1;
}

static void undefined(struct gorc_state *st, int ra_undefined)
{
  memset(st, 0, sizeof *st);
  st->cfa_kind = GORC_CFA_UNDEFINED;
  st->bp_kind = GORC_BP_UNDEFINED;
  st->aux_kind = GORC_AUX_UNKNOWN;
  st->ra_kind = ra_undefined ? GORC_RA_UNDEFINED : GORC_RA_CFA;
  st->ra_off = ra_undefined ? 0 : -8;
}

/* The CFA rule from libdw's expression; 0 for one gorc cannot follow.  */
static int map_cfa(const Dwarf_Op *ops, size_t nops, struct gorc_state *st)
{
  int64_t off;
  uint8_t t;
  if (nops == 1 && ops[0].atom == DW_OP_bregx && ops[0].number <= 15) {
    st->cfa_kind = ops[0].number == 7 ? GORC_CFA_SP
                   : ops[0].number == 6 ? GORC_CFA_BP : GORC_CFA_REG;
    st->cfa_reg = st->cfa_kind == GORC_CFA_REG ? (uint8_t)ops[0].number : 0;
    st->cfa_off = (int64_t)ops[0].number2;
  } else if (nops == 2 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15
             && ops[1].atom == DW_OP_deref) {
    st->cfa_kind = GORC_CFA_DEREF;
    st->cfa_reg = ops[0].atom - DW_OP_breg0;
    st->cfa_off = (int64_t)ops[0].number;
  } else if (is_plt(ops, nops, &off, &t)) {
    st->cfa_kind = GORC_CFA_SP_PLT;
    st->cfa_reg = t;
    st->cfa_off = off;
  } else {
    return 0;
  }
  return 1;
}

/* 1: *st is libdw's answer; 0: no FDE; -1: libdw failed inside an FDE.  */
static int expected(Dwarf_CFI *cfi, Dwarf_Addr a, struct gorc_state *st, int dump)
{
  Dwarf_Frame *fr;
  Dwarf_Op *ops, *bops, bmem[3], *rops, rmem[3], *xops, xmem[3];
  size_t nops, nb, nr, nx;
  int64_t k;
  unsigned r;

  undefined(st, 0);
  if (dwarf_cfi_addrframe(cfi, a, &fr) != 0) {
    const char *m = dwarf_errmsg(-1);
    return m && strstr(m, "no match") ? 0 : -1;
  }
  int ra = dwarf_frame_info(fr, NULL, NULL, NULL);
  if (dwarf_frame_cfa(fr, &ops, &nops) != 0
      || dwarf_frame_register(fr, GORC_DWARF_RBP, bmem, &bops, &nb) != 0
      || dwarf_frame_register(fr, GORC_DWARF_RA, rmem, &rops, &nr) != 0
      || dwarf_frame_register(fr, GORC_DWARF_RBX, xmem, &xops, &nx) != 0) {
    free(fr);
    return -1;
  }
  if (dump) {
    dump_ops("cfa", ops, nops);
    dump_ops("rbp", bops, nb);
    dump_ops("rbx", xops, nx);
    dump_ops("ra", rops, nr);
  }
  if (ra != GORC_DWARF_RA)
    goto out;
  int ra_undefined = nr == 0 && rops != NULL;
  if (!ra_undefined && !is_cfa_plus(rops, nr, &k))
    goto out;
  undefined(st, ra_undefined);
  if (!map_cfa(ops, nops, st))
    goto out;
  if (!ra_undefined)
    st->ra_off = k;
  if (nb == 0 && bops == NULL) {
    st->bp_kind = GORC_BP_SAME;
  } else if (is_cfa_plus(bops, nb, &k)) {
    st->bp_kind = GORC_BP_CFA;
    st->bp_off = k;
  } else if (is_breg(bops, nb, &r, &k)) {
    st->bp_kind = GORC_BP_REG;
    st->bp_reg = (uint8_t)r;
    st->bp_off = k;
  }
  /* libdw says "same value" (no ops) or "undefined" (zero ops) for an rbx
     without a rule: elfutils' x86-64 ABI defaults (backends/x86_64_cfi.c)
     mark register 0 same_value where they mean rbx, so libdw's default
     for 3 is undefined.  Both are SAME here; an explicit DW_CFA_undefined
     rbx (which libdw reports the same way; the lookup makes it UNKNOWN)
     would show up as a disagreement.  */
  if (nx == 0) {
    st->aux_kind = GORC_AUX_SAME;
  } else if (is_cfa_plus(xops, nx, &k)) {
    st->aux_kind = GORC_AUX_CFA;
    st->aux_off = k;
  }
out:
  free(fr);
  return 1;
}

struct counts {
  uint64_t agree, total, nofde, libdw_err, shown;
  uint64_t kinds[7], outermost, aux[3];
  uint64_t rows, rows_shown;
};

/* Does the lookup's answer (RC, GOT) agree with libdw's (X, WANT)?  */
static int agrees(int x, const struct gorc_state *want, int rc, const struct gorc_state *got)
{
  if (x == 0)
    return rc == 0;
  if (x < 0)
    return rc == 0 || rc == -GORC_ECORRUPT || (rc == 1 && got->cfa_kind == GORC_CFA_UNDEFINED);
  return rc == 1 && eh_well_formed(got) && gorc_state_equal(want, got);
}

static void check_byte(const char *path, Dwarf_CFI *cfi, const struct eh_image *im, uint64_t a,
                       struct counts *c)
{
  struct gorc_state want, got;
  int x = expected(cfi, a, &want, 0);
  memset(&got, 0, sizeof got);
  int rc = eh_state(&im->ef, a + im->bias, &got);
  int ok = agrees(x, &want, rc, &got);
  if (x == 0) {
    c->nofde++;
  } else {
    c->total++;
    c->libdw_err += x < 0;
    if (ok) {
      c->agree++;
      if (rc == 1 && got.cfa_kind < 7) {
        c->kinds[got.cfa_kind]++;
        c->aux[got.aux_kind < 3 ? got.aux_kind : 0]++;
        c->outermost += got.ra_kind == GORC_RA_UNDEFINED;
      }
    }
  }
  if (verbose && rc == 1) {
    printf("  %#" PRIx64 " ", a);
    eh_print_state(stdout, &got);
    printf("\n");
  }
  if (!ok && c->shown++ < 20) {
    fprintf(stderr, "%s: %#" PRIx64 ": libdw (%s) ", path, a,
            x == 0 ? "no FDE" : x < 0 ? "error" : "ok");
    eh_print_state(stderr, &want);
    fprintf(stderr, "; lookup rc %d ", rc);
    if (rc == 1)
      eh_print_state(stderr, &got);
    fprintf(stderr, "\n");
    expected(cfi, a, &want, 1);
  }
}

/* The walk over the rows of [LO, HI) (gorc-prof's table builder's):
   each row's answer is eh_state's at every byte of it.  */
static void check_rows(const char *path, const struct eh_image *im, uint64_t lo, uint64_t hi,
                       struct counts *c)
{
  void *w = calloc(1, eh_rows_size());
  for (uint64_t a = lo, next; a < hi && w; a = next) {
    struct gorc_state row, byte;
    memset(&row, 0, sizeof row);
    int rc = eh_rows_state(&im->ef, w, a + im->bias, &row, &next);
    next = next == UINT64_MAX || next - im->bias > hi ? hi : next - im->bias;
    if (next <= a)
      next = a + 1;
    c->rows++;
    /* (a malformed FDE answers for its first byte only) */
    for (uint64_t b = a; b < (rc < 0 ? a + 1 : next); b++) {
      memset(&byte, 0, sizeof byte);
      int brc = eh_state(&im->ef, b + im->bias, &byte);
      if (brc == rc && (rc != 1 || gorc_state_equal(&row, &byte)))
        continue;
      if (c->rows_shown++ < 20)
        fprintf(stderr, "%s: %#" PRIx64 ": the rows walk's row from %#" PRIx64 " (rc %d) is not "
                "the lookup's (rc %d)\n", path, b, a, rc, brc);
      break;
    }
  }
  free(w);
}

static int check_file(const char *path)
{
  struct eh_image im;
  if (eh_map(path, &im) != 0)
    return 2;
  if (im.ef.hdr == 0) {
    fprintf(stderr, "%s: no PT_GNU_EH_FRAME\n", path);
    return 2;
  }
  int fd = open(path, O_RDONLY);
  elf_version(EV_CURRENT);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
  if (!cfi) {
    fprintf(stderr, "%s: dwarf_getcfi_elf: %s\n", path, dwarf_errmsg(-1));
    return 2;
  }
  struct counts c;
  memset(&c, 0, sizeof c);
  GElf_Shdr sh;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
      continue;
    for (uint64_t a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a++)
      check_byte(path, cfi, &im, a, &c);
    check_rows(path, &im, sh.sh_addr, sh.sh_addr + sh.sh_size, &c);
  }
  printf("%s: %" PRIu64 "/%" PRIu64 " bytes agree (SP %" PRIu64 ", BP %" PRIu64
         ", REG %" PRIu64 ", DEREF %" PRIu64 ", UNDEFINED %" PRIu64 ", SP_PLT %" PRIu64
         "; outermost %" PRIu64 "; rbx SAME %" PRIu64 ", CFA %" PRIu64 ", UNKNOWN %" PRIu64
         "; libdw errors %" PRIu64 "; %" PRIu64 " bytes without FDE: %s); rows walk: %" PRIu64
         " rows, %s\n",
         path, c.agree, c.total, c.kinds[1], c.kinds[2], c.kinds[3], c.kinds[4], c.kinds[5],
         c.kinds[6], c.outermost, c.aux[GORC_AUX_SAME], c.aux[GORC_AUX_CFA],
         c.aux[GORC_AUX_UNKNOWN], c.libdw_err, c.nofde, c.shown ? "DISAGREE" : "all agree",
         c.rows, c.rows_shown ? "DISAGREE with the lookup" : "each the lookup's");
  elf_end(elf);
  close(fd);
  return c.shown || c.rows_shown ? 1 : 0;
}

int main(int argc, char **argv)
{
  int rc = 0, i = 1;
  if (i < argc && strcmp(argv[i], "-v") == 0) {
    verbose = 1;
    i++;
  }
  if (i >= argc) {
    fprintf(stderr, "usage: oracle [-v] FILE...\n");
    return 2;
  }
  for (; i < argc; i++) {
    int r = check_file(argv[i]);
    if (r > rc)
      rc = r;
  }
  return rc;
}
