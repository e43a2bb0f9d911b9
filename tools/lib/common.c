/* gorc tools: state text form and the decoded record table.  */

#define _GNU_SOURCE
#include "common.h"
#include "mapped.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gorc_format_cfa(const struct gorc_arch *a, const struct gorc_state *s, char *buf,
                     size_t n)
{
  switch (s->cfa_kind) {
  case GORC_CFA_SP:
    snprintf(buf, n, "cfa=sp%+" PRId64, s->cfa_off);
    break;
  case GORC_CFA_BP:
    snprintf(buf, n, "cfa=%s%+" PRId64, a->fp_name, s->cfa_off);
    break;
  case GORC_CFA_REG:
    snprintf(buf, n, "cfa=%s%+" PRId64, a->reg_name(s->cfa_reg), s->cfa_off);
    break;
  case GORC_CFA_DEREF:
    snprintf(buf, n, "cfa=[%s%+" PRId64 "]", a->reg_name(s->cfa_reg), s->cfa_off);
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

void gorc_format_bp(const struct gorc_arch *a, const struct gorc_state *s, char *buf, size_t n)
{
  switch (s->bp_kind) {
  case GORC_BP_SAME:
    snprintf(buf, n, "%s=same", a->fp_name);
    break;
  case GORC_BP_CFA:
    snprintf(buf, n, "%s=[cfa%+" PRId64 "]", a->fp_name, s->bp_off);
    break;
  case GORC_BP_REG:
    snprintf(buf, n, "%s=[%s%+" PRId64 "]", a->fp_name, a->reg_name(s->bp_reg), s->bp_off);
    break;
  case GORC_BP_UNDEFINED:
    snprintf(buf, n, "%s=undefined", a->fp_name);
    break;
  default:
    snprintf(buf, n, "%s=?kind%u", a->fp_name, s->bp_kind);
    break;
  }
}

void gorc_format_ra(const struct gorc_arch *a, const struct gorc_state *s, char *buf, size_t n)
{
  const char *sig = s->ra_signed ? " signed" : "";
  if (!gorc_machine_ra_in_reg(a->machine)) {
    snprintf(buf, n, "%s", "");
    return;
  }
  switch (s->ra_kind) {
  case GORC_RA_SAME:
    snprintf(buf, n, "ra=%s%s", a->reg_name(a->dwarf_ra), sig);
    break;
  case GORC_RA_CFA:
    snprintf(buf, n, "ra=[cfa%+" PRId64 "]%s", s->ra_off, sig);
    break;
  case GORC_RA_UNDEFINED:
    snprintf(buf, n, "ra=undefined%s", sig);
    break;
  default:
    snprintf(buf, n, "ra=?kind%u", s->ra_kind);
    break;
  }
}

void gorc_format_state(const struct gorc_arch *a, const struct gorc_state *s, int cfa_width,
                       char *buf, size_t n)
{
  char c[64], b[64], r[64];
  if (s->cfa_kind == GORC_CFA_END) {
    snprintf(buf, n, "end");
    return;
  }
  if (gorc_state_is_gap(s)) {
    snprintf(buf, n, "gap: no records");
    return;
  }
  gorc_format_cfa(a, s, c, sizeof c);
  gorc_format_bp(a, s, b, sizeof b);
  gorc_format_ra(a, s, r, sizeof r);
  snprintf(buf, n, "%-*s %s%s%s", cfa_width, c, b, r[0] ? " " : "", r);
}

void gorc_format_op(const struct gorc_rec_entry *e, char *buf, size_t n)
{
  if (n == 0)
    return;
  buf[0] = 0;
  if (e->len == 0)
    return;
  if (e->op == GORC_OP_PUSH)
    snprintf(buf, n, "(push)");
  else if (e->op == GORC_OP_POP)
    snprintf(buf, n, "(pop)");
  else if (e->op == GORC_OP_BACK)
    snprintf(buf, n, "(back %u)", e->back);
}

/* ---- the table ---- */

static void add_msgv(char ***list, size_t *n, const char *fmt, va_list ap)
{
  char *m = NULL;
  if (vasprintf(&m, fmt, ap) < 0)
    return;
  char **nl = realloc(*list, (*n + 1) * sizeof *nl);
  if (!nl) {
    free(m);
    return;
  }
  *list = nl;
  nl[(*n)++] = m;
}

__attribute__((format(printf, 3, 4)))
static void add_msg(char ***list, size_t *n, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  add_msgv(list, n, fmt, ap);
  va_end(ap);
}

/* A problem with one range or with the table's consistency; the first
   GORC_TABLE_MAX_PROBLEMS are kept, the others counted.  */
__attribute__((format(printf, 2, 3)))
static void problem(struct gorc_table *t, const char *fmt, ...)
{
  if (t->nproblems >= GORC_TABLE_MAX_PROBLEMS) {
    t->problems_left_out++;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  add_msgv(&t->problems, &t->nproblems, fmt, ap);
  va_end(ap);
}

/* The table cannot be read at all; the first reason is kept.  */
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

#define VERSION1_MESSAGE "gorc_unwind format version 1: rebuild with the current plugin" \
  " (this tool reads version 2)"

static int push_entry(struct gorc_table *t, const struct gorc_rec_entry *e)
{
  struct gorc_rec_entry *ne = gorc_grow_array(t->entries, &t->cap_entries, t->nentries + 1,
                                              sizeof *ne, 256, SIZE_MAX);
  if (!ne)
    return -1;
  t->entries = ne;
  t->entries[t->nentries++] = *e;
  return 0;
}

static int push_range(struct gorc_table *t, const struct gorc_rec_range *r)
{
  struct gorc_rec_range *nr = gorc_grow_array(t->ranges, &t->cap_ranges, t->nranges + 1,
                                              sizeof *nr, 64, SIZE_MAX);
  if (!nr)
    return -1;
  t->ranges = nr;
  t->ranges[t->nranges++] = *r;
  return 0;
}

/* ---- the sections ---- */

static const struct gorc_elf *sec_ctx;

static int sec_addr_cmp(const void *pa, const void *pb)
{
  const GElf_Shdr *a = &sec_ctx->secs[*(const size_t *)pa].shdr;
  const GElf_Shdr *b = &sec_ctx->secs[*(const size_t *)pb].shdr;
  if (a->sh_addr != b->sh_addr)
    return a->sh_addr < b->sh_addr ? -1 : 1;
  return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Collect the gorc_unwind_index and gorc_unwind sections.  */
static int find_sections(struct gorc_table *t, const struct gorc_elf *g)
{
  size_t n = g->shnum ? g->shnum : 1;
  t->index_secs = calloc(n, sizeof *t->index_secs);
  t->body_secs = calloc(n, sizeof *t->body_secs);
  if (!t->index_secs || !t->body_secs) {
    set_error(t, "out of memory");
    return -1;
  }
  for (size_t si = 1; si < g->shnum; si++) {
    const struct gorc_sec *s = &g->secs[si];
    int is_index = !strcmp(s->name, GORC_INDEX_SECTION_NAME);
    if (!is_index && strcmp(s->name, GORC_SECTION_NAME) != 0)
      continue;
    if (s->shdr.sh_type == SHT_NOBITS) {
      set_error(t, "section [%zu] %s is SHT_NOBITS (no contents)", si, s->name);
      return -1;
    }
    if (is_index) {
      t->index_secs[t->nindex_secs++] = si;
      t->index_bytes += s->size;
    } else {
      t->body_secs[t->nbody_secs++] = si;
      t->bytes += s->size;
    }
  }
  sec_ctx = g;
  qsort(t->body_secs, t->nbody_secs, sizeof *t->body_secs, sec_addr_cmp);
  sec_ctx = NULL;
  return 0;
}

/* [*LO, *HI) spanning sections SECS; 0 when there are none.  */
static int sections_extent(const struct gorc_elf *g, const size_t *secs, size_t n,
                           uint64_t *lo, uint64_t *hi)
{
  *lo = *hi = 0;
  for (size_t k = 0; k < n; k++) {
    const GElf_Shdr *sh = &g->secs[secs[k]].shdr;
    if (k == 0 || sh->sh_addr < *lo)
      *lo = sh->sh_addr;
    if (k == 0 || sh->sh_addr + sh->sh_size > *hi)
      *hi = sh->sh_addr + sh->sh_size;
  }
  return n > 0;
}

/* The gorc_unwind section that holds address A, or 0.  */
static size_t body_section_at(const struct gorc_table *t, const struct gorc_elf *g, uint64_t a)
{
  size_t lo = 0, hi = t->nbody_secs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->secs[t->body_secs[mid]].shdr.sh_addr <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return 0;
  const struct gorc_sec *s = &g->secs[t->body_secs[lo - 1]];
  return a - s->shdr.sh_addr < s->size ? t->body_secs[lo - 1] : 0;
}

/* ---- the note ---- */

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Do the note's offsets name the sections of a linked file?  */
static void check_note_extents(struct gorc_table *t, const struct gorc_elf *g,
                               const char *where, const struct gorc_note_info *info)
{
  const struct {
    const char *name;
    const size_t *secs;
    size_t n;
    uint64_t start, end;
  } parts[2] = {
    { GORC_INDEX_SECTION_NAME, t->index_secs, t->nindex_secs, info->index_start,
      info->index_end },
    { GORC_SECTION_NAME, t->body_secs, t->nbody_secs, info->records_start,
      info->records_end },
  };
  for (int k = 0; k < 2; k++) {
    uint64_t lo, hi;
    int have = sections_extent(g, parts[k].secs, parts[k].n, &lo, &hi);
    if (have ? (parts[k].start != lo || parts[k].end != hi) : parts[k].start != parts[k].end)
      problem(t, "%s: the gorc note says %s is at 0x%" PRIx64 "-0x%" PRIx64 ", but it is at"
              " %s0x%" PRIx64 "-0x%" PRIx64, where, parts[k].name, parts[k].start,
              parts[k].end, have ? "" : "(none) ", lo, hi);
  }
}

/* One gorc note: its descriptor DESC of DESCSZ bytes at address VADDR.  */
static void read_note(struct gorc_table *t, const struct gorc_elf *g, const char *where,
                      const uint8_t *desc, uint32_t descsz, uint64_t vaddr)
{
  struct gorc_note_info info = { 0 };
  int rc = gorc_note_parse(desc, descsz, vaddr, &info);
  if (t->have_note++) {
    if (info.version != t->version)
      problem(t, "%s: two gorc notes, versions %u and %u", where, t->version, info.version);
    else
      add_msg(&t->warnings, &t->nwarnings, "%s: more than one gorc note", where);
  }
  t->version = info.version;
  if (rc == GORC_DECODE_VERSION) {
    if (info.version == 1)
      set_error(t, "%s: " VERSION1_MESSAGE, where);
    else
      set_error(t, "%s: gorc format version %u is not supported (this tool reads version %d)",
                where, info.version, GORC_FORMAT_VERSION);
    return;
  }
  if (rc == GORC_DECODE_TRUNCATED) {
    set_error(t, "%s: gorc note descriptor has %u bytes, expected %u", where, descsz,
              GORC_NOTE_DESC_SIZE);
    return;
  }
  if (rc == GORC_DECODE_MACHINE) {
    set_error(t, "%s: gorc note names machine %u, which this tool does not know", where,
              info.machine);
    return;
  }
  if (info.machine != g->e_machine) {
    set_error(t, "%s: gorc note names machine %u, the file is for e_machine %u", where,
              info.machine, g->e_machine);
    return;
  }
  t->machine = info.machine;
  /* In a relocatable object the offsets are not resolved yet: they refer
     to the __start_/__stop_ symbols a final link defines.  */
  if (g->is_rel)
    return;
  if (rc != GORC_DECODE_OK)
    problem(t, "%s: gorc note: %s (index 0x%" PRIx64 "-0x%" PRIx64 ", records 0x%" PRIx64
            "-0x%" PRIx64 ")", where, gorc_decode_strerror(rc), info.index_start,
            info.index_end, info.records_start, info.records_end);
  else
    check_note_extents(t, g, where, &info);
}

static void read_notes(struct gorc_table *t, const struct gorc_elf *g)
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
        char where[160];
        snprintf(where, sizeof where, "section [%zu] '%s' offset 0x%zx", si, s->name, off);
        read_note(t, g, where, s->data + descoff, descsz, s->shdr.sh_addr + descoff);
      }
      off = descoff + descpad;
    }
  }
}

/* Version 1 had gorc_unwind alone: never read it as version 2.  */
static void check_layout_version(struct gorc_table *t)
{
  if (t->decode_error || !t->nbody_secs || t->nindex_secs)
    return;
  if (t->have_note)
    set_error(t, "gorc_unwind without gorc_unwind_index, although the gorc note says version"
              " %u: the index is missing", t->version);
  else
    set_error(t, "gorc_unwind without gorc_unwind_index: " VERSION1_MESSAGE);
}

/* ---- the ranges ---- */

/* "section [7] gorc_unwind_index entry 3 (offset 0x18, range start
   0x1140 f+0x0)".  */
static void range_where(const struct gorc_elf *g, size_t xi, size_t k, uint64_t start,
                        char *buf, size_t n)
{
  char sym[256];
  gorc_elf_symbolize(g, start, 0, sym, sizeof sym);
  snprintf(buf, n, "section [%zu] %s entry %zu (offset 0x%zx, range start 0x%" PRIx64 " %s)",
           xi, GORC_INDEX_SECTION_NAME, k, k * GORC_INDEX_ENTRY_SIZE, start, sym);
}

/* What the decoder's error RC at the entry at EPOS means.  */
static const char *range_error(int rc, const struct gorc_range *r, const uint8_t *epos)
{
  uint64_t word;
  if (rc == GORC_DECODE_BAD_RANGE && gorc_get_uleb(&epos, r->end, &word) == GORC_DECODE_OK
      && (word & ((1u << GORC_OP_BITS) - 1)) == GORC_OP_END && word >> GORC_OP_BITS == 0
      && r->next_addr == r->start)
    return "empty range (it ends at its start)";
  return gorc_decode_strerror(rc);
}

/* The op of the entry whose bytes are [P, END) (none: the implicit
   entry).  */
static void entry_op(struct gorc_rec_entry *re, const uint8_t *p, const uint8_t *end)
{
  uint64_t word;
  re->op = GORC_OP_STATE;
  re->back = 0;
  if (p == end || gorc_get_uleb(&p, end, &word) != GORC_DECODE_OK)
    return;
  re->op = (uint8_t)(word & ((1u << GORC_OP_BITS) - 1));
  if (re->op == GORC_OP_BACK && p < end)
    re->back = *p;
}

/* Decode the range of entry K of index section XI.  Returns 0 when it is
   kept, 1 when it is bad (reported, left out), -1 when out of memory.  */
static int decode_range(struct gorc_table *t, const struct gorc_elf *g, size_t xi, size_t k)
{
  const struct gorc_sec *xs = &g->secs[xi];
  const uint8_t *ie = xs->data + k * GORC_INDEX_ENTRY_SIZE;
  uint64_t ie_vaddr = xs->shdr.sh_addr + k * GORC_INDEX_ENTRY_SIZE;
  uint64_t start = gorc_index_start(ie, ie_vaddr), body = gorc_index_body(ie, ie_vaddr);
  char where[512];
  size_t bi = body_section_at(t, g, body);
  if (!bi) {
    range_where(g, xi, k, start, where, sizeof where);
    problem(t, "%s: body at 0x%" PRIx64 " is not inside %s", where, body, GORC_SECTION_NAME);
    return 1;
  }
  const struct gorc_sec *bs = &g->secs[bi];
  uint64_t boff = body - bs->shdr.sh_addr;
  struct gorc_range r;
  size_t first = t->nentries, states = 0;
  gorc_range_open(&r, t->machine, start, bs->data + boff, bs->data + bs->size);
  for (;;) {
    const uint8_t *epos = r.pos;
    struct gorc_entry e;
    int rc = gorc_range_next(&r, &e);
    if (rc < 0) {
      range_where(g, xi, k, start, where, sizeof where);
      problem(t, "%s: section [%zu] %s offset 0x%tx: %s (explicit entry %u of the body at"
              " offset 0x%" PRIx64 ")", where, bi, GORC_SECTION_NAME, epos - bs->data,
              range_error(rc, &r, epos), r.entries, boff);
      t->nentries = first;
      return 1;
    }
    if (rc == 0)
      break;
    struct gorc_rec_entry re = {
      .addr = e.addr, .state = e.state, .off = (uint64_t)(epos - bs->data),
      .len = (uint32_t)(r.pos - epos),
    };
    entry_op(&re, epos, r.pos);
    if (push_entry(t, &re) != 0)
      return -1;
    if (e.state.cfa_kind != GORC_CFA_END)
      states++;
  }
  t->nstates += states;
  struct gorc_rec_range rr = {
    .start = r.start, .end = t->entries[t->nentries - 1].addr, .first = first,
    .count = t->nentries - first, .index_sec = xi, .index_entry = k, .sec = bi, .off = boff,
    .len = (uint64_t)(r.pos - bs->data) - boff,
  };
  return push_range(t, &rr) != 0 ? -1 : 0;
}

/* A final link sorts the index; `ld -r` cannot, when it merges pieces
   linked to different code sections (docs/FORMAT.md).  Readers detect it
   and scan instead of bisecting, so it is a note after ld -r and a
   warning in a final link.  */
static void check_sorted(struct gorc_table *t, const struct gorc_elf *g, size_t xi)
{
  const struct gorc_sec *xs = &g->secs[xi];
  size_t n = xs->size / GORC_INDEX_ENTRY_SIZE, inversions = 0, first = 0;
  uint64_t prev = 0, first_start = 0, first_prev = 0;
  for (size_t k = 0; k < n; k++) {
    uint64_t at = xs->shdr.sh_addr + k * GORC_INDEX_ENTRY_SIZE;
    uint64_t start = gorc_index_start(xs->data + k * GORC_INDEX_ENTRY_SIZE, at);
    if (k > 0 && start < prev && inversions++ == 0) {
      first = k;
      first_start = start;
      first_prev = prev;
    }
    prev = start;
  }
  if (!inversions)
    return;
  char msg[512];
  snprintf(msg, sizeof msg, "index not sorted: section [%zu] %s entry %zu starts at 0x%" PRIx64
           ", below entry %zu (0x%" PRIx64 "); %zu of %zu entries start below the one before"
           " them; readers scan it instead of bisecting", xi, GORC_INDEX_SECTION_NAME, first,
           first_start, first - 1, first_prev, inversions, n);
  if (g->is_rel)
    add_msg(&t->notes, &t->nnotes, "%s (as ld -r leaves it)", msg);
  else
    add_msg(&t->warnings, &t->nwarnings, "%s (a final link sorts it unless an input was"
            " made by ld -r)", msg);
}

static int decode_index_section(struct gorc_table *t, const struct gorc_elf *g, size_t xi)
{
  const struct gorc_sec *xs = &g->secs[xi];
  size_t n = xs->size / GORC_INDEX_ENTRY_SIZE;
  if (xs->size % GORC_INDEX_ENTRY_SIZE)
    problem(t, "section [%zu] %s: size 0x%zx is not a multiple of %d (the last %zu bytes are"
            " not an entry)", xi, GORC_INDEX_SECTION_NAME, xs->size, GORC_INDEX_ENTRY_SIZE,
            xs->size % GORC_INDEX_ENTRY_SIZE);
  for (size_t k = 0; k < n; k++) {
    int rc = decode_range(t, g, xi, k);
    if (rc < 0) {
      set_error(t, "out of memory");
      return -1;
    }
    t->nbad += (size_t)rc;
  }
  check_sorted(t, g, xi);
  return 0;
}

/* ---- consistency ---- */

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

static int body_cmp(const void *pa, const void *pb)
{
  const struct gorc_rec_range *a = &cmp_ctx->ranges[*(const size_t *)pa];
  const struct gorc_rec_range *b = &cmp_ctx->ranges[*(const size_t *)pb];
  if (a->sec != b->sec)
    return a->sec < b->sec ? -1 : 1;
  if (a->off != b->off)
    return a->off < b->off ? -1 : 1;
  return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static void sort_ranges(const struct gorc_table *t, size_t *order,
                        int (*cmp)(const void *, const void *))
{
  for (size_t k = 0; k < t->nranges; k++)
    order[k] = k;
  cmp_ctx = t;
  qsort(order, t->nranges, sizeof *order, cmp);
  cmp_ctx = NULL;
}

/* Each range inside one code section, no two overlapping.  */
static void check_ranges(struct gorc_table *t, const struct gorc_elf *g)
{
  char a[256], b[256];
  for (size_t k = 0; k < t->nranges; k++) {
    const struct gorc_rec_range *r = &t->ranges[k];
    size_t si = gorc_elf_section_at(g, r->start);
    const GElf_Shdr *sh = si ? &g->secs[si].shdr : NULL;
    if (!sh || !(sh->sh_flags & SHF_EXECINSTR) || r->end - sh->sh_addr > sh->sh_size) {
      gorc_elf_symbolize(g, r->start, 0, a, sizeof a);
      problem(t, "range 0x%" PRIx64 "-0x%" PRIx64 " (%s; section [%zu] %s entry %zu) is not"
              " inside one code section", r->start, r->end, a, r->index_sec,
              GORC_INDEX_SECTION_NAME, r->index_entry);
    }
  }
  for (size_t k = 1; k < t->nranges; k++) {
    const struct gorc_rec_range *p = &t->ranges[t->sorted[k - 1]];
    const struct gorc_rec_range *r = &t->ranges[t->sorted[k]];
    if (r->start < p->end) {
      gorc_elf_symbolize(g, r->start, 0, a, sizeof a);
      gorc_elf_symbolize(g, p->start, 0, b, sizeof b);
      problem(t, "ranges overlap: 0x%" PRIx64 "-0x%" PRIx64 " (%s) and 0x%" PRIx64 "-0x%"
              PRIx64 " (%s)", p->start, p->end, b, r->start, r->end, a);
    }
  }
}

/* Bodies do not overlap (two index entries may share one), and every
   byte of gorc_unwind belongs to a body.  */
static int check_bodies(struct gorc_table *t)
{
  size_t *order = malloc((t->nranges ? t->nranges : 1) * sizeof *order);
  if (!order)
    return -1;
  sort_ranges(t, order, body_cmp);
  uint64_t used = 0, covered_to = 0;
  size_t sec = 0;
  for (size_t k = 0; k < t->nranges; k++) {
    const struct gorc_rec_range *r = &t->ranges[order[k]];
    if (r->sec != sec) {
      sec = r->sec;
      covered_to = 0;
    }
    if (k > 0 && r->off < covered_to) {
      const struct gorc_rec_range *p = &t->ranges[order[k - 1]];
      if (p->sec == r->sec && p->off == r->off)
        continue;
      problem(t, "bodies overlap: section [%zu] %s entry %zu (offset 0x%" PRIx64 "-0x%" PRIx64
              ") and section [%zu] %s entry %zu (offset 0x%" PRIx64 "-0x%" PRIx64 ")",
              p->index_sec, GORC_INDEX_SECTION_NAME, p->index_entry, p->off, p->off + p->len,
              r->index_sec, GORC_INDEX_SECTION_NAME, r->index_entry, r->off, r->off + r->len);
    }
    uint64_t from = r->off > covered_to ? r->off : covered_to;
    if (r->off + r->len > from) {
      used += r->off + r->len - from;
      covered_to = r->off + r->len;
    }
  }
  free(order);
  /* A bad range's body has no known length: count only when all are good.  */
  if (!t->nbad && used < t->bytes)
    add_msg(&t->warnings, &t->nwarnings, "%" PRIu64 " of the %" PRIu64 " bytes of %s belong"
            " to no range", t->bytes - used, t->bytes, GORC_SECTION_NAME);
  return 0;
}

int gorc_table_load(struct gorc_table *t, const struct gorc_elf *g)
{
  memset(t, 0, sizeof *t);
  t->machine = g->e_machine;
  if (find_sections(t, g) != 0)
    goto done;
  read_notes(t, g);
  check_layout_version(t);
  if (t->decode_error)
    goto done;
  for (size_t k = 0; k < t->nindex_secs; k++)
    if (decode_index_section(t, g, t->index_secs[k]) != 0)
      goto done;
  if (t->nranges && !t->have_note)
    add_msg(&t->warnings, &t->nwarnings, "no gorc note (%s): a runtime cannot find the table",
            GORC_NOTE_SECTION_NAME);
  t->sorted = malloc((t->nranges ? t->nranges : 1) * sizeof *t->sorted);
  if (!t->sorted || check_bodies(t) != 0) {
    set_error(t, "out of memory");
    goto done;
  }
  sort_ranges(t, t->sorted, range_cmp);
  check_ranges(t, g);
done:
  if (t->problems_left_out)
    add_msg(&t->problems, &t->nproblems, "... %zu more problems", t->problems_left_out);
  return t->decode_error || t->nproblems ? -1 : 0;
}

void gorc_table_free(struct gorc_table *t)
{
  for (size_t k = 0; k < t->nproblems; k++)
    free(t->problems[k]);
  for (size_t k = 0; k < t->nwarnings; k++)
    free(t->warnings[k]);
  for (size_t k = 0; k < t->nnotes; k++)
    free(t->notes[k]);
  free(t->problems);
  free(t->warnings);
  free(t->notes);
  free(t->entries);
  free(t->ranges);
  free(t->sorted);
  free(t->body_secs);
  free(t->index_secs);
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

int gorc_table_gap_at(const struct gorc_table *t, long ri, uint64_t pc)
{
  const struct gorc_rec_range *r = &t->ranges[ri];
  const struct gorc_rec_entry *e = t->entries + r->first;
  size_t a = 0, b = r->count;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (e[mid].addr < pc)
      a = mid + 1;
    else
      b = mid;
  }
  for (; a < r->count && e[a].addr == pc; a++)
    if (gorc_state_is_gap(&e[a].state))
      return 1;
  return 0;
}
