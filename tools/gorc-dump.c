/* gorc-dump: print the gorc unwind records of an object, executable or
   shared library, readable like objdump --dwarf=frames-interp.  */

#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *prog = "gorc-dump";

static void usage(FILE *f)
{
  fprintf(f,
"Usage: %s [--summary] [--raw] FILE...\n"
"Print the gorc unwind records (sections gorc_unwind_index and gorc_unwind,\n"
"format version 2) of an ELF object, executable or shared library.\n"
"\n"
"  -s, --summary   print only the header line per file\n"
"  -r, --raw       also print where each range's index entry and body are\n"
"                  and the encoded bytes of every entry\n"
"  -h, --help      this text\n"
"\n"
"Output:\n"
"  FILE: gorc_unwind version V, N ranges, M entries, B bytes + I bytes index\n"
"  range START-END FUNC (SECTION)\n"
"    ADDR FUNC+OFF  cfa=... bp=... (OP)  one line per entry\n"
"    ADDR FUNC+OFF  gap: no records      between two functions of the range\n"
"    ADDR FUNC+OFF  end                  the end of the range\n"
"A range covers one function (or the hot or cold part of one), or several\n"
"consecutive functions of one code section of one object; FUNC names the\n"
"first.  Each function after the first starts after a gap entry (padding,\n"
"code without records: readers treat it as not covered).\n"
"States: cfa=sp+8 cfa=bp+16 cfa=r10+0 cfa=[bp-8] cfa=undefined;\n"
"bp=same bp=[cfa-16] bp=[bp+0] bp=undefined.  aarch64 (x29 is fp):\n"
"cfa=fp+16 fp=[cfa-16], and the return address ra=x30 ra=[cfa-8]\n"
"ra=undefined, followed by ' signed' where it carries a pointer\n"
"authentication code (between paciasp and autiasp).  OP is how the entry is\n"
"encoded when it is not a full state: (push) or (pop), the previous state\n"
"with the CFA offset moved by one slot, or (back K), the state of the K-th\n"
"entry before.  An entry followed by another at the same address is\n"
"marked (superseded).  In a relocatable object the sections are laid out\n"
"from 0x%x (code first), so addresses are those.\n"
"\n"
"A range whose index entry or body is bad is reported and left out; the\n"
"others are printed.  An index not sorted by address is reported as a\n"
"note (normal after ld -r) or, in a linked file, a warning.  Version 1\n"
"records are refused (rebuild with the current plugin).\n"
"\n"
"Exit status: 0 records printed, 1 no records found, 2 error (unreadable\n"
"file, not ELF, version 1, corrupt or inconsistent table).\n", prog, GORC_REL_BASE);
}

static void print_raw(const struct gorc_sec *s, const struct gorc_rec_entry *e)
{
  fputs("  [", stdout);
  for (uint32_t k = 0; k < e->len; k++)
    printf(k ? " %02x" : "%02x", s->data[e->off + k]);
  fputs("]", stdout);
}

/* "range START-END FUNC (SECTION)", with --raw where its index entry and
   body are.  */
static void print_range_line(const struct gorc_elf *g, const struct gorc_rec_range *r, int raw)
{
  char fn[256];
  const struct gorc_sym *s = gorc_elf_symbol_at(g, r->start);
  size_t si = gorc_elf_section_at(g, r->start);
  if (s && s->addr == r->start)
    snprintf(fn, sizeof fn, "%s", s->name);
  else
    gorc_elf_symbolize(g, r->start, 0, fn, sizeof fn);
  printf("range 0x%" PRIx64 "-0x%" PRIx64 " %s (%s)", r->start, r->end, fn,
         si ? g->secs[si].name : "no section");
  if (raw)
    printf("  [index: section [%zu] entry %zu; body: section [%zu] offset 0x%" PRIx64 ", %"
           PRIu64 " bytes]", r->index_sec, r->index_entry, r->sec, r->off, r->len);
  putchar('\n');
}

static void print_range(const struct gorc_elf *g, const struct gorc_table *t,
                        const struct gorc_rec_range *r, int raw)
{
  const struct gorc_rec_entry *e = t->entries + r->first;
  char sym[256], st[128], op[32];
  int symw = 0, cfaw = 0;

  print_range_line(g, r, raw);
  for (size_t i = 0; i < r->count; i++) {
    int is_end = e[i].state.cfa_kind == GORC_CFA_END;
    gorc_elf_symbolize(g, e[i].addr, is_end || e[i].addr == r->end, sym, sizeof sym);
    int l = (int)strlen(sym);
    if (l > symw)
      symw = l;
    if (!is_end) {
      gorc_format_cfa(g->arch, &e[i].state, st, sizeof st);
      l = (int)strlen(st);
      if (l > cfaw)
        cfaw = l;
    }
  }
  for (size_t i = 0; i < r->count; i++) {
    int is_end = e[i].state.cfa_kind == GORC_CFA_END;
    gorc_elf_symbolize(g, e[i].addr, is_end || e[i].addr == r->end, sym, sizeof sym);
    gorc_format_state(g->arch, &e[i].state, cfaw + 1, st, sizeof st);
    gorc_format_op(&e[i], op, sizeof op);
    int superseded = !is_end && i + 1 < r->count && e[i + 1].addr == e[i].addr;
    printf("  0x%" PRIx64 " %-*s  %s%s%s%s", e[i].addr, symw, sym, st, op[0] ? " " : "", op,
           superseded ? " (superseded)" : "");
    if (raw && e[i].len)
      print_raw(&g->secs[r->sec], &e[i]);
    putchar('\n');
  }
}

static int dump_file(const char *path, int summary, int raw)
{
  struct gorc_elf g;
  struct gorc_table t;
  int rc = 0;

  if (gorc_elf_open(&g, path) != 0) {
    fprintf(stderr, "%s: %s: error: %s\n", prog, path, g.err);
    gorc_elf_close(&g);
    return 2;
  }
  gorc_table_load(&t, &g);
  if (t.decode_error) {
    fprintf(stderr, "%s: %s: error: %s\n", prog, path, t.err);
    rc = 2;
    goto out;
  }
  if (t.nbody_secs == 0 && t.nindex_secs == 0) {
    printf("%s: no gorc records (no %s section)\n", path, GORC_SECTION_NAME);
    rc = 1;
    goto out;
  }
  char ver[32];
  if (t.have_note)
    snprintf(ver, sizeof ver, "version %u", t.version);
  else
    snprintf(ver, sizeof ver, "no note");
  printf("%s: %s %s, %zu ranges, %zu entries, %" PRIu64 " bytes + %" PRIu64 " bytes index\n",
         path, GORC_SECTION_NAME, ver, t.nranges, t.nstates, t.bytes, t.index_bytes);
  if (!summary)
    for (size_t k = 0; k < t.nranges; k++)
      print_range(&g, &t, &t.ranges[k], raw);

  for (size_t k = 0; k < t.nnotes; k++)
    fprintf(stderr, "%s: %s: note: %s\n", prog, path, t.notes[k]);
  for (size_t k = 0; k < t.nwarnings; k++)
    fprintf(stderr, "%s: %s: warning: %s\n", prog, path, t.warnings[k]);
  for (size_t k = 0; k < t.nproblems; k++) {
    fprintf(stderr, "%s: %s: error: %s\n", prog, path, t.problems[k]);
    rc = 2;
  }
  if (!rc && t.nranges == 0) {
    printf("%s: no gorc records (%s is empty)\n", path, GORC_SECTION_NAME);
    rc = 1;
  }
out:
  fflush(stdout);
  gorc_table_free(&t);
  gorc_elf_close(&g);
  return rc;
}

int main(int argc, char **argv)
{
  static const struct option opts[] = {
    { "summary", no_argument, NULL, 's' },
    { "raw", no_argument, NULL, 'r' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int summary = 0, raw = 0, c;
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep stdout and stderr lines in order */
  while ((c = getopt_long(argc, argv, "srh", opts, NULL)) != -1)
    switch (c) {
    case 's': summary = 1; break;
    case 'r': raw = 1; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  if (optind >= argc) {
    usage(stderr);
    return 2;
  }
  int rc = 0;
  for (int i = optind; i < argc; i++) {
    int r = dump_file(argv[i], summary, raw);
    if (r > rc)
      rc = r;
  }
  return rc;
}
