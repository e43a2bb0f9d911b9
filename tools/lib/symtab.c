/* gorc tools: a file's symbols, sorted (see symtab.h).  */

#define _GNU_SOURCE
#include "symtab.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch.h"
#include "gopclntab.h"
#include "gorc/elf_symbols.h"
#include "mapped.h"

/* A growing array of symbols.  */
struct sym_list {
  struct gorc_sym *v;
  size_t n, cap;
};

struct load {
  struct gorc_symtab *st;
  const struct gorc_symtab_opts *opts;
  uint64_t strings_len;      /* bytes of st->strings before its last NUL */
  uint64_t *section_flags;   /* sh_flags of each section of the file read */
  uint32_t nsections;
  struct sym_list funcs, others;
  const char *file;          /* the last STT_FILE's name */
  int out_of_memory;
};

static int add(struct load *l, struct sym_list *list, struct gorc_sym s)
{
  struct gorc_sym *v = gorc_grow_array(list->v, &list->cap, list->n + 1, sizeof *v, 1024,
                                       SIZE_MAX);
  if (!v) {
    l->out_of_memory = 1;
    return -1;
  }
  list->v = v;
  list->v[list->n++] = s;
  return 0;
}

static const char *name_of(const struct load *l, uint64_t name)
{
  return name < l->strings_len ? l->st->strings + name : NULL;
}

/* The section of S (through SHT_SYMTAB_SHNDX when it is SHN_XINDEX), or
   0 when it is not a section (undefined, absolute, common).  */
static uint32_t section_of(const struct load *l, uint64_t index, const Elf64_Sym *s)
{
  if (s->st_shndx == SHN_XINDEX)
    return index < l->st->nxindex ? l->st->xindex[index] : 0;
  return s->st_shndx < SHN_LORESERVE ? s->st_shndx : 0;
}

/* Is S a function the crash handler would name an address with?  In a
   relocatable object a function may start its section, at value 0.  */
static int is_function(const struct load *l, const Elf64_Sym *s)
{
  int type = ELF64_ST_TYPE(s->st_info);
  if (l->opts->section_addr && s->st_value == 0 && (type == STT_FUNC || type == STT_GNU_IFUNC))
    return s->st_shndx != SHN_UNDEF && s->st_name != 0;
  return gorc_es_is_function(s);
}

static void keep_symbol(const struct gorc_es_elf_file *f, const struct gorc_es_table *t,
                        uint64_t index, const Elf64_Sym *s, void *ctx)
{
  struct load *l = ctx;
  const char *name = name_of(l, s->st_name);
  int type = ELF64_ST_TYPE(s->st_info);
  (void)f;
  (void)t;
  if (index == 0 || l->out_of_memory)
    return;
  if (type == STT_FILE) {
    l->file = name && *name ? name : NULL;
    return;
  }
  uint32_t shndx = section_of(l, index, s);
  struct gorc_sym sym = {
    .addr = s->st_value, .size = s->st_size, .name = name,
    .file = ELF64_ST_BIND(s->st_info) == STB_LOCAL ? l->file : NULL,
    .type = (unsigned char)type, .bind = (unsigned char)ELF64_ST_BIND(s->st_info),
  };
  if (!name)
    return;
  if (l->opts->section_addr) {
    if (shndx == 0 || shndx >= l->opts->nsections)
      return;
    sym.addr += l->opts->section_addr[shndx];
  }
  if (is_function(l, s))
    add(l, &l->funcs, sym);
  else if (l->opts->others && *name && shndx != 0 && shndx < l->nsections
           && (l->section_flags[shndx] & SHF_ALLOC) && type != STT_FUNC
           && type != STT_GNU_IFUNC && type != STT_SECTION && type != STT_TLS
           && strncmp(name, ".L", 2) != 0)
    add(l, &l->others, sym);
}

/* For the other symbols: which are in allocated sections.  */
static int read_section_flags(struct load *l, const struct gorc_es_elf_file *f)
{
  if (!l->opts->others)
    return 0;
  l->nsections = f->shnum;
  l->section_flags = calloc(f->shnum ? f->shnum : 1, sizeof *l->section_flags);
  if (!l->section_flags)
    return -1;
  for (uint32_t i = 0; i < f->shnum; i++) {
    Elf64_Shdr sh;
    if (gorc_es_section(f, i, &sh) == 0)
      l->section_flags[i] = sh.sh_flags;
  }
  return 0;
}

/* The SHT_SYMTAB_SHNDX of T, if it has one.  */
static int read_xindex(struct load *l, const struct gorc_es_elf_file *f,
                       const struct gorc_es_table *t)
{
  for (uint32_t i = 0; i < f->shnum; i++) {
    Elf64_Shdr sh, link;
    if (gorc_es_section(f, i, &sh) != 0 || sh.sh_type != SHT_SYMTAB_SHNDX
        || !gorc_es_in_file(f, &sh) || gorc_es_section(f, sh.sh_link, &link) != 0
        || link.sh_offset != t->sym.sh_offset || link.sh_type != t->type)
      continue;
    l->st->xindex = malloc(sh.sh_size ? sh.sh_size : 1);
    if (!l->st->xindex)
      return -1;
    l->st->nxindex = sh.sh_size / sizeof(uint32_t);
    if (gorc_es_read_at(f, sh.sh_offset, l->st->xindex, sh.sh_size) != 0)
      l->st->nxindex = 0;
    return 0;
  }
  return 0;
}

/* Room for N symbols in LIST at once: grown by doubling, each page of
   a large list was written up to three times (a page fault each time
   the copy lands on new memory); a large list in huge pages
   (gorc_alloc_huge): libc's debug symbols are 6,830 functions.  */
static int reserve(struct sym_list *list, size_t n)
{
  size_t bytes = (n ? n : 1) * sizeof *list->v;
  list->v = gorc_alloc_array(bytes, GORC_HUGE_PAGE / 8);
  list->cap = list->v ? n : 0;
  return list->v ? 0 : -1;
}

/* Read T's strings and symbols from F into L.  */
static int read_table(struct load *l, const struct gorc_es_elf_file *f,
                      const struct gorc_es_table *t)
{
  struct gorc_symtab *st = l->st;
  size_t count = t->sym.sh_size / sizeof(Elf64_Sym);
  l->strings_len = t->str.sh_size;
  st->strings = malloc(t->str.sh_size + 1);
  if (!st->strings || read_section_flags(l, f) != 0 || read_xindex(l, f, t) != 0
      || reserve(&l->funcs, count) != 0 || (l->opts->others && reserve(&l->others, count) != 0))
    return -1;
  st->strings[t->str.sh_size] = 0;
  /* Unreadable: no symbol, as the crash handler finds none.  */
  if (gorc_es_read_at(f, t->str.sh_offset, st->strings, t->str.sh_size) != 0
      || gorc_es_each_symbol(f, t, keep_symbol, l) != 0)
    l->funcs.n = l->others.n = 0;
  return l->out_of_memory ? -1 : 0;
}

static int sym_order(const void *pa, const void *pb)
{
  const struct gorc_sym *a = pa, *b = pb;
  if (a->addr != b->addr)
    return a->addr < b->addr ? -1 : 1;
  return gorc_es_alias_order(a->size != 0, a->bind, a->name, b->size != 0, b->bind, b->name);
}

/* An entry's sort key: its address and its place.  */
struct sym_key {
  uint64_t addr;
  size_t at;
};

/* The N keys of A by address, stably: a radix sort, a byte a pass (a
   pass where every key has the same byte is skipped), through B.  The
   sorted keys, in A or B.  */
static struct sym_key *radix_sort(struct sym_key *a, struct sym_key *b, size_t n)
{
  for (unsigned shift = 0; shift < 64 && n > 0; shift += 8) {
    size_t at[257] = { 0 };
    for (size_t i = 0; i < n; i++)
      at[(a[i].addr >> shift & 255) + 1]++;
    if (at[(a[0].addr >> shift & 255) + 1] == n)
      continue;
    for (unsigned d = 1; d < 257; d++)
      at[d] += at[d - 1];
    for (size_t i = 0; i < n; i++)
      b[at[a[i].addr >> shift & 255]++] = a[i];
    struct sym_key *t = a;
    a = b;
    b = t;
  }
  return a;
}

/* V in sym_order: the keys sorted by address (radix_sort), the entries
   of one address by sym_order (few: aliases), then each entry moved to
   its place along the cycles of the permutation.  qsort of the 48-byte
   entries sorted pointers to them and read two entries a comparison,
   with a temporary array as large: most of reading libc's 6,830 debug
   functions.  */
static void sort_syms(struct gorc_sym *v, size_t n)
{
  size_t bytes = 2 * (n ? n : 1) * sizeof(struct sym_key);
  struct sym_key *keys = gorc_alloc_array(bytes, GORC_HUGE_PAGE / 32);
  if (!keys) {
    qsort(v, n, sizeof *v, sym_order);
    return;
  }
  for (size_t i = 0; i < n; i++)
    keys[i] = (struct sym_key){ v[i].addr, i };
  struct sym_key *k = radix_sort(keys, keys + n, n);
  for (size_t i = 1; i < n; i++) {
    struct sym_key x = k[i];
    size_t j = i;
    for (; j > 0 && k[j - 1].addr == x.addr && sym_order(&v[k[j - 1].at], &v[x.at]) > 0; j--)
      k[j] = k[j - 1];
    k[j] = x;
  }
  for (size_t i = 0; i < n; i++) {
    if (k[i].at == i)
      continue;
    struct gorc_sym first = v[i];
    size_t j = i;
    while (k[j].at != i) {
      size_t from = k[j].at;
      v[j] = v[from];
      k[j].at = j;
      j = from;
    }
    v[j] = first;
    k[j].at = j;
  }
  free(keys);
}

static void set_reach(struct gorc_sym *v, size_t n)
{
  uint64_t reach = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t end = v[i].size > UINT64_MAX - v[i].addr ? UINT64_MAX : v[i].addr + v[i].size;
    if (end > reach)
      reach = end;
    v[i].reach = reach;
  }
}

int gorc_symtab_load(struct gorc_symtab *st, const char *path,
                     const struct gorc_symtab_opts *opts)
{
  struct gorc_es_elf_file f;
  struct gorc_es_table t;
  struct load l = { .st = st, .opts = opts };
  memset(st, 0, sizeof *st);
  if (gorc_es_open_symbols(path, &f, &t) != 0)
    return 0;
  int r = read_table(&l, &f, &t);
  close(f.fd);
  free(l.section_flags);
  st->funcs = l.funcs.v;
  st->nfuncs = l.funcs.n;
  st->others = l.others.v;
  st->nothers = l.others.n;
  if (r != 0) {
    gorc_symtab_free(st);
    return -1;
  }
  sort_syms(st->funcs, st->nfuncs);
  sort_syms(st->others, st->nothers);
  set_reach(st->funcs, st->nfuncs);
  return 0;
}

void gorc_symtab_free(struct gorc_symtab *st)
{
  free(st->funcs);
  free(st->others);
  free(st->strings);
  free(st->xindex);
  memset(st, 0, sizeof *st);
}

/* Index of the first entry of V past ADDR.  */
static size_t first_past(const struct gorc_sym *v, size_t n, uint64_t addr)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The first entry of V at the address of entry K: the best name there.  */
static size_t first_at(const struct gorc_sym *v, size_t k)
{
  while (k > 0 && v[k - 1].addr == v[k].addr)
    k--;
  return k;
}

static int contains(const struct gorc_sym *s, uint64_t addr)
{
  return s->size && addr - s->addr < s->size;
}

const struct gorc_sym *gorc_symtab_preceding(const struct gorc_sym *v, size_t n, uint64_t addr)
{
  size_t past = first_past(v, n, addr);
  return past ? &v[first_at(v, past - 1)] : NULL;
}

/* As gorc_es_lookup_in chooses: the sized function containing ADDR at the
   greatest address, else the unsized one at the greatest address at or
   below ADDR unless a sized one starts there too or after it.  */
const struct gorc_sym *gorc_symtab_find(const struct gorc_symtab *st, uint64_t addr)
{
  const struct gorc_sym *v = st->funcs;
  size_t past = first_past(v, st->nfuncs, addr);
  if (past == 0)
    return NULL;
  for (size_t k = past; k-- > 0 && v[k].reach > addr;)
    if (contains(&v[k], addr)) {
      /* the best alias at that address that contains addr too */
      size_t best = k;
      for (size_t j = k; j > 0 && v[j - 1].addr == v[k].addr; j--)
        if (contains(&v[j - 1], addr))
          best = j - 1;
      return &v[best];
    }
  /* No sized function contains addr: the greatest address at or below it
     is named only by an unsized one, and only if no sized one starts
     there (the sized sort first).  */
  const struct gorc_sym *first = &v[first_at(v, past - 1)];
  return first->size ? NULL : first;
}

/* ---- naming a few addresses (gorc_symtab_name_each) ---- */

/* The functions that start at the greatest address at or below an
   address, of those the pass has met.  */
struct start_pick {
  uint64_t value;
  int have, sized, unsized;  /* SIZED: a sized one starts there */
  Elf64_Sym unsized_best;    /* the best unsized one (UNSIZED) */
};

struct name_pass {
  const char *strings;       /* the table's strings, a NUL at their end */
  uint64_t strings_len;
  const uint64_t *addrs;
  size_t n;
  Elf64_Sym *sized;          /* per address: the best sized function containing it */
  uint8_t *have_sized;
  /* per address: those starting after the address before it, up to it */
  struct start_pick *starts;
};

/* sym_order of two symbols of the table.  */
static int pass_alias_order(const struct name_pass *p, const Elf64_Sym *a, const Elf64_Sym *b)
{
  return gorc_es_alias_order(a->st_size != 0, ELF64_ST_BIND(a->st_info), p->strings + a->st_name,
                             b->st_size != 0, ELF64_ST_BIND(b->st_info), p->strings + b->st_name);
}

/* Index of the first of the N ADDRS at or past V.  */
static size_t first_at_or_past(const uint64_t *addrs, size_t n, uint64_t v)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (addrs[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Function S as a candidate for the addresses: the sized function
   containing one, at the greatest address, the best alias there (of
   equals the first in the table, as the stable sort keeps it); the
   functions starting nearest below one.  */
static void pass_consider(struct name_pass *p, const Elf64_Sym *s)
{
  if (!gorc_es_is_function(s) || s->st_name >= p->strings_len)
    return;
  size_t i = first_at_or_past(p->addrs, p->n, s->st_value);
  for (size_t k = i; s->st_size && k < p->n && p->addrs[k] - s->st_value < s->st_size; k++)
    if (!p->have_sized[k] || s->st_value > p->sized[k].st_value
        || (s->st_value == p->sized[k].st_value && pass_alias_order(p, s, &p->sized[k]) < 0)) {
      p->sized[k] = *s;
      p->have_sized[k] = 1;
    }
  if (i == p->n)
    return;
  struct start_pick *sp = &p->starts[i];
  if (!sp->have || s->st_value > sp->value)
    *sp = (struct start_pick){ .value = s->st_value, .have = 1 };
  if (s->st_value != sp->value)
    return;
  if (s->st_size)
    sp->sized = 1;
  else if (!sp->unsized || pass_alias_order(p, s, &sp->unsized_best) < 0) {
    sp->unsized_best = *s;
    sp->unsized = 1;
  }
}

/* The pass over the COUNT symbols at SYMS, then each address's name
   into NAMES.  */
static int pass_run(struct name_pass *p, const uint8_t *syms, uint64_t count, char **names)
{
  for (uint64_t k = 1; k < count; k++) {   /* entry 0 is no symbol */
    Elf64_Sym s;
    memcpy(&s, syms + k * sizeof s, sizeof s);
    pass_consider(p, &s);
  }
  for (size_t i = 0; i < p->n; i++) {
    /* no function starts in (addrs[i - 1], addrs[i]]: those before */
    if (i > 0 && !p->starts[i].have)
      p->starts[i] = p->starts[i - 1];
    const struct start_pick *sp = &p->starts[i];
    const Elf64_Sym *best = p->have_sized[i] ? &p->sized[i]
                            : sp->have && !sp->sized && sp->unsized ? &sp->unsized_best
                                                                    : NULL;
    names[i] = NULL;
    if (best && !(names[i] = strdup(p->strings + best->st_name)))
      return -1;
  }
  return 0;
}


/* ---- PLT stubs ("read@plt", as perf names them) ---- */

/* The sections that name the stubs of a linked file: its PLTs, the
   relocations of their slots and the dynamic symbols those name.  */
struct plt_file {
  struct gorc_es_elf_file f;
  Elf64_Shdr shstr;
  Elf64_Shdr plt[3];         /* .plt, .plt.sec, .plt.got */
  int plt_kind[3];           /* PLT_* of each */
  int nplt;
  Elf64_Shdr rela_plt, rela_dyn, dynsym, dynstr;
  int have_rela_plt, have_rela_dyn, have_dynsym;
};

enum { PLT_LAZY, PLT_SEC, PLT_GOT };

static int plt_visit(const struct gorc_es_elf_file *f, const Elf64_Shdr *sh, void *ctx)
{
  struct plt_file *pf = ctx;
  char name[16];
  if (gorc_es_read_name(f, &pf->shstr, sh->sh_name, name, sizeof name) != 0)
    return 0;
  int kind = strcmp(name, ".plt") == 0 ? PLT_LAZY : strcmp(name, ".plt.sec") == 0 ? PLT_SEC
             : strcmp(name, ".plt.got") == 0 ? PLT_GOT : -1;
  if (kind >= 0 && pf->nplt < 3 && gorc_es_in_file(f, sh)) {
    pf->plt_kind[pf->nplt] = kind;
    pf->plt[pf->nplt++] = *sh;
  } else if (strcmp(name, ".rela.plt") == 0 && gorc_es_in_file(f, sh)) {
    pf->rela_plt = *sh;
    pf->have_rela_plt = 1;
  } else if (strcmp(name, ".rela.dyn") == 0 && gorc_es_in_file(f, sh)) {
    pf->rela_dyn = *sh;
    pf->have_rela_dyn = 1;
  } else if (sh->sh_type == SHT_DYNSYM && gorc_es_in_file(f, sh)) {
    pf->dynsym = *sh;
    pf->have_dynsym = gorc_es_section(f, sh->sh_link, &pf->dynstr) == 0;
  }
  return 0;
}

/* The relocation I of SEC, or -1.  */
static int plt_rela(const struct plt_file *pf, const Elf64_Shdr *sec, uint64_t i, Elf64_Rela *r)
{
  if (i >= sec->sh_size / sizeof *r)
    return -1;
  return gorc_es_read_at(&pf->f, sec->sh_offset + i * sizeof *r, r, sizeof *r);
}

/* The relocation of GOT slot SLOT (in .rela.plt or .rela.dyn), or -1.  */
static int plt_slot_rela(const struct plt_file *pf, uint64_t slot, Elf64_Rela *r)
{
  const Elf64_Shdr *secs[2] = { pf->have_rela_plt ? &pf->rela_plt : NULL,
                                pf->have_rela_dyn ? &pf->rela_dyn : NULL };
  for (int k = 0; k < 2; k++)
    for (uint64_t i = 0; secs[k] && plt_rela(pf, secs[k], i, r) == 0; i++)
      if (r->r_offset == slot)
        return 0;
  return -1;
}

/* "SYM@plt" of relocation R (perf's "*ABS*+0xADDEND@plt" for one without
   a symbol: an IRELATIVE), malloc'd, or NULL.  */
static char *plt_name(const struct plt_file *pf, const Elf64_Rela *r)
{
  char sym[256], *out = NULL;
  Elf64_Sym s;
  uint64_t index = ELF64_R_SYM(r->r_info);
  if (index == 0) {
    if (asprintf(&out, "*ABS*+0x%llx@plt", (unsigned long long)r->r_addend) < 0)
      return NULL;
    return out;
  }
  if (!pf->have_dynsym || index >= pf->dynsym.sh_size / sizeof s
      || gorc_es_read_at(&pf->f, pf->dynsym.sh_offset + index * sizeof s, &s, sizeof s) != 0
      || gorc_es_read_name(&pf->f, &pf->dynstr, s.st_name, sym, sizeof sym) != 0 || !sym[0])
    return NULL;
  if (asprintf(&out, "%s@plt", sym) < 0)
    return NULL;
  return out;
}

/* The name of the stub at ADDR of PLT section K of PF, or NULL: from the
   slot it jumps through, else (a lazy stub of .plt) from its index:
   stub I >= 1 of .plt is .rela.plt's I - 1 (stub 0 is the header).  */
static char *plt_stub_name(const struct plt_file *pf, const struct gorc_arch *arch, int k,
                           uint64_t addr)
{
  const Elf64_Shdr *sec = &pf->plt[k];
  uint64_t entsize = sec->sh_entsize >= 4 && sec->sh_entsize <= 32 ? sec->sh_entsize : 16;
  uint64_t index = (addr - sec->sh_addr) / entsize, entry = sec->sh_addr + index * entsize;
  uint8_t code[32];
  uint64_t slot;
  Elf64_Rela r;
  if (gorc_es_read_at(&pf->f, sec->sh_offset + index * entsize, code, (size_t)entsize) == 0
      && arch->plt_slot(code, (size_t)entsize, entry, &slot) == 0
      && plt_slot_rela(pf, slot, &r) == 0)
    return plt_name(pf, &r);
  if (pf->plt_kind[k] == PLT_LAZY && index >= 1 && pf->have_rela_plt
      && plt_rela(pf, &pf->rela_plt, index - 1, &r) == 0)
    return plt_name(pf, &r);
  return NULL;
}

/* The addresses of ADDRS (N) in a PLT of the file PATH named after the
   stub's symbol, replacing what the symbol table gave (the function
   before the PLT, often _init): a stub's own name, or none.  0, or -1
   when out of memory.  */
static int name_plt_stubs(const struct gorc_es_elf_file *f, const uint64_t *addrs, size_t n,
                          char **names)
{
  struct plt_file pf;
  Elf64_Ehdr eh;
  memset(&pf, 0, sizeof pf);
  pf.f = *f;
  const struct gorc_arch *arch = NULL;
  if (gorc_es_read_at(&pf.f, 0, &eh, sizeof eh) == 0 && eh.e_type != ET_REL)
    arch = gorc_arch_for(eh.e_machine);
  if (arch && gorc_es_section(&pf.f, pf.f.shstrndx, &pf.shstr) == 0)
    gorc_es_each_section(&pf.f, plt_visit, &pf);
  int rc = 0;
  for (int k = 0; k < pf.nplt && rc == 0; k++)
    for (size_t i = first_at_or_past(addrs, n, pf.plt[k].sh_addr);
         i < n && addrs[i] - pf.plt[k].sh_addr < pf.plt[k].sh_size; i++) {
      free(names[i]);
      errno = 0;
      names[i] = plt_stub_name(&pf, arch, k, addrs[i]);
      if (!names[i] && errno == ENOMEM)
        rc = -1;
    }
  return rc;
}

/* A Go program's .gopclntab and .text sections (go_visit).  */
struct go_file {
  Elf64_Shdr shstr, pcln, text;
  int found;                 /* a bit each */
};

static int go_visit(const struct gorc_es_elf_file *f, const Elf64_Shdr *sh, void *ctx)
{
  struct go_file *gf = ctx;
  char name[16];
  if (gorc_es_read_name(f, &gf->shstr, sh->sh_name, name, sizeof name) != 0)
    return 0;
  if (strcmp(name, ".gopclntab") == 0 && sh->sh_type == SHT_PROGBITS && gorc_es_in_file(f, sh)) {
    gf->pcln = *sh;
    gf->found |= 1;
  } else if (strcmp(name, ".text") == 0) {
    gf->text = *sh;
    gf->found |= 2;
  }
  return gf->found == 3;
}

/* The addresses of ADDRS (N) that no symbol named, named by the Go
   program PATH's own table of its functions (its .gopclntab, which a
   program built with -ldflags=-s keeps: Go's runtime reads it).  0, or
   -1 when out of memory.  */
static int name_go_functions(const struct gorc_es_elf_file *f, const uint64_t *addrs, size_t n,
                             char **names)
{
  struct go_file gf;
  struct gorc_go g;
  int rc = 0;
  size_t unnamed = 0;
  for (size_t i = 0; i < n; i++)
    unnamed += names[i] == NULL;
  memset(&gf, 0, sizeof gf);
  if (unnamed == 0 || !f->image)
    return 0;
  if (gorc_es_section(f, f->shstrndx, &gf.shstr) == 0)
    gorc_es_each_section(f, go_visit, &gf);
  if (gf.found == 3
      && gorc_go_open(&g, f->image + gf.pcln.sh_offset, gf.pcln.sh_size, gf.text.sh_addr) == 0)
    for (size_t i = 0; i < n && rc == 0; i++) {
      const char *name = names[i] ? NULL : gorc_go_name(&g, addrs[i]);
      if (name && !(names[i] = strdup(name)))
        rc = -1;
    }
  return rc;
}

/* ADDRS (N) named by the symbol table of PATH (gorc_symtab_name_each,
   names[] all NULL).  0, or -1 when out of memory.  */
static int name_by_table(const struct gorc_es_elf_file *f, const char *path,
                         const uint64_t *addrs, size_t n, char **names)
{
  struct gorc_es_elf_file debug;
  struct gorc_es_table t;
  int in = gorc_es_choose_symbols(f, path, &debug, &t);
  if (in < 0)
    return 0;
  const uint8_t *map = in == 0 ? f->image : gorc_map_file(debug.fd, debug.size, 0, 0, path);
  if (in == 1)
    close(debug.fd);
  if (!map || map == MAP_FAILED)
    return 0;                 /* unreadable: no symbol, as the crash handler finds none */
  struct name_pass p = { .strings = (const char *)map + t.str.sh_offset,
                         .strings_len = t.str.sh_size, .addrs = addrs, .n = n };
  char *copy = NULL;
  int rc = -1;
  /* strings not ended by a NUL: the last one ends at the table's end */
  if (p.strings_len == 0 || p.strings[p.strings_len - 1] != 0) {
    if (!(copy = malloc(p.strings_len + 1)))
      goto out;
    memcpy(copy, p.strings, p.strings_len);
    copy[p.strings_len] = 0;
    p.strings = copy;
  }
  p.sized = malloc(n * sizeof *p.sized);
  p.have_sized = calloc(n, 1);
  p.starts = calloc(n, sizeof *p.starts);
  if (p.sized && p.have_sized && p.starts)
    rc = pass_run(&p, map + t.sym.sh_offset, t.sym.sh_size / sizeof(Elf64_Sym), names);
out:
  free(p.sized);
  free(p.have_sized);
  free(p.starts);
  free(copy);
  if (in == 1)
    gorc_unmap_file((void *)map, debug.size);
  return rc;
}

int gorc_symtab_name_each(const char *path, const uint64_t *addrs, size_t n, char **names)
{
  struct gorc_es_elf_file f;
  for (size_t i = 0; i < n; i++)
    names[i] = NULL;
  if (n == 0 || gorc_es_elf_open(path, &f) != 0)
    return 0;
  /* mapped once for the three passes (NULL where it cannot be: the
     passes then read with pread, and the table's is refused) */
  void *map = gorc_map_file(f.fd, f.size, 0, 0, path);
  f.image = map == MAP_FAILED ? NULL : map;
  int rc = name_by_table(&f, path, addrs, n, names);
  if (rc == 0)
    rc = name_plt_stubs(&f, addrs, n, names);
  if (rc == 0)
    rc = name_go_functions(&f, addrs, n, names);
  if (f.image)
    gorc_unmap_file(map, f.size);
  close(f.fd);
  if (rc != 0)
    for (size_t i = 0; i < n; i++) {
      free(names[i]);
      names[i] = NULL;
    }
  return rc;
}
