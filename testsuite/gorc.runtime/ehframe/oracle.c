/* Oracle test for gorc_rt_convert_eh_frame: for every byte of every
   executable section of each file given, the converted state must agree
   with what libdw's CFI reader says, mapped through the same rules:

     CFA  DW_OP_bregx R off (a reg+off rule), R 0..15 -> SP / BP / REG
          DW_OP_bregR off; DW_OP_deref                -> DEREF
          anything else                               -> UNDEFINED
     rbp  same value                 -> SAME
          at CFA + k                 -> CFA k
          at bregR k                 -> REG R k
          anything else              -> UNDEFINED
     RA   (the frame's return address column must be 16)
          at CFA - 8                 -> as above
          undefined                  -> UNDEFINED, cfa_reg 0xff
          anything else              -> UNDEFINED
     rbx  (register 3, the entry's rbx_kind/rbx_off, whatever the CFA)
          same value (or no rule)    -> GORC_RT_RBX_SAME
          at CFA + k                 -> GORC_RT_RBX_CFA, rbx_off k
          anything else              -> GORC_RT_RBX_UNKNOWN
   A state whose CFA is UNDEFINED has rbp UNDEFINED.  Where libdw finds no
   FDE, the table must have no entry or an END entry (with rbx UNKNOWN);
   where libdw fails on an FDE's program, UNDEFINED or END.  Equal
   consecutive rows must have been merged: no entry may repeat the one
   the converter added before it (same FDE, rbx included).

   usage: oracle [-v] FILE...   prints "FILE: N/M bytes agree" per file and
   exits 1 on any disagreement.  */

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* The expected rbx rule (what the converter's entry must carry).  */
struct rbx_rule {
  uint8_t kind;        /* enum gorc_rt_rbx_kind */
  int64_t off;
};

static void print_rbx(FILE *f, uint8_t kind, int64_t off)
{
  if (kind == GORC_RT_RBX_SAME)
    fprintf(f, ", rbx SAME");
  else if (kind == GORC_RT_RBX_CFA)
    fprintf(f, ", rbx CFA%+lld", (long long)off);
  else if (kind == GORC_RT_RBX_UNKNOWN)
    fprintf(f, ", rbx UNKNOWN");
  else
    fprintf(f, ", rbx ?%u", kind);
}

static int same_rbx(const struct rbx_rule *want, const struct gorc_rt_entry *e)
{
  return e->rbx_kind == want->kind && (want->kind != GORC_RT_RBX_CFA || e->rbx_off == want->off);
}

/* 1: *st and *bx are libdw's answer; 0: no FDE; -1: libdw failed inside an
   FDE.  */
static int expected(Dwarf_CFI *cfi, Dwarf_Addr a, struct gorc_state *st, struct rbx_rule *bx,
                    int dump)
{
  Dwarf_Frame *fr;
  Dwarf_Op *ops, mem[3], *bops, bmem[3], *rops, rmem[3], *xops, xmem[3];
  size_t nops, nb, nr, nx;
  int64_t k;
  unsigned r;

  memset(st, 0, sizeof *st);
  st->cfa_kind = GORC_CFA_UNDEFINED;
  st->bp_kind = GORC_BP_UNDEFINED;
  bx->kind = GORC_RT_RBX_UNKNOWN;
  bx->off = 0;
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
  (void)mem;
  if (dump) {
    dump_ops("cfa", ops, nops);
    dump_ops("rbp", bops, nb);
    dump_ops("rbx", xops, nx);
    dump_ops("ra", rops, nr);
  }
  /* rbx: its own column, whatever the CFA and return address rules.
     libdw says "same value" (no ops) or "undefined" (zero ops) for an rbx
     without a rule: elfutils' x86-64 ABI defaults (backends/x86_64_cfi.c)
     mark register 0 same_value where they mean rbx, so libdw's default
     for 3 is undefined.  Both are SAME here; an explicit DW_CFA_undefined
     rbx (which libdw reports the same way; the converter makes it
     UNKNOWN) would show up as a disagreement.  */
  if (nx == 0) {
    bx->kind = GORC_RT_RBX_SAME;
  } else if (is_cfa_plus(xops, nx, &k) && k >= INT32_MIN && k <= INT32_MAX) {
    bx->kind = GORC_RT_RBX_CFA;
    bx->off = k;
  }
  if (ra != GORC_DWARF_RA)
    goto out;
  if (nr == 0 && rops != NULL) {
    st->cfa_reg = 0xff;
    goto out;
  }
  if (!is_cfa_plus(rops, nr, &k) || k != -8)
    goto out;
  if (nops == 1 && ops[0].atom == DW_OP_bregx && ops[0].number <= 15
      && (int64_t)ops[0].number2 >= INT32_MIN && (int64_t)ops[0].number2 <= INT32_MAX) {
    st->cfa_kind = ops[0].number == 7 ? GORC_CFA_SP
                   : ops[0].number == 6 ? GORC_CFA_BP : GORC_CFA_REG;
    st->cfa_reg = st->cfa_kind == GORC_CFA_REG ? (uint8_t)ops[0].number : 0;
    st->cfa_off = (int64_t)ops[0].number2;
  } else if (nops == 2 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15
             && ops[1].atom == DW_OP_deref
             && (int64_t)ops[0].number >= INT32_MIN && (int64_t)ops[0].number <= INT32_MAX) {
    st->cfa_kind = GORC_CFA_DEREF;
    st->cfa_reg = ops[0].atom - DW_OP_breg0;
    st->cfa_off = (int64_t)ops[0].number;
  } else {
    goto out;
  }
  if (nb == 0 && bops == NULL)
    st->bp_kind = GORC_BP_SAME;
  else if (is_cfa_plus(bops, nb, &k) && k >= INT32_MIN && k <= INT32_MAX) {
    st->bp_kind = GORC_BP_CFA;
    st->bp_off = k;
  } else if (is_breg(bops, nb, &r, &k) && k >= INT32_MIN && k <= INT32_MAX) {
    st->bp_kind = GORC_BP_REG;
    st->bp_reg = (uint8_t)r;
    st->bp_off = k;
  }
out:
  free(fr);
  return 1;
}

static int check_file(const char *path)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    perror(path);
    return 2;
  }
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  size_t shstrndx;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    fprintf(stderr, "%s: not ELF\n", path);
    return 2;
  }
  Elf_Scn *scn = NULL, *eh = NULL;
  GElf_Shdr sh, ehsh;
  while ((scn = elf_nextscn(elf, scn))) {
    const char *name;
    if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name))
        && strcmp(name, ".eh_frame") == 0) {
      eh = scn;
      ehsh = sh;
    }
  }
  if (!eh) {
    fprintf(stderr, "%s: no .eh_frame\n", path);
    return 2;
  }
  Elf_Data *d = elf_rawdata(eh, NULL);
  if (!d || d->d_size != ehsh.sh_size) {
    fprintf(stderr, "%s: cannot read .eh_frame\n", path);
    return 2;
  }
  struct gorc_rt_builder b = { 0 };
  int rc = gorc_rt_convert_eh_frame(&b, 0, d->d_buf, d->d_size, ehsh.sh_addr);
  if (rc != 0 || b.failed) {
    printf("%s: convert returned %d, builder failed %d\n", path, rc, b.failed);
    return 1;
  }
  struct eh_sorted *s = eh_sort(&b);
  if (verbose)
    for (size_t i = 0; i < b.count; i++) {
      struct gorc_state st;
      eh_state_of(&s[i].e, &st);
      printf("  %#x ", s[i].e.pc_off);
      eh_print_state(stdout, &st);
      print_rbx(stdout, s[i].e.rbx_kind, s[i].e.rbx_off);
      printf("\n");
    }
  size_t fdes = 0, repeated = 0;
  for (size_t i = 0; i < b.count; i++)
    fdes += b.entries[i].cfa_kind == GORC_CFA_END;
  /* Equal consecutive rows of an FDE (rbx included) are one entry: in
     the converter's order, no entry may repeat the one before it.  */
  for (size_t i = 1; i < b.count; i++) {
    const struct gorc_rt_entry *p = &b.entries[i - 1], *q = &b.entries[i];
    if (p->cfa_kind != GORC_CFA_END && q->cfa_kind != GORC_CFA_END && q->pc_off > p->pc_off
        && p->cfa_kind == q->cfa_kind && p->cfa_reg == q->cfa_reg && p->cfa_off == q->cfa_off
        && p->bp_kind == q->bp_kind && p->bp_reg == q->bp_reg && p->bp_off == q->bp_off
        && p->rbx_kind == q->rbx_kind && p->rbx_off == q->rbx_off) {
      if (repeated++ < 5)
        fprintf(stderr, "%s: entry at %#x repeats the one at %#x\n", path, q->pc_off, p->pc_off);
    }
  }

  Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
  if (!cfi) {
    fprintf(stderr, "%s: dwarf_getcfi_elf: %s\n", path, dwarf_errmsg(-1));
    return 2;
  }
  uint64_t agree = 0, total = 0, nofde = 0, libdw_err = 0, shown = 0;
  uint64_t kinds[6] = { 0 }, outer = 0, rbx_kinds[3] = { 0 };
  scn = NULL;
  while ((scn = elf_nextscn(elf, scn))) {
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
      continue;
    for (uint64_t a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a++) {
      struct gorc_state want, got;
      struct rbx_rule want_bx;
      int ok;
      int x = expected(cfi, a, &want, &want_bx, 0);
      const struct gorc_rt_entry *e = a <= UINT32_MAX ? eh_lookup(s, b.count, (uint32_t)a) : NULL;
      if (e)
        eh_state_of(e, &got);
      else {
        memset(&got, 0, sizeof got);
        got.cfa_kind = GORC_CFA_END;
      }
      if (x == 0) {
        nofde++;
        ok = got.cfa_kind == GORC_CFA_END && (!e || e->rbx_kind == GORC_RT_RBX_UNKNOWN);
      } else {
        total++;
        if (x < 0) {
          libdw_err++;
          ok = got.cfa_kind == GORC_CFA_END || got.cfa_kind == GORC_CFA_UNDEFINED;
        } else {
          ok = got.cfa_kind != GORC_CFA_END && eh_same(&want, &got) && same_rbx(&want_bx, e);
          if (ok)
            rbx_kinds[want_bx.kind]++;
        }
        if (ok) {
          agree++;
          if (got.cfa_kind < 6)
            kinds[got.cfa_kind]++;
          outer += got.cfa_kind == GORC_CFA_UNDEFINED && got.cfa_reg == 0xff;
        }
      }
      if (!ok && shown++ < 20) {
        fprintf(stderr, "%s: %#" PRIx64 ": libdw (%s) ", path, a,
                x == 0 ? "no FDE" : x < 0 ? "error" : "ok");
        eh_print_state(stderr, &want);
        if (x > 0)
          print_rbx(stderr, want_bx.kind, want_bx.off);
        fprintf(stderr, "; converted ");
        eh_print_state(stderr, &got);
        if (e)
          print_rbx(stderr, e->rbx_kind, e->rbx_off);
        fprintf(stderr, "\n");
        expected(cfi, a, &want, &want_bx, 1);
      }
    }
  }
  printf("%s: %" PRIu64 "/%" PRIu64 " bytes agree (%zu FDEs, %zu entries; "
         "SP %" PRIu64 ", BP %" PRIu64 ", REG %" PRIu64 ", DEREF %" PRIu64
         ", UNDEFINED %" PRIu64 " of which outermost %" PRIu64
         "; rbx SAME %" PRIu64 ", CFA %" PRIu64 ", UNKNOWN %" PRIu64
         "; repeated entries %zu; libdw errors %" PRIu64 "; %" PRIu64 " bytes without FDE: %s)\n",
         path, agree, total, fdes, b.count, kinds[1], kinds[2], kinds[3], kinds[4],
         kinds[5], outer, rbx_kinds[GORC_RT_RBX_SAME], rbx_kinds[GORC_RT_RBX_CFA],
         rbx_kinds[GORC_RT_RBX_UNKNOWN], repeated, libdw_err, nofde,
         shown || repeated ? "DISAGREE" : "all agree");
  free(s);
  gorc_rt_builder_free(&b);
  elf_end(elf);
  close(fd);
  return shown || repeated ? 1 : 0;
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
