/* gorc-check: check every instruction byte covered by .eh_frame and
   .debug_frame against the gorc records, with libdw's CFI as the oracle.  */

#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *prog = "gorc-check";

struct options {
  int strict;       /* no leniency for inexpressible CFI or toolchain code */
  int no_cfi_ok;    /* a file without CFI is not a failure */
  int quiet;        /* summary lines and errors only */
  int verbose;      /* also report skipped and accepted-undefined bytes */
  long max_lines;   /* per file; 0: unlimited */
};

static void usage(FILE *f)
{
  fprintf(f,
"Usage: %s [OPTION]... FILE...\n"
"Check the gorc records (gorc_unwind_index and gorc_unwind, format version 2)\n"
"of each ELF object, executable or shared library against its CFI (.eh_frame\n"
"and .debug_frame, read by libdw).\n"
"Every code byte that CFI covers is looked up in the records and the CFA,\n"
"frame pointer (rbp, x29) and return-address rules are compared.  Relocatable\n"
"objects are laid out and relocated in memory first.  x86-64 and aarch64.\n"
"\n"
"  --strict         count records 'undefined' against inexpressible CFI as a\n"
"                   mismatch, and check toolchain code (see below) too\n"
"  --no-cfi-ok      a file without any CFI passes (default: exit status 1)\n"
"  -q, --quiet      print only the summary line (and errors)\n"
"  -v, --verbose    also list skipped toolchain code and accepted undefined rows\n"
"  --max-lines=N    at most N report lines per file (default 50, 0: no limit)\n"
"  --skip=GLOB      treat functions matching GLOB (fnmatch) without records as\n"
"                   toolchain code (repeatable)\n"
"  -h, --help       this text\n"
"\n"
"Report lines (one per disagreeing row, consecutive bytes merged):\n"
"  FILE:ADDR[-END] FUNC+OFF: mismatch (N bytes): records STATE, eh_frame STATE\n"
"  FILE:ADDR-END FUNC+OFF: uncovered (N bytes): eh_frame CFI, no records\n"
"and one summary line per file:\n"
"  gorc-check: FILE: A/B bytes agree (P%%), M mismatched, U uncovered, R records,\n"
"  N ranges, B bytes + I bytes index\n"
"optionally followed by '; bad ranges left out: K' (each reported as an error),\n"
"'; X bytes records only' (code with records but no CFI),\n"
"'; Y bytes undefined (inexpressible CFI)', '; W bytes rbp restored before the CFI\n"
"says so' and '; Z bytes toolchain code skipped'.\n"
"\n"
"CFI that the format cannot express (a CFA expression other than reg+off or\n"
"*(reg+off), a frame pointer rule other than same/undefined/at cfa+k/at reg+k,\n"
"a return address not at cfa-8 on x86-64, not in x30/at cfa+k/undefined on\n"
"aarch64) is shown as {DW_OP_...}.  Records saying\n"
"cfa=undefined (or bp=undefined) there agree, since an unwinder then stops\n"
"safely; any other records state is a mismatch.\n"
"Where the records differ from GCC's CFI on purpose: after a leave or pop %%rbp\n"
"restored rbp, GCC's CFI for a realigned frame with DRAP still says 'rbp saved\n"
"at [rbp+k]' (read through the restored rbp, that is wrong); the records say\n"
"bp=same.  Bytes where only that differs agree when the run of them starts\n"
"right after the leave or pop %%rbp and none of its instructions writes rbp\n"
"(decoded with capstone); -v lists them.  Any other difference is a mismatch,\n"
"--strict or not.  See docs/FORMAT.md.\n"
"Toolchain code: bytes without records in .plt*, .init, .fini, in the C\n"
"runtime start files, libc_nonshared.a and the libgcc.a pieces GCC links in\n"
"(_start, _init, _fini, frame_dummy, register_tm_clones, __do_global_dtors_aux,\n"
"__gmon_start__, atexit, __stack_chk_fail_local, __cpu_indicator_init,\n"
"__morestack*, __splitstack_*, the soft-fp __*tf3 ...; local functions by their STT_FILE:\n"
"crtstuff.c, cpuinfo.o, generic-morestack.o, ...) are skipped, since no\n"
"compiler with the plugin built them.  --strict checks them too.\n"
"\n"
"Exit status: 0 every file agrees with nothing uncovered; 1 a mismatch, an\n"
"uncovered byte or a file without CFI; 2 an error (unreadable file, not ELF,\n"
"version 1 records, corrupt or inconsistent records, unreadable CFI).  A bad\n"
"range is reported and left out, the others are still checked; an index not\n"
"sorted by address is a note (after ld -r) or a warning (in a linked file).\n"
"\n"
"aarch64: libdw keeps no state for DW_CFA_AARCH64_negate_ra_state, so whether\n"
"the return address is signed is checked against the code instead: set after\n"
"paciasp/pacibsp, clear after autiasp/autibsp, unchanged across any other\n"
"instruction that falls through (a mismatch is reported as 'mismatch (signed\n"
"return address)').  After ret, b, br, brk, udf, at a range's start and at\n"
"the start of each further function of a range the code says nothing and the\n"
"flag is not checked.\n"
"\n"
"A range may cover several functions of one code section; between them a\n"
"gap entry says 'no records' (gorc-dump: 'gap: no records'), which is read\n"
"like code outside every range: gap bytes without CFI (padding, code without\n"
"CFI) are not counted, gap bytes with CFI are uncovered (a toplevel asm\n"
"function with CFI between two C functions: readers use its .eh_frame).\n"
"Records that say cfa=undefined with the frame pointer undefined (code the\n"
"plugin could not describe) where the CFI describes the code are a mismatch.\n", prog);
}

/* ---- libdw answers as gorc states ---- */

/* The longest text of one rule (a DWARF expression's is cut short).  */
#define RULE_TEXT 256

struct oracle {
  struct gorc_state st;
  int cfa_bad;            /* CFA (or the return address) inexpressible */
  int bp_bad;             /* rbp rule inexpressible */
  char text[3 * RULE_TEXT];  /* the three rules' texts, "CFA FP RA" */
};

enum { V_CONST, V_CFA, V_REG, V_DEREF };
struct sval { int kind; uint64_t reg; int64_t off; };

/* Symbolic evaluation of the simple DWARF expressions CFI uses.  */
static int eval_ops(const Dwarf_Op *ops, size_t n, struct sval *res, int *is_value)
{
  struct sval st[8];
  size_t sp = 0;
  *is_value = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned a = ops[i].atom;
    struct sval v = { V_CONST, 0, 0 };
    if (a == DW_OP_stack_value) {
      if (i != n - 1)
        return -1;
      *is_value = 1;
      continue;
    }
    if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
      v.kind = V_REG;
      v.reg = a - DW_OP_breg0;
      v.off = (int64_t)ops[i].number;
    } else if (a == DW_OP_bregx) {
      v.kind = V_REG;
      v.reg = ops[i].number;
      v.off = (int64_t)ops[i].number2;
    } else if (a == DW_OP_call_frame_cfa) {
      v.kind = V_CFA;
    } else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
      v.off = a - DW_OP_lit0;
    } else if (a == DW_OP_const1u || a == DW_OP_const1s || a == DW_OP_const2u
               || a == DW_OP_const2s || a == DW_OP_const4u || a == DW_OP_const4s
               || a == DW_OP_const8u || a == DW_OP_const8s || a == DW_OP_constu
               || a == DW_OP_consts) {
      v.off = (int64_t)ops[i].number;
    } else if (a == DW_OP_plus_uconst) {
      if (sp < 1 || st[sp - 1].kind == V_DEREF)
        return -1;
      st[sp - 1].off += (int64_t)ops[i].number;
      continue;
    } else if (a == DW_OP_plus || a == DW_OP_minus) {
      if (sp < 2)
        return -1;
      struct sval y = st[--sp], x = st[--sp];
      if (a == DW_OP_plus && x.kind == V_CONST && y.kind != V_DEREF) {
        y.off += x.off;
        v = y;
      } else if (y.kind == V_CONST && x.kind != V_DEREF) {
        x.off = a == DW_OP_plus ? x.off + y.off : x.off - y.off;
        v = x;
      } else {
        return -1;
      }
    } else if (a == DW_OP_deref) {
      if (sp < 1 || st[sp - 1].kind != V_REG)
        return -1;
      st[sp - 1].kind = V_DEREF;
      continue;
    } else {
      return -1;
    }
    if (sp == sizeof st / sizeof st[0])
      return -1;
    st[sp++] = v;
  }
  if (sp == 0)
    return -1;
  *res = st[sp - 1];
  return 0;
}

static const char *op_name(unsigned a, char *buf, size_t n)
{
  static const struct { unsigned atom; const char *name; } names[] = {
    { DW_OP_addr, "addr" }, { DW_OP_deref, "deref" }, { DW_OP_const1u, "const1u" },
    { DW_OP_const1s, "const1s" }, { DW_OP_const2u, "const2u" }, { DW_OP_const2s, "const2s" },
    { DW_OP_const4u, "const4u" }, { DW_OP_const4s, "const4s" }, { DW_OP_const8u, "const8u" },
    { DW_OP_const8s, "const8s" }, { DW_OP_constu, "constu" }, { DW_OP_consts, "consts" },
    { DW_OP_dup, "dup" }, { DW_OP_drop, "drop" }, { DW_OP_over, "over" },
    { DW_OP_pick, "pick" }, { DW_OP_swap, "swap" }, { DW_OP_rot, "rot" },
    { DW_OP_xderef, "xderef" }, { DW_OP_abs, "abs" }, { DW_OP_and, "and" },
    { DW_OP_div, "div" }, { DW_OP_minus, "minus" }, { DW_OP_mod, "mod" },
    { DW_OP_mul, "mul" }, { DW_OP_neg, "neg" }, { DW_OP_not, "not" }, { DW_OP_or, "or" },
    { DW_OP_plus, "plus" }, { DW_OP_plus_uconst, "plus_uconst" }, { DW_OP_shl, "shl" },
    { DW_OP_shr, "shr" }, { DW_OP_shra, "shra" }, { DW_OP_xor, "xor" },
    { DW_OP_bra, "bra" }, { DW_OP_eq, "eq" }, { DW_OP_ge, "ge" }, { DW_OP_gt, "gt" },
    { DW_OP_le, "le" }, { DW_OP_lt, "lt" }, { DW_OP_ne, "ne" }, { DW_OP_skip, "skip" },
    { DW_OP_regx, "regx" }, { DW_OP_fbreg, "fbreg" }, { DW_OP_bregx, "bregx" },
    { DW_OP_piece, "piece" }, { DW_OP_deref_size, "deref_size" }, { DW_OP_nop, "nop" },
    { DW_OP_call_frame_cfa, "call_frame_cfa" }, { DW_OP_stack_value, "stack_value" },
  };
  if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
    snprintf(buf, n, "DW_OP_lit%u", a - DW_OP_lit0);
  else if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
    snprintf(buf, n, "DW_OP_reg%u", a - DW_OP_reg0);
  else if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
    snprintf(buf, n, "DW_OP_breg%u", a - DW_OP_breg0);
  else {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (names[i].atom == a) {
        snprintf(buf, n, "DW_OP_%s", names[i].name);
        return buf;
      }
    snprintf(buf, n, "DW_OP_0x%02x", a);
  }
  return buf;
}

static void format_ops(const Dwarf_Op *ops, size_t n, char *buf, size_t len)
{
  size_t pos = 0;
  char nm[32];
#define OUT(...)                                                          \
  do {                                                                    \
    if (pos < len) {                                                      \
      int w_ = snprintf(buf + pos, len - pos, __VA_ARGS__);               \
      pos = w_ < 0 ? len : pos + (size_t)w_;                              \
    }                                                                     \
  } while (0)
  OUT("{");
  for (size_t i = 0; i < n; i++) {
    unsigned a = ops[i].atom;
    OUT("%s%s", i ? "; " : "", op_name(a, nm, sizeof nm));
    if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_consts || a == DW_OP_fbreg
        || a == DW_OP_const1s || a == DW_OP_const2s || a == DW_OP_const4s
        || a == DW_OP_const8s || a == DW_OP_plus_uconst || a == DW_OP_skip || a == DW_OP_bra)
      OUT(" %+" PRId64, (int64_t)ops[i].number);
    else if (a == DW_OP_bregx)
      OUT(" %" PRIu64 " %+" PRId64, (uint64_t)ops[i].number, (int64_t)ops[i].number2);
    else if (a == DW_OP_const1u || a == DW_OP_const2u || a == DW_OP_const4u
             || a == DW_OP_const8u || a == DW_OP_constu || a == DW_OP_regx
             || a == DW_OP_pick || a == DW_OP_piece || a == DW_OP_deref_size
             || a == DW_OP_addr)
      OUT(" %#" PRIx64, (uint64_t)ops[i].number);
  }
  OUT("}");
#undef OUT
  if (pos >= len && len > 4)
    strcpy(buf + len - 5, "...}");
}

/* Can the records name REG as a CFA base (sp has a kind of its own) or
   as the base a frame pointer is saved relative to?  */
static int reg_nameable(const struct gorc_arch *a, uint64_t reg, int sp_ok)
{
  return reg <= gorc_machine_max_reg(a->machine) || (sp_ok && reg == a->dwarf_sp);
}

static void convert_cfa(const struct gorc_arch *a, const Dwarf_Op *ops, size_t nops,
                        struct oracle *o, char *txt, size_t tlen)
{
  struct sval v;
  int isval;
  if (nops == 0) {
    o->st.cfa_kind = GORC_CFA_UNDEFINED;
  } else if (eval_ops(ops, nops, &v, &isval) == 0 && !isval && v.kind == V_DEREF
             && reg_nameable(a, v.reg, 0)) {
    o->st.cfa_kind = GORC_CFA_DEREF;
    o->st.cfa_reg = (uint8_t)v.reg;
    o->st.cfa_off = v.off;
  } else if (eval_ops(ops, nops, &v, &isval) == 0 && !isval && v.kind == V_REG
             && reg_nameable(a, v.reg, 1)) {
    gorc_state_set_cfa_reg(&o->st, a->machine, (unsigned)v.reg, v.off);
  } else {
    o->cfa_bad = 1;
  }
  if (o->cfa_bad) {
    char t[200];
    format_ops(ops, nops, t, sizeof t);
    snprintf(txt, tlen, "cfa=%s", t);
  } else {
    gorc_format_cfa(a, &o->st, txt, tlen);
  }
}

static void convert_fp(const struct gorc_arch *a, const Dwarf_Op *ops, size_t nops,
                       struct oracle *o, char *txt, size_t tlen)
{
  struct sval v;
  int isval;
  if (nops == 0) {
    o->st.bp_kind = ops == NULL ? GORC_BP_SAME : GORC_BP_UNDEFINED;
  } else if (eval_ops(ops, nops, &v, &isval) == 0 && !isval
             && (v.kind == V_CFA || (v.kind == V_REG && reg_nameable(a, v.reg, 0)))) {
    o->st.bp_off = v.off;
    if (v.kind == V_CFA) {
      o->st.bp_kind = GORC_BP_CFA;
    } else {
      o->st.bp_kind = GORC_BP_REG;
      o->st.bp_reg = (uint8_t)v.reg;
    }
  } else {
    o->bp_bad = 1;
  }
  if (o->bp_bad) {
    char t[200];
    format_ops(ops, nops, t, sizeof t);
    snprintf(txt, tlen, "%s=%s", a->fp_name, t);
  } else {
    gorc_format_bp(a, &o->st, txt, tlen);
  }
}

/* The return address: in its register (same value), undefined, or saved
   at cfa+k.  A machine whose calls push it (x86-64) has records for
   "at cfa-8" only: anything else is inexpressible (and printed).  */
static void convert_ra(const struct gorc_arch *a, const Dwarf_Op *ops, size_t nops,
                       struct oracle *o, char *txt, size_t tlen)
{
  struct sval v;
  int isval;
  char t[200];
  if (nops == 0) {
    o->st.ra_kind = ops == NULL ? GORC_RA_SAME : GORC_RA_UNDEFINED;
  } else if (eval_ops(ops, nops, &v, &isval) == 0 && !isval && v.kind == V_CFA) {
    o->st.ra_kind = GORC_RA_CFA;
    o->st.ra_off = v.off;
  } else {
    o->cfa_bad = 1;
    format_ops(ops, nops, t, sizeof t);
    snprintf(txt, tlen, " ra=%s", t);
    return;
  }
  if (gorc_machine_ra_in_reg(a->machine)) {
    gorc_format_ra(a, &o->st, t, sizeof t);
    snprintf(txt, tlen, " %s", t);
    return;
  }
  if (o->st.ra_kind == GORC_RA_CFA && o->st.ra_off == -8) {
    snprintf(txt, tlen, "%s", "");
    return;
  }
  o->cfa_bad = 1;
  if (o->st.ra_kind == GORC_RA_CFA)
    snprintf(txt, tlen, " ra=[cfa%+" PRId64 "]", o->st.ra_off);
  else
    snprintf(txt, tlen, " ra=%s", o->st.ra_kind == GORC_RA_SAME ? "same" : "undefined");
}

/* Convert the frame at one row into O.  Returns 0, or -1 on a libdw error
   (message in ERR).  libdw has no word for aarch64's signed return
   address (it skips DW_CFA_AARCH64_negate_ra_state), so O's ra_signed
   stays 0 and agree() leaves it to check_ra_signing.  */
static int convert_frame(const struct gorc_arch *a, Dwarf_Frame *f, int ra_reg,
                         struct oracle *o, char *err, size_t elen)
{
  Dwarf_Op *ops = NULL, mem[3];
  size_t nops = 0;
  char cfa_txt[RULE_TEXT], bp_txt[RULE_TEXT], ra_txt[RULE_TEXT] = "";

  memset(o, 0, sizeof *o);
  if (dwarf_frame_cfa(f, &ops, &nops) != 0) {
    snprintf(err, elen, "dwarf_frame_cfa: %s", dwarf_errmsg(-1));
    return -1;
  }
  convert_cfa(a, ops, nops, o, cfa_txt, sizeof cfa_txt);

  ops = NULL;
  nops = 0;
  if (dwarf_frame_register(f, (int)a->dwarf_fp, mem, &ops, &nops) != 0) {
    snprintf(err, elen, "dwarf_frame_register(%s): %s", a->fp_name, dwarf_errmsg(-1));
    return -1;
  }
  convert_fp(a, ops, nops, o, bp_txt, sizeof bp_txt);

  ops = NULL;
  nops = 0;
  if (ra_reg < 0 || dwarf_frame_register(f, ra_reg, mem, &ops, &nops) != 0) {
    snprintf(err, elen, "dwarf_frame_register(ra): %s", dwarf_errmsg(-1));
    return -1;
  }
  convert_ra(a, ops, nops, o, ra_txt, sizeof ra_txt);
  snprintf(o->text, sizeof o->text, "%s %s%s", cfa_txt, bp_txt, ra_txt);
  return 0;
}

/* Does REC agree with the oracle?  *LENIENT: only because records say
   undefined where CFI is inexpressible.  */
static int agree(const struct gorc_state *rec, const struct oracle *o, int strict,
                 int *lenient)
{
  struct gorc_state cfi = o->st;
  /* libdw cannot say whether the return address is signed: that flag is
     checked against the code instead (check_ra_signing).  */
  cfi.ra_signed = rec->ra_signed;
  *lenient = 0;
  if (o->cfa_bad || o->st.cfa_kind == GORC_CFA_UNDEFINED) {
    if (rec->cfa_kind != GORC_CFA_UNDEFINED)
      return 0;
    if (o->cfa_bad) {
      *lenient = 1;
      return !strict;
    }
    return 1;
  }
  if (o->bp_bad) {
    struct gorc_state tmp = cfi;
    tmp.bp_kind = GORC_BP_UNDEFINED;
    if (!gorc_state_equal(rec, &tmp))
      return 0;
    *lenient = 1;
    return !strict;
  }
  return gorc_state_equal(rec, &cfi);
}

/* ---- one file ---- */

struct source {
  const char *name;
  Dwarf_CFI *cfi;
  /* the current row */
  int covered;
  uint64_t rs, re;
  struct oracle o;
  /* An accepted run of "rbp restored before the CFI says so" reaches here.  */
  uint64_t restored_end;
  /* a report line being merged */
  int pkind;              /* 0 none, 1 mismatch, 2 uncovered, 3 skipped, 4 lenient,
                             5 rbp restored */
  uint64_t pstart, pend, pkey;
  struct gorc_state prec;
  char ptext[3 * RULE_TEXT];
};

struct file_check {
  const char *path;
  const struct options *op;
  struct gorc_elf *g;
  struct gorc_table *t;
  struct source src[2];
  int nsrc;
  long lines, suppressed;
  int status;
  int libdw_errors;
  csh dis;                /* the disassembler, for restored_bp_accepted */
  int dis_open;
  uint64_t total, agreeing, mismatched, uncovered, records_only, lenient, skipped, restored;
  uint64_t ra_checked, ra_auth_insns, ra_mismatched;  /* check_ra_signing */
};

__attribute__((format(printf, 2, 3)))
static void report(struct file_check *fc, const char *fmt, ...)
{
  if (fc->op->max_lines > 0 && fc->lines >= fc->op->max_lines) {
    fc->suppressed++;
    return;
  }
  fc->lines++;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
}

static void flush(struct file_check *fc, struct source *s)
{
  if (!s->pkind)
    return;
  int kind = s->pkind;
  s->pkind = 0;
  if (fc->op->quiet || ((kind == 3 || kind == 4 || kind == 5) && !fc->op->verbose))
    return;
  char where[64], sym[256], rec[256];
  uint64_t n = s->pend - s->pstart;
  if (n == 1)
    snprintf(where, sizeof where, "0x%" PRIx64, s->pstart);
  else
    snprintf(where, sizeof where, "0x%" PRIx64 "-0x%" PRIx64, s->pstart, s->pend);
  gorc_elf_symbolize(fc->g, s->pstart, 0, sym, sizeof sym);
  const char *bytes = n == 1 ? "byte" : "bytes";
  switch (kind) {
  case 1:
  case 4:
  case 5:
    gorc_format_state(fc->g->arch, &s->prec, 0, rec, sizeof rec);
    report(fc, "%s:%s %s: %s (%" PRIu64 " %s): records %s, %s %s\n", fc->path, where, sym,
           kind == 1 ? "mismatch" : kind == 4 ? "undefined, accepted"
                                  : "rbp restored before the CFI says so, accepted",
           n, bytes, rec, s->name, s->ptext);
    break;
  case 2:
  case 3:
    report(fc, "%s:%s %s: %s (%" PRIu64 " %s): %s CFI, no records\n", fc->path, where, sym,
           kind == 2 ? "uncovered" : "toolchain code skipped", n, bytes, s->name);
    break;
  }
}

static void note(struct file_check *fc, struct source *s, int kind, uint64_t a, uint64_t e,
                 uint64_t key, const struct gorc_state *rec)
{
  if (s->pkind == kind && s->pend == a && s->pkey == key
      && (kind == 2 || kind == 3
          || (gorc_state_identical(&s->prec, rec) && s->prec.cfa_kind == rec->cfa_kind
              && !strcmp(s->ptext, s->o.text)))) {
    s->pend = e;
    return;
  }
  flush(fc, s);
  s->pkind = kind;
  s->pstart = a;
  s->pend = e;
  s->pkey = key;
  if (rec)
    s->prec = *rec;
  snprintf(s->ptext, sizeof s->ptext, "%s", s->o.text);
}

/* Code without records that no compiler with the plugin built: the C
   runtime start files, libc_nonshared.a and libgcc.a pieces.  */
static const char *const toolchain_sections[] = {
  ".plt", ".plt.got", ".plt.sec", ".plt.bnd", ".iplt", ".init", ".fini",
};
static const char *const toolchain_funcs[] = {
  "_start", "_init", "_fini", "deregister_tm_clones", "register_tm_clones",
  "__do_global_dtors_aux", "__do_global_ctors_aux", "frame_dummy",
  "_dl_relocate_static_pie", "__libc_csu_init", "__libc_csu_fini",
  /* gcrt1.o (-pg) and libc_nonshared.a */
  "__gmon_start__", "atexit", "at_quick_exit", "__stack_chk_fail_local",
  "pthread_atfork",
  /* libgcc.a: cpuinfo (target_clones, __builtin_cpu_supports), split stack */
  "__cpu_indicator_init", "__morestack*", "__generic_morestack*",
  "__generic_releasestack", "__generic_findstack", "__splitstack_*",
  "__stack_split_initialize",
  /* libgcc.a: soft-fp for 128-bit floating point (aarch64's long double,
     __float128), pulled in by programs that use it */
  "__*tf3", "__*tf2", "__trunctf*", "__fix*tf*i", "__float*itf", "__sfp_handle_exceptions",
};
/* Source or object names of the STT_FILE symbols local functions follow.  */
static const char *const toolchain_files[] = {
  "crt1.o", "Scrt1.o", "gcrt1.o", "rcrt1.o", "grcrt1.o", "crti.o", "crtn.o",
  "crtstuff.c", "crtbegin*.o", "crtend*.o", "cpuinfo.[co]", "generic-morestack*.[co]",
  "morestack.[oS]", "static-reloc.[co]", "elf-init.[co]", "gmon-start.[co]",
};

static char **user_skips;
static size_t nuser_skips;

static int match_any(const char *const *pats, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (fnmatch(pats[i], s, 0) == 0)
      return 1;
  return 0;
}

#define COUNT(a) (sizeof (a) / sizeof (a)[0])

static int is_toolchain(const struct gorc_elf *g, uint64_t a)
{
  size_t si = gorc_elf_section_at(g, a);
  if (si && match_any(toolchain_sections, COUNT(toolchain_sections), g->secs[si].name))
    return 1;
  const struct gorc_sym *s = gorc_elf_symbol_at(g, a);
  if (!s)
    return 0;
  if (match_any((const char *const *)user_skips, nuser_skips, s->name))
    return 1;
  if (match_any(toolchain_funcs, COUNT(toolchain_funcs), s->name))
    return 1;
  return s->file && match_any(toolchain_files, COUNT(toolchain_files), s->file);
}

static void query(struct file_check *fc, struct source *s, uint64_t a)
{
  Dwarf_Frame *f = NULL;
  s->rs = a;
  s->re = a + 1;
  s->covered = 0;
  if (dwarf_cfi_addrframe(s->cfi, a, &f) != 0) {
    const char *m = dwarf_errmsg(-1);
    if (m && strcmp(m, "no matching address range") != 0) {
      if (fc->libdw_errors++ < 10)
        fprintf(stderr, "%s: %s: error: libdw cannot read %s CFI for 0x%" PRIx64 ": %s\n",
                prog, fc->path, s->name, a, m);
      fc->status = 2;
    }
    return;
  }
  Dwarf_Addr start = 0, end = 0;
  bool signal = false;
  int ra = dwarf_frame_info(f, &start, &end, &signal);
  char err[256];
  if (convert_frame(fc->g->arch, f, ra, &s->o, err, sizeof err) != 0) {
    if (fc->libdw_errors++ < 10)
      fprintf(stderr, "%s: %s: error: %s CFI for 0x%" PRIx64 ": %s\n", prog, fc->path,
              s->name, a, err);
    fc->status = 2;
    free(f);
    return;
  }
  if (signal) {
    s->o.cfa_bad = 1;
    size_t l = strlen(s->o.text);
    snprintf(s->o.text + l, sizeof s->o.text - l, " (signal frame)");
  }
  free(f);
  s->covered = 1;
  s->rs = start <= a ? start : a;
  s->re = end > a ? end : a + 1;
}

/* ---- rbp restored before GCC's CFI says so ----

   GCC's CFI for a realigned frame with a DRAP register says "the caller's
   rbp is saved at [rbp+k]" until the return, also after the epilogue
   restored rbp (leave, or pop %rbp): read through the restored rbp, that
   rule is wrong.  The plugin records rbp as the caller's (same value)
   there (docs/FORMAT.md, "Where gorc's records differ from GCC's CFI").
   Accepted exactly when: the records equal the CFI but for rbp, where
   the CFI says "saved at [rbp+k]" and the records "same"; the run of such
   bytes begins right after a leave or pop %rbp; and no instruction in the
   run writes rbp.  The instructions are decoded by capstone.  */

static int restored_bp_shape(const struct gorc_state *rec, const struct oracle *o)
{
  if (o->cfa_bad || o->bp_bad || o->st.bp_kind != GORC_BP_REG || o->st.bp_reg != GORC_DWARF_RBP
      || rec->bp_kind != GORC_BP_SAME)
    return 0;
  struct gorc_state cfi_but_bp = o->st;
  cfi_but_bp.bp_kind = GORC_BP_SAME;
  cfi_but_bp.bp_reg = 0;
  cfi_but_bp.bp_off = 0;
  return gorc_state_equal(rec, &cfi_but_bp);
}

/* The instructions of [A, E), which must be whole: *N of them in *INSNS
   (cs_free them).  0 on success.  */
static int decode(struct file_check *fc, uint64_t a, uint64_t e, cs_insn **insns, size_t *n)
{
  size_t si = gorc_elf_section_at(fc->g, a);
  const struct gorc_sec *sec = si ? &fc->g->secs[si] : NULL;
  if (!sec || !sec->data || e <= a || e - sec->shdr.sh_addr > sec->size)
    return -1;
  if (!fc->dis_open) {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &fc->dis) != CS_ERR_OK)
      return -1;
    cs_option(fc->dis, CS_OPT_DETAIL, CS_OPT_ON);
    fc->dis_open = 1;
  }
  *n = cs_disasm(fc->dis, sec->data + (a - sec->shdr.sh_addr), e - a, a, 0, insns);
  uint64_t decoded = 0;
  for (size_t i = 0; i < *n; i++)
    decoded += (*insns)[i].size;
  if (decoded == e - a)
    return 0;
  if (*n)
    cs_free(*insns, *n);
  return -1;
}

static int writes_bp(struct file_check *fc, const cs_insn *insn)
{
  cs_regs rd, wr;
  uint8_t nrd, nwr;
  if (cs_regs_access(fc->dis, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
    return 1; /* unknown: assume it does */
  for (int i = 0; i < nwr; i++)
    if (wr[i] == X86_REG_RBP || wr[i] == X86_REG_EBP || wr[i] == X86_REG_BP
        || wr[i] == X86_REG_BPL)
      return 1;
  return 0;
}

/* Is the instruction that ends at A a leave or a pop %rbp?  Decoded from
   the start of the CFI row holding A - 1, an instruction boundary.  */
static int restores_bp_at(struct file_check *fc, struct source *s, uint64_t a)
{
  Dwarf_Frame *f = NULL;
  Dwarf_Addr from = 0, to = 0;
  cs_insn *insns;
  size_t n;
  int yes = 0;

  if (a == 0 || dwarf_cfi_addrframe(s->cfi, a - 1, &f) != 0)
    return 0;
  dwarf_frame_info(f, &from, &to, NULL);
  free(f);
  if (from >= a || decode(fc, from, a, &insns, &n) != 0)
    return 0;
  const cs_insn *last = &insns[n - 1];
  const cs_x86 *x86 = &last->detail->x86;
  if (last->id == X86_INS_LEAVE)
    yes = 1;
  else if (last->id == X86_INS_POP && x86->op_count == 1 && x86->operands[0].type == X86_OP_REG
           && x86->operands[0].reg == X86_REG_RBP)
    yes = 1;
  cs_free(insns, n);
  return yes;
}

/* Do the instructions of [A, E) leave rbp alone?  */
static int keeps_bp(struct file_check *fc, uint64_t a, uint64_t e)
{
  cs_insn *insns;
  size_t n;
  int keeps = 1;
  if (decode(fc, a, e, &insns, &n) != 0)
    return 0;
  for (size_t i = 0; i < n && keeps; i++)
    keeps = !writes_bp(fc, &insns[i]);
  cs_free(insns, n);
  return keeps;
}

/* Is [A, E), where the records REC disagree with S's CFI, the documented
   difference?  */
static int restored_bp_accepted(struct file_check *fc, struct source *s,
                                const struct gorc_state *rec, uint64_t a, uint64_t e)
{
  if (fc->g->arch->machine != EM_X86_64 || !restored_bp_shape(rec, &s->o))
    return 0;
  if (s->restored_end != a && !restores_bp_at(fc, s, a))
    return 0; /* the run must start right after the restore */
  if (!keeps_bp(fc, a, e))
    return 0;
  s->restored_end = e;
  return 1;
}

static void sweep_section(struct file_check *fc, const struct gorc_sec *sec)
{
  uint64_t a = sec->shdr.sh_addr, lim = sec->shdr.sh_addr + sec->shdr.sh_size;
  for (int k = 0; k < fc->nsrc; k++)
    fc->src[k].re = a; /* force a query */
  while (a < lim) {
    uint64_t e = lim;
    for (int k = 0; k < fc->nsrc; k++) {
      struct source *s = &fc->src[k];
      if (a >= s->re || a < s->rs)
        query(fc, s, a);
      if (s->re < e)
        e = s->re;
    }
    struct gorc_state rec;
    uint64_t rnext;
    long ri = gorc_table_lookup(fc->t, a, &rec, &rnext);
    if (rnext < e)
      e = rnext;
    /* A gap between the functions of a range says "no records", as
       readers take it: like code outside every range.  */
    if (ri >= 0 && gorc_state_is_gap(&rec))
      ri = -1;
    uint64_t len = e - a;
    int any = 0;
    for (int k = 0; k < fc->nsrc; k++) {
      struct source *s = &fc->src[k];
      if (!s->covered)
        continue;
      any = 1;
      if (ri >= 0) {
        int lenient;
        fc->total += len;
        if (agree(&rec, &s->o, fc->op->strict, &lenient)) {
          fc->agreeing += len;
          if (lenient) {
            fc->lenient += len;
            note(fc, s, 4, a, e, s->rs, &rec);
          }
        } else if (restored_bp_accepted(fc, s, &rec, a, e)) {
          fc->agreeing += len;
          fc->restored += len;
          note(fc, s, 5, a, e, s->rs, &rec);
        } else {
          fc->mismatched += len;
          note(fc, s, 1, a, e, s->rs, &rec);
        }
      } else {
        const struct gorc_sym *fs = gorc_elf_symbol_at(fc->g, a);
        uint64_t key = fs ? fs->addr : sec->shdr.sh_addr;
        if (!fc->op->strict && is_toolchain(fc->g, a)) {
          fc->skipped += len;
          note(fc, s, 3, a, e, key, NULL);
        } else {
          fc->total += len;
          fc->uncovered += len;
          note(fc, s, 2, a, e, key, NULL);
        }
      }
    }
    if (!any && ri >= 0)
      fc->records_only += len;
    a = e;
  }
  for (int k = 0; k < fc->nsrc; k++)
    flush(fc, &fc->src[k]);
}

/* ---- the signed return address (aarch64 pointer authentication) ----

   libdw reads DW_CFA_AARCH64_negate_ra_state but keeps no state for it
   (elfutils 0.188, libdw/cfi.c: "not handled yet"), so the CFI cannot be
   asked whether the return address is signed at an address.  The records'
   flag is checked against the code instead, which is what signs and
   authenticates: at every instruction boundary inside one range where the
   instruction before falls through, the flag must be what that
   instruction leaves (set after paciasp/pacibsp, clear after
   autiasp/autibsp, else unchanged), and paci*sp must meet it clear,
   auti*sp and retaa/retab set.  Where control cannot fall through (after
   ret, b, br, brk, udf), at a range's start and where a gap between two
   functions of a range ends the code says nothing, so
   only there is the flag unchecked.  */

static void ra_mismatch(struct file_check *fc, uint64_t a, const char *why)
{
  char sym[256];
  fc->ra_mismatched++;
  if (fc->op->quiet)
    return;
  gorc_elf_symbolize(fc->g, a, 0, sym, sizeof sym);
  report(fc, "%s:0x%" PRIx64 " %s: mismatch (signed return address): %s\n", fc->path, a, sym,
         why);
}

static void check_ra_signing(struct file_check *fc, const struct gorc_sec *sec)
{
  const struct gorc_arch *arch = fc->g->arch;
  uint64_t base = sec->shdr.sh_addr;
  long prev_range = -1;
  int prev_falls = 0, signed_after_prev = 0;
  struct gorc_insn_info insn;

  for (uint64_t off = 0; off < sec->size; off += insn.len) {
    uint64_t a = base + off, next;
    struct gorc_state st;
    if (arch->insn_info(sec->data + off, sec->size - off, &insn) != 0)
      break;
    long ri = gorc_table_lookup(fc->t, a, &st, &next);
    if (ri < 0 || gorc_state_is_gap(&st)) { /* no records here */
      prev_range = -1;
      continue;
    }
    /* Where a gap ends the range's next function starts: as at a range's
       start, nothing falls through into it.  */
    if (gorc_table_gap_at(fc->t, ri, a))
      prev_range = -1;
    fc->ra_checked++;
    if (ri == prev_range && prev_falls && st.ra_signed != signed_after_prev)
      ra_mismatch(fc, a, st.ra_signed ? "records say signed, the code before leaves it unsigned"
                                      : "records say unsigned, the code before leaves it signed");
    if (insn.ra == GORC_RA_EFFECT_SIGN && st.ra_signed)
      ra_mismatch(fc, a, "records say signed at the instruction that signs it");
    if ((insn.ra == GORC_RA_EFFECT_AUTH || insn.ra == GORC_RA_EFFECT_AUTH_RET) && !st.ra_signed)
      ra_mismatch(fc, a, "records say unsigned at the instruction that authenticates it");
    if (insn.ra != GORC_RA_EFFECT_NONE)
      fc->ra_auth_insns++;
    signed_after_prev = insn.ra == GORC_RA_EFFECT_SIGN ? 1
                        : insn.ra == GORC_RA_EFFECT_AUTH ? 0 : st.ra_signed;
    prev_falls = insn.falls_through;
    prev_range = ri;
  }
}

/* The table's own messages (notes, warnings, errors: those set FC's
   status), and a line when the file has no records.  */
static void report_table(struct file_check *fc, const char *path, const struct gorc_table *t)
{
  for (size_t k = 0; k < t->nnotes; k++)
    fprintf(stderr, "%s: %s: note: %s\n", prog, path, t->notes[k]);
  for (size_t k = 0; k < t->nwarnings; k++)
    fprintf(stderr, "%s: %s: warning: %s\n", prog, path, t->warnings[k]);
  for (size_t k = 0; k < t->nproblems; k++) {
    fprintf(stderr, "%s: %s: error: %s\n", prog, path, t->problems[k]);
    fc->status = 2;
  }
  if (t->nranges == 0 && t->nbad == 0)
    printf("%s: no gorc records (%s)\n", path,
           t->nindex_secs ? "gorc_unwind_index is empty" : "no gorc_unwind_index section");
}

/* Does G have .eh_frame, as a section or (no section headers left) as the
   segment PT_GNU_EH_FRAME points into?  */
static int has_eh_frame(const struct gorc_elf *g)
{
  GElf_Phdr ph;
  size_t np = 0;
  if (gorc_elf_section_named(g, ".eh_frame"))
    return 1;
  if (g->is_rel || elf_getphdrnum(g->elf, &np) != 0)
    return 0;
  for (size_t i = 0; i < np; i++)
    if (gelf_getphdr(g->elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
      return 1;
  return 0;
}

/* The CFI sources of G the records are checked against, into FC->src:
   .eh_frame (*EH_CFI, the caller's to end) and .debug_frame (of *DW, the
   caller's to end).  One that cannot be read is an error (status 2).  */
static void open_cfi(struct file_check *fc, const char *path, const struct gorc_elf *g,
                     Dwarf **dw, Dwarf_CFI **eh_cfi)
{
  if (has_eh_frame(g)) {
    *eh_cfi = dwarf_getcfi_elf(g->elf);
    if (!*eh_cfi) {
      fprintf(stderr, "%s: %s: error: cannot read .eh_frame: %s\n", prog, path,
              dwarf_errmsg(-1));
      fc->status = 2;
    } else {
      fc->src[fc->nsrc].name = "eh_frame";
      fc->src[fc->nsrc++].cfi = *eh_cfi;
    }
  }
  if (gorc_elf_section_named(g, ".debug_frame")) {
    *dw = dwarf_begin_elf(g->elf, DWARF_C_READ, NULL);
    Dwarf_CFI *cfi = *dw ? dwarf_getcfi(*dw) : NULL;
    if (!cfi) {
      fprintf(stderr, "%s: %s: error: cannot read .debug_frame: %s\n", prog, path,
              dwarf_errmsg(-1));
      fc->status = 2;
    } else {
      fc->src[fc->nsrc].name = "debug_frame";
      fc->src[fc->nsrc++].cfi = cfi;
    }
  }
}

/* Every executable section of G swept byte by byte (and its return
   address signing checked, where the machine signs).  */
static void check_code(struct file_check *fc, const struct gorc_elf *g)
{
  for (size_t k = 0; k < g->nby_addr; k++) {
    const struct gorc_sec *s = &g->secs[g->by_addr[k]];
    if (!(s->shdr.sh_flags & SHF_EXECINSTR) || s->shdr.sh_type == SHT_NOBITS || !s->data)
      continue;
    sweep_section(fc, s);
    if (g->arch->insn_info)
      check_ra_signing(fc, s);
  }
}

/* The file's summary line; a disagreement sets status 1.  */
static void print_summary(struct file_check *fc, const char *path, const struct gorc_elf *g,
                          const struct gorc_table *t)
{
  char pct[32];
  if (fc->total)
    snprintf(pct, sizeof pct, "%.2f%%", 100.0 * (double)fc->agreeing / (double)fc->total);
  else
    snprintf(pct, sizeof pct, "n/a");
  printf("%s: %s: %" PRIu64 "/%" PRIu64 " bytes agree (%s), %" PRIu64 " mismatched, %" PRIu64
         " uncovered, %zu records, %zu ranges, %" PRIu64 " bytes + %" PRIu64 " bytes index",
         prog, path, fc->agreeing, fc->total, pct, fc->mismatched, fc->uncovered, t->nstates,
         t->nranges, t->bytes, t->index_bytes);
  if (t->nbad)
    printf("; bad ranges left out: %zu", t->nbad);
  if (fc->records_only)
    printf("; %" PRIu64 " bytes records only", fc->records_only);
  if (fc->lenient)
    printf("; %" PRIu64 " bytes undefined (inexpressible CFI)", fc->lenient);
  if (fc->restored)
    printf("; %" PRIu64 " bytes rbp restored before the CFI says so", fc->restored);
  if (fc->skipped)
    printf("; %" PRIu64 " bytes toolchain code skipped", fc->skipped);
  if (g->arch->insn_info)
    printf("; signed return address: %" PRIu64 " instructions checked against the code (%"
           PRIu64 " sign or authenticate), %" PRIu64 " mismatched", fc->ra_checked,
           fc->ra_auth_insns, fc->ra_mismatched);
  putchar('\n');
  if ((fc->mismatched || fc->uncovered || fc->ra_mismatched) && fc->status < 1)
    fc->status = 1;
}

static int check_file(const char *path, const struct options *op)
{
  struct gorc_elf g;
  struct gorc_table t;
  struct file_check fc;
  Dwarf *dw = NULL;
  Dwarf_CFI *eh_cfi = NULL;  /* ours to end; .debug_frame's belongs to dw */

  memset(&fc, 0, sizeof fc);
  fc.path = path;
  fc.op = op;
  fc.g = &g;
  fc.t = &t;

  if (gorc_elf_open(&g, path) != 0) {
    fprintf(stderr, "%s: %s: error: %s\n", prog, path, g.err);
    gorc_elf_close(&g);
    return 2;
  }
  gorc_table_load(&t, &g);
  if (t.decode_error) {
    /* Nothing is read from a table we cannot read (version 1, say):
       every byte "uncovered" would only bury the message.  */
    fprintf(stderr, "%s: %s: error: %s\n", prog, path, t.err);
    fc.status = 2;
    goto out;
  }
  report_table(&fc, path, &t);
  open_cfi(&fc, path, &g, &dw, &eh_cfi);
  if (fc.nsrc == 0) {
    printf("%s: %s: no CFI (.eh_frame or .debug_frame) to check %zu records against%s\n",
           prog, path, t.nstates, op->no_cfi_ok ? " (accepted: --no-cfi-ok)" : "");
    if (!op->no_cfi_ok && fc.status < 1)
      fc.status = 1;
    goto out;
  }
  check_code(&fc, &g);
  if (fc.suppressed)
    printf("%s: ... %ld more\n", path, fc.suppressed);
  print_summary(&fc, path, &g, &t);

out:
  fflush(stdout);
  if (fc.dis_open)
    cs_close(&fc.dis);
  if (eh_cfi)
    dwarf_cfi_end(eh_cfi);
  if (dw)
    dwarf_end(dw);
  gorc_table_free(&t);
  gorc_elf_close(&g);
  return fc.status;
}

int main(int argc, char **argv)
{
  enum { OPT_STRICT = 256, OPT_NO_CFI_OK, OPT_MAX_LINES, OPT_SKIP };
  static const struct option opts[] = {
    { "strict", no_argument, NULL, OPT_STRICT },
    { "no-cfi-ok", no_argument, NULL, OPT_NO_CFI_OK },
    { "quiet", no_argument, NULL, 'q' },
    { "verbose", no_argument, NULL, 'v' },
    { "max-lines", required_argument, NULL, OPT_MAX_LINES },
    { "skip", required_argument, NULL, OPT_SKIP },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct options op = { .max_lines = 50 };
  int c;
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep stdout and stderr lines in order */
  while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1)
    switch (c) {
    case OPT_STRICT: op.strict = 1; break;
    case OPT_NO_CFI_OK: op.no_cfi_ok = 1; break;
    case 'q': op.quiet = 1; break;
    case 'v': op.verbose = 1; break;
    case OPT_MAX_LINES: {
      char *end;
      op.max_lines = strtol(optarg, &end, 10);
      if (*end || op.max_lines < 0) {
        fprintf(stderr, "%s: bad --max-lines value '%s'\n", prog, optarg);
        return 2;
      }
      break;
    }
    case OPT_SKIP: {
      char **n = realloc(user_skips, (nuser_skips + 1) * sizeof *n);
      if (!n)
        return 2;
      user_skips = n;
      user_skips[nuser_skips++] = optarg;
      break;
    }
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  if (optind >= argc) {
    usage(stderr);
    return 2;
  }
  int rc = 0;
  for (int i = optind; i < argc; i++) {
    int r = check_file(argv[i], &op);
    if (r > rc)
      rc = r;
  }
  free(user_skips);
  return rc;
}
