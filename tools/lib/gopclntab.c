/* gorc tools: Go programs' .gopclntab (see gopclntab.h).  */
#include "gopclntab.h"

#include <string.h>

#define GO_MAGIC_116 0xfffffffau
#define GO_MAGIC_118 0xfffffff0u
#define GO_MAGIC_120 0xfffffff1u

static uint32_t rd32(const uint8_t *p)
{
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static uint64_t rd64(const uint8_t *p)
{
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The N bytes at offset OFF of G's table, or NULL when they do not lie
   in it.  */
static const uint8_t *at(const struct gorc_go *g, uint64_t off, uint64_t n)
{
  uint64_t size = (uint64_t)(g->end - g->tab);
  return off <= size && n <= size - off ? g->tab + off : NULL;
}

/* A functab entry's bytes: the entry and the _func's offset.  */
static uint64_t functab_entry_size(const struct gorc_go *g)
{
  return g->layout == 116 ? 16 : 8;
}

int gorc_go_open(struct gorc_go *g, const uint8_t *tab, size_t size, uint64_t text)
{
  uint64_t words[8];
  memset(g, 0, sizeof *g);
  g->tab = tab;
  g->end = tab + size;
  if (size < 8 || tab[4] != 0 || tab[5] != 0 || tab[6] != 1 || tab[7] != 8)
    return -1;                  /* (the pads; instructions a byte apart; 8-byte pointers) */
  switch (rd32(tab)) {
  case GO_MAGIC_116: g->layout = 116; break;
  case GO_MAGIC_118: g->layout = 118; break;
  case GO_MAGIC_120: g->layout = 120; break;
  default: return -1;
  }
  /* nfunc, nfiles, [textStart,] funcnameOffset, cuOffset, filetabOffset,
     pctabOffset, pclnOffset */
  unsigned nwords = g->layout == 116 ? 7 : 8, k = g->layout == 116 ? 2 : 3;
  if (size < 8 + 8 * (size_t)nwords)
    return -1;
  for (unsigned i = 0; i < nwords; i++)
    words[i] = rd64(tab + 8 + 8 * i);
  g->nfunc = words[0];
  g->text = g->layout == 116 ? 0 : words[2] ? words[2] : text;
  if (g->nfunc == 0 || g->nfunc >= size / functab_entry_size(g))
    return -1;
  g->funcnames = at(g, words[k], 0);
  g->pctab = at(g, words[k + 3], 0);
  g->functab = at(g, words[k + 4], (g->nfunc + 1) * functab_entry_size(g));
  return g->funcnames && g->pctab && g->functab ? 0 : -1;
}

/* Function I's entry (I up to nfunc: the last is the text's end).  */
static uint64_t func_entry(const struct gorc_go *g, uint64_t i)
{
  if (g->layout == 116)
    return rd64(g->functab + 16 * i);
  return g->text + rd32(g->functab + 8 * i);
}

/* Function I's _func: NULL when its fields up to its flag do not lie in
   the table.  *NAMEOFF, *PCSP and *FLAGS: its name's offset in
   funcnames, its pcsp table's in pctab, its funcFlag.  */
static const uint8_t *func_fields(const struct gorc_go *g, uint64_t i, uint32_t *nameoff,
                                  uint32_t *pcsp, unsigned *flags)
{
  uint64_t funcoff = g->layout == 116 ? rd64(g->functab + 16 * i + 8)
                                      : rd32(g->functab + 8 * i + 4);
  /* _func: the entry (8 bytes, or a 4-byte offset), nameoff, args,
     deferreturn, pcsp, pcfile, pcln, npcdata, cuOffset, [startLine,]
     funcID (a byte), flag (a byte; Go 1.16's pad, 0) */
  unsigned name_at = g->layout == 116 ? 8 : 4, pcsp_at = name_at + 12;
  unsigned flag_at = g->layout == 118 ? 37 : 41;
  uint64_t base = (uint64_t)(g->functab - g->tab);
  if (funcoff > UINT64_MAX - base)
    return NULL;
  const uint8_t *f = at(g, base + funcoff, flag_at + 1);
  if (f) {
    *nameoff = rd32(f + name_at);
    *pcsp = rd32(f + pcsp_at);
    *flags = f[flag_at] & (GORC_GO_TOPFRAME | GORC_GO_SPWRITE);
  }
  return f;
}

/* The function holding PC: its index, or -1 (*NEXT: the next function's
   entry above PC, or UINT64_MAX).  */
static int64_t func_of(const struct gorc_go *g, uint64_t pc, uint64_t *next)
{
  uint64_t lo = 0, hi = g->nfunc;     /* the last entry at or below PC is in [lo, hi) */
  *next = UINT64_MAX;
  if (pc < func_entry(g, 0)) {
    *next = func_entry(g, 0);
    return -1;
  }
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (func_entry(g, mid) <= pc)
      lo = mid;
    else
      hi = mid;
  }
  if (pc >= func_entry(g, lo + 1))
    return -1;                  /* past the text's end */
  *next = func_entry(g, lo + 1);
  return (int64_t)lo;
}

/* An unsigned varint of Go's tables at *P (below END).  */
static int varint(const uint8_t **p, const uint8_t *end, uint32_t *out)
{
  uint32_t v = 0;
  for (unsigned shift = 0; shift < 35; shift += 7) {
    if (*p >= end)
      return -1;
    uint8_t b = *(*p)++;
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1;
}

/* The value of the pc-value table at offset OFF of pctab, for the
   function at ENTRY, at PC: 1 with *VAL and in *NEXT where it changes;
   0 when the table ends before PC or is corrupt.  Pairs of a value's
   change (zigzag) and the addresses it holds for (runtime's pcvalue).  */
static int pcvalue(const struct gorc_go *g, uint32_t off, uint64_t entry, uint64_t pc,
                   int32_t *val, uint64_t *next)
{
  if ((uint64_t)(g->end - g->pctab) <= off)
    return 0;
  const uint8_t *p = g->pctab + off;
  uint64_t from = entry;
  int32_t v = -1;
  for (int first = 1;; first = 0) {
    uint32_t dv, dpc;
    if (p >= g->end || (*p == 0 && !first))
      return 0;
    if (varint(&p, g->end, &dv) != 0 || varint(&p, g->end, &dpc) != 0)
      return 0;
    v += (int32_t)((0u - (dv & 1)) ^ (dv >> 1));
    if (pc < from + dpc) {
      *val = v;
      *next = from + dpc;
      return 1;
    }
    from += dpc;
  }
}

int gorc_go_state(const struct gorc_go *g, uint64_t pc, struct gorc_state *st, uint64_t *next)
{
  uint32_t nameoff, pcsp;
  unsigned flags;
  int32_t sp_delta;
  uint64_t func_next;
  int64_t i = func_of(g, pc, &func_next);
  *next = func_next;
  if (i < 0 || !func_fields(g, (uint64_t)i, &nameoff, &pcsp, &flags)
      || !pcvalue(g, pcsp, func_entry(g, (uint64_t)i), pc, &sp_delta, next)
      || sp_delta < 0 || sp_delta > (1 << 28))
    return 0;
  if (*next > func_next)
    *next = func_next;
  /* x86-64: the call pushed the return address below the caller's sp */
  memset(st, 0, sizeof *st);
  st->cfa_kind = GORC_CFA_SP;
  st->cfa_off = sp_delta + 8;
  st->ra_kind = GORC_RA_CFA;
  st->ra_off = -8;
  st->bp_kind = GORC_BP_SAME;
  st->aux_kind = GORC_AUX_SAME;
  return 1;
}

/* Function I's name (NULL: none) and *FLAGS.  */
static const char *func_name(const struct gorc_go *g, uint64_t i, unsigned *flags)
{
  uint32_t nameoff, pcsp;
  const uint8_t *name;
  if (!func_fields(g, i, &nameoff, &pcsp, flags)
      || !(name = at(g, (uint64_t)(g->funcnames - g->tab) + nameoff, 1))
      || !memchr(name, 0, (size_t)(g->end - name)))
    return NULL;
  return (const char *)name;
}

const char *gorc_go_name(const struct gorc_go *g, uint64_t pc)
{
  uint64_t next;
  unsigned flags;
  int64_t i = func_of(g, pc, &next);
  return i < 0 ? NULL : func_name(g, (uint64_t)i, &flags);
}

void gorc_go_each_function(const struct gorc_go *g,
                           void (*fn)(void *arg, const char *name, uint64_t lo, uint64_t hi,
                                      unsigned flags),
                           void *arg)
{
  for (uint64_t i = 0; i < g->nfunc; i++) {
    unsigned flags;
    const char *name = func_name(g, i, &flags);
    if (name)
      fn(arg, name, func_entry(g, i), func_entry(g, i + 1), flags);
  }
}
