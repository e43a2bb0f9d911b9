/* gorc tools: state text form and the decoded record table.  */

#define _GNU_SOURCE
#include "common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reg_names[16] = {
  "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "bp", "sp",
  "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

const char *gorc_reg_name(unsigned reg)
{
  return reg < 16 ? reg_names[reg] : "r?";
}

void gorc_format_cfa(const struct gorc_state *s, char *buf, size_t n)
{
  switch (s->cfa_kind) {
  case GORC_CFA_SP:
    snprintf(buf, n, "cfa=sp%+" PRId64, s->cfa_off);
    break;
  case GORC_CFA_BP:
    snprintf(buf, n, "cfa=bp%+" PRId64, s->cfa_off);
    break;
  case GORC_CFA_REG:
    snprintf(buf, n, "cfa=%s%+" PRId64, gorc_reg_name(s->cfa_reg), s->cfa_off);
    break;
  case GORC_CFA_DEREF:
    snprintf(buf, n, "cfa=[%s%+" PRId64 "]", gorc_reg_name(s->cfa_reg), s->cfa_off);
    break;
  case GORC_CFA_UNDEFINED:
    snprintf(buf, n, "cfa=undefined");
    break;
  case GORC_CFA_END:
    snprintf(buf, n, "end");
    break;
  default:
    snprintf(buf, n, "cfa=?kind%u", s->cfa_kind);
    break;
  }
}

void gorc_format_bp(const struct gorc_state *s, char *buf, size_t n)
{
  switch (s->bp_kind) {
  case GORC_BP_SAME:
    snprintf(buf, n, "bp=same");
    break;
  case GORC_BP_CFA:
    snprintf(buf, n, "bp=[cfa%+" PRId64 "]", s->bp_off);
    break;
  case GORC_BP_REG:
    snprintf(buf, n, "bp=[%s%+" PRId64 "]", gorc_reg_name(s->bp_reg), s->bp_off);
    break;
  case GORC_BP_UNDEFINED:
    snprintf(buf, n, "bp=undefined");
    break;
  default:
    snprintf(buf, n, "bp=?kind%u", s->bp_kind);
    break;
  }
}

void gorc_format_state(const struct gorc_state *s, int cfa_width, char *buf, size_t n)
{
  char c[64], b[64];
  if (s->cfa_kind == GORC_CFA_END) {
    snprintf(buf, n, "end");
    return;
  }
  gorc_format_cfa(s, c, sizeof c);
  gorc_format_bp(s, b, sizeof b);
  snprintf(buf, n, "%-*s %s", cfa_width, c, b);
}

/* ---- the table ---- */

__attribute__((format(printf, 3, 4)))
static void add_msg(char ***list, size_t *n, const char *fmt, ...)
{
  char *m = NULL;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&m, fmt, ap) < 0)
    m = NULL;
  va_end(ap);
  if (!m)
    return;
  char **nl = realloc(*list, (*n + 1) * sizeof *nl);
  if (!nl) {
    free(m);
    return;
  }
  *list = nl;
  nl[(*n)++] = m;
}

__attribute__((format(printf, 2, 3)))
static void set_error(struct gorc_table *t, const char *fmt, ...)
{
  if (t->decode_error)
    return;
  t->decode_error = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->err, sizeof t->err, fmt, ap);
  va_end(ap);
}

static int push_entry(struct gorc_table *t, const struct gorc_rec_entry *e)
{
  if (t->nentries == t->cap_entries) {
    size_t nc = t->cap_entries ? t->cap_entries * 2 : 256;
    struct gorc_rec_entry *ne = realloc(t->entries, nc * sizeof *ne);
    if (!ne)
      return -1;
    t->entries = ne;
    t->cap_entries = nc;
  }
  t->entries[t->nentries++] = *e;
  return 0;
}

static int push_range(struct gorc_table *t, const struct gorc_rec_range *r)
{
  if (t->nranges == t->cap_ranges) {
    size_t nc = t->cap_ranges ? t->cap_ranges * 2 : 64;
    struct gorc_rec_range *nr = realloc(t->ranges, nc * sizeof *nr);
    if (!nr)
      return -1;
    t->ranges = nr;
    t->cap_ranges = nc;
  }
  t->ranges[t->nranges++] = *r;
  return 0;
}

static void decode_section(struct gorc_table *t, const struct gorc_elf *g, size_t si)
{
  const struct gorc_sec *s = &g->secs[si];
  const uint8_t *data = s->data, *end = s->data + s->size, *p = data;
  if (!data)
    return;
  while (p < end) {
    struct gorc_range r;
    uint64_t roff = (uint64_t)(p - data);
    int rc = gorc_range_open(&r, p, end, s->shdr.sh_addr + roff);
    if (rc != GORC_DECODE_OK) {
      set_error(t, "section [%zu] gorc_unwind offset 0x%" PRIx64 ": range start: %s"
                " (%zu bytes left)", si, roff, gorc_decode_strerror(rc),
                (size_t)(end - p));
      return;
    }
    size_t first = t->nentries, states = 0;
    for (;;) {
      const uint8_t *epos = r.pos;
      struct gorc_entry e;
      rc = gorc_range_next(&r, &e);
      if (rc < 0) {
        set_error(t, "section [%zu] gorc_unwind offset 0x%" PRIx64 ": %s (entry %u of the"
                  " range at offset 0x%" PRIx64 ", start 0x%" PRIx64 ")", si,
                  (uint64_t)(epos - data), gorc_decode_strerror(rc), r.entries, roff,
                  r.start);
        t->nentries = first;
        return;
      }
      if (rc == 0)
        break;
      struct gorc_rec_entry re = {
        .addr = e.addr, .state = e.state, .off = (uint64_t)(epos - data),
        .len = (uint32_t)(r.pos - epos),
      };
      if (push_entry(t, &re) != 0) {
        set_error(t, "out of memory");
        return;
      }
      if (e.state.cfa_kind != GORC_CFA_END)
        states++;
    }
    p = gorc_range_table_end(&r);
    t->nstates += states;
    struct gorc_rec_range rr = {
      .start = r.start, .end = t->entries[t->nentries - 1].addr, .first = first,
      .count = t->nentries - first, .sec = si, .off = roff,
      .len = (uint64_t)(p - data) - roff,
    };
    if (push_range(t, &rr) != 0) {
      set_error(t, "out of memory");
      return;
    }
  }
}

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void read_notes(struct gorc_table *t, const struct gorc_elf *g, int have_ext,
                       uint64_t ext_lo, uint64_t ext_hi)
{
  for (size_t si = 1; si < g->shnum; si++) {
    const struct gorc_sec *s = &g->secs[si];
    if (s->shdr.sh_type != SHT_NOTE || !s->data)
      continue;
    size_t off = 0;
    while (s->size - off >= 12) {
      uint32_t namesz = le32(s->data + off), descsz = le32(s->data + off + 4);
      uint32_t type = le32(s->data + off + 8);
      size_t nameoff = off + 12;
      size_t namepad = ((size_t)namesz + 3) & ~(size_t)3;
      if (namesz > s->size || namepad > s->size - nameoff)
        break; /* a foreign note section we cannot parse: not our business */
      size_t descoff = nameoff + namepad;
      size_t descpad = ((size_t)descsz + 3) & ~(size_t)3;
      if (descsz > s->size || descpad > s->size - descoff)
        break;
      if (namesz == sizeof GORC_NOTE_NAME
          && !memcmp(s->data + nameoff, GORC_NOTE_NAME, sizeof GORC_NOTE_NAME)
          && type == GORC_NOTE_TABLE) {
        if (descsz != GORC_NOTE_DESC_SIZE) {
          set_error(t, "section [%zu] '%s' offset 0x%zx: gorc note descriptor has %u bytes,"
                    " expected %u", si, s->name, off, descsz, GORC_NOTE_DESC_SIZE);
          return;
        }
        const uint8_t *d = s->data + descoff;
        uint32_t version = le32(d);
        if (t->have_note && version != t->version)
          add_msg(&t->problems, &t->nproblems, "two gorc notes with versions %u and %u",
                  t->version, version);
        else if (t->have_note)
          add_msg(&t->warnings, &t->nwarnings, "more than one gorc note (section [%zu] '%s'"
                  " offset 0x%zx)", si, s->name, off);
        t->have_note++;
        t->version = version;
        if (version != GORC_FORMAT_VERSION) {
          set_error(t, "section [%zu] '%s' offset 0x%zx: gorc format version %u is not"
                    " supported (this tool reads version %d)", si, s->name, off, version,
                    GORC_FORMAT_VERSION);
          return;
        }
        if (!g->is_rel) {
          uint64_t f1 = s->shdr.sh_addr + descoff + 4, f2 = f1 + 4;
          uint64_t lo = f1 + (uint64_t)(int64_t)(int32_t)le32(d + 4);
          uint64_t hi = f2 + (uint64_t)(int64_t)(int32_t)le32(d + 8);
          if (have_ext ? (lo != ext_lo || hi != ext_hi) : lo != hi)
            add_msg(&t->problems, &t->nproblems,
                    "gorc note (section [%zu] '%s' offset 0x%zx) says the table is at"
                    " 0x%" PRIx64 "-0x%" PRIx64 ", but gorc_unwind is at %s0x%" PRIx64
                    "-0x%" PRIx64, si, s->name, off, lo, hi, have_ext ? "" : "(none) ",
                    ext_lo, ext_hi);
        }
      }
      off = descoff + descpad;
    }
  }
}

static const struct gorc_table *cmp_ctx;

static int range_cmp(const void *pa, const void *pb)
{
  const struct gorc_rec_range *a = &cmp_ctx->ranges[*(const size_t *)pa];
  const struct gorc_rec_range *b = &cmp_ctx->ranges[*(const size_t *)pb];
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->end != b->end)
    return a->end < b->end ? -1 : 1;
  return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

#define MAX_PROBLEMS 20

static void check_ranges(struct gorc_table *t, const struct gorc_elf *g)
{
  size_t nprob = 0, more = 0;
  char a[256], b[256];
#define PROBLEM(...)                                            \
  do {                                                          \
    if (nprob++ < MAX_PROBLEMS)                                 \
      add_msg(&t->problems, &t->nproblems, __VA_ARGS__);        \
    else                                                        \
      more++;                                                   \
  } while (0)

  for (size_t k = 0; k < t->nranges; k++) {
    const struct gorc_rec_range *r = &t->ranges[k];
    size_t si = gorc_elf_section_at(g, r->start);
    const GElf_Shdr *sh = si ? &g->secs[si].shdr : NULL;
    if (!sh || !(sh->sh_flags & SHF_EXECINSTR) || r->end - sh->sh_addr > sh->sh_size) {
      gorc_elf_symbolize(g, r->start, 0, a, sizeof a);
      PROBLEM("range 0x%" PRIx64 "-0x%" PRIx64 " (%s; section [%zu] gorc_unwind offset 0x%"
              PRIx64 ") is not inside one code section", r->start, r->end, a, r->sec, r->off);
    }
  }
  /* Ranges are not required to be sorted: the linker sorts SHF_LINK_ORDER
     pieces, but `ld -r` merges the pieces linked to different code sections
     into one, which the final link can no longer reorder.  Readers sort
     (docs/FORMAT.md); overlap is still an error.  */
  cmp_ctx = t;
  qsort(t->sorted, t->nranges, sizeof *t->sorted, range_cmp);
  cmp_ctx = NULL;
  for (size_t k = 1; k < t->nranges; k++) {
    const struct gorc_rec_range *p = &t->ranges[t->sorted[k - 1]];
    const struct gorc_rec_range *r = &t->ranges[t->sorted[k]];
    if (r->start < p->end) {
      gorc_elf_symbolize(g, r->start, 0, a, sizeof a);
      gorc_elf_symbolize(g, p->start, 0, b, sizeof b);
      PROBLEM("ranges overlap: 0x%" PRIx64 "-0x%" PRIx64 " (%s) and 0x%" PRIx64 "-0x%"
              PRIx64 " (%s)", p->start, p->end, b, r->start, r->end, a);
    }
  }
  if (more)
    add_msg(&t->problems, &t->nproblems, "... %zu more problems", more);
#undef PROBLEM
}

int gorc_table_load(struct gorc_table *t, const struct gorc_elf *g)
{
  memset(t, 0, sizeof *t);
  int have_ext = 0;
  uint64_t lo = 0, hi = 0;
  for (size_t si = 1; si < g->shnum; si++) {
    const struct gorc_sec *s = &g->secs[si];
    if (strcmp(s->name, GORC_SECTION_NAME) != 0)
      continue;
    if (s->shdr.sh_type == SHT_NOBITS) {
      set_error(t, "section [%zu] gorc_unwind is SHT_NOBITS (no contents)", si);
      continue;
    }
    t->nsections++;
    t->bytes += s->size;
    if (!have_ext || s->shdr.sh_addr < lo)
      lo = s->shdr.sh_addr;
    if (!have_ext || s->shdr.sh_addr + s->size > hi)
      hi = s->shdr.sh_addr + s->size;
    have_ext = 1;
    decode_section(t, g, si);
  }
  read_notes(t, g, have_ext, lo, hi);
  if (t->nranges && !t->have_note)
    add_msg(&t->warnings, &t->nwarnings, "no gorc note (%s): a runtime cannot find the table",
            GORC_NOTE_SECTION_NAME);
  t->sorted = malloc((t->nranges ? t->nranges : 1) * sizeof *t->sorted);
  if (!t->sorted) {
    set_error(t, "out of memory");
    return -1;
  }
  for (size_t k = 0; k < t->nranges; k++)
    t->sorted[k] = k;
  check_ranges(t, g);
  return t->decode_error || t->nproblems ? -1 : 0;
}

void gorc_table_free(struct gorc_table *t)
{
  for (size_t k = 0; k < t->nproblems; k++)
    free(t->problems[k]);
  for (size_t k = 0; k < t->nwarnings; k++)
    free(t->warnings[k]);
  free(t->problems);
  free(t->warnings);
  free(t->entries);
  free(t->ranges);
  free(t->sorted);
  memset(t, 0, sizeof *t);
}

long gorc_table_lookup(const struct gorc_table *t, uint64_t pc,
                       struct gorc_state *state, uint64_t *next)
{
  size_t lo = 0, hi = t->nranges;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->ranges[t->sorted[mid]].start <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0) {
    size_t ri = t->sorted[lo - 1];
    const struct gorc_rec_range *r = &t->ranges[ri];
    if (pc < r->end) {
      const struct gorc_rec_entry *e = t->entries + r->first;
      size_t a = 0, b = r->count;
      while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (e[mid].addr <= pc)
          a = mid + 1;
        else
          b = mid;
      }
      /* a >= 1 (the first entry is at start <= pc) and a < count (the end
         marker is at end > pc).  */
      *state = e[a - 1].state;
      *next = e[a].addr;
      return (long)ri;
    }
  }
  *next = lo < t->nranges ? t->ranges[t->sorted[lo]].start : UINT64_MAX;
  return -1;
}
