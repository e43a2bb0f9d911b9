/* gorc tools: the shared ELF loader (see elfload.h).  */

#define _GNU_SOURCE
#include "elfload.h"
#include "mapped.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


/* Highest address the ET_REL layout may reach.  */
#define REL_ADDR_LIMIT ((uint64_t)1 << 47)

__attribute__((format(printf, 2, 3)))
static int fail(struct gorc_elf *g, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->err, sizeof g->err, fmt, ap);
  va_end(ap);
  return -1;
}

/* The file mapped privately: only the pages read are read from disk (a
   profiler opens every library a process maps), and relocating an ET_REL
   object writes into copies of its pages, never the file.  */
static int map_whole_file(struct gorc_elf *g, const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(g, "cannot open: %s", strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return fail(g, "cannot stat: %s", strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return fail(g, "not a regular file");
  }
  if (st.st_size == 0) {
    close(fd);
    return fail(g, "empty file, not an ELF file");
  }
  void *m = gorc_map_file(fd, (size_t)st.st_size, 1, 0, path);
  int e = errno;
  close(fd);
  if (m == MAP_FAILED)
    return fail(g, "cannot map: %s", strerror(e));
  g->buf = m;
  g->size = (size_t)st.st_size;
  g->dev = st.st_dev;
  g->ino = st.st_ino;
  g->ctime = st.st_ctim;
  g->mtime = st.st_mtim;
  return 0;
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* Read the section table of g->elf into g->secs.  */
static int load_sections(struct gorc_elf *g)
{
  size_t shnum = 0, shstrndx = 0;
  if (elf_getshdrnum(g->elf, &shnum) != 0)
    return fail(g, "cannot read section count: %s", elf_errmsg(-1));
  if (shnum > 0 && elf_getshdrstrndx(g->elf, &shstrndx) != 0)
    return fail(g, "cannot read section name table index: %s", elf_errmsg(-1));
  free(g->secs);
  g->secs = calloc(shnum ? shnum : 1, sizeof *g->secs);
  if (!g->secs)
    return fail(g, "out of memory");
  g->shnum = shnum;
  g->secs[0].name = "";
  for (size_t i = 1; i < shnum; i++) {
    struct gorc_sec *s = &g->secs[i];
    Elf_Scn *scn = elf_getscn(g->elf, i);
    s->name = "";
    if (!scn || !gelf_getshdr(scn, &s->shdr))
      return fail(g, "cannot read section header [%zu]: %s", i, elf_errmsg(-1));
    const char *nm = shstrndx ? elf_strptr(g->elf, shstrndx, s->shdr.sh_name) : NULL;
    if (nm)
      s->name = nm;
    if (s->shdr.sh_type != SHT_NOBITS && s->shdr.sh_size > 0) {
      if (s->shdr.sh_offset > g->size || s->shdr.sh_size > g->size - s->shdr.sh_offset)
        return fail(g, "section [%zu] '%s': contents at offset 0x%" PRIx64
                    " size 0x%" PRIx64 " extend past the end of the file (0x%zx bytes)",
                    i, s->name, s->shdr.sh_offset, s->shdr.sh_size, g->size);
      s->data = g->buf + s->shdr.sh_offset;
      s->size = s->shdr.sh_size;
    }
  }
  return 0;
}

/* ---- relocatable objects ---- */

struct symtab_view {
  const uint8_t *syms;     /* Elf64_Sym array in the buffer */
  size_t nsyms;
  const uint8_t *shndx;    /* SHT_SYMTAB_SHNDX words, or NULL */
  size_t nshndx;
};

static int symtab_view(struct gorc_elf *g, size_t idx, struct symtab_view *v)
{
  memset(v, 0, sizeof *v);
  if (idx == 0 || idx >= g->shnum)
    return fail(g, "relocation section links to bad symbol table index %zu", idx);
  const struct gorc_sec *s = &g->secs[idx];
  if (s->shdr.sh_type != SHT_SYMTAB && s->shdr.sh_type != SHT_DYNSYM)
    return fail(g, "section [%zu] '%s' is not a symbol table", idx, s->name);
  v->syms = s->data;
  v->nsyms = s->data ? s->size / sizeof(Elf64_Sym) : 0;
  for (size_t i = 1; i < g->shnum; i++)
    if (g->secs[i].shdr.sh_type == SHT_SYMTAB_SHNDX && g->secs[i].shdr.sh_link == idx
        && g->secs[i].data) {
      v->shndx = g->secs[i].data;
      v->nshndx = g->secs[i].size / 4;
    }
  return 0;
}

/* The value S of symbol SYMI for a relocation; *DEFINED says whether the
   symbol is defined in this file.  */
static int symbol_value(struct gorc_elf *g, const struct symtab_view *v, size_t symi,
                        const char *rname, uint64_t roff, uint64_t *val, int *defined)
{
  if (symi >= v->nsyms)
    return fail(g, "section '%s' offset 0x%" PRIx64 ": relocation symbol index %zu out of range"
                " (%zu symbols)", rname, roff, symi, v->nsyms);
  Elf64_Sym sym;
  memcpy(&sym, v->syms + symi * sizeof sym, sizeof sym);
  size_t shndx = sym.st_shndx;
  *defined = 1;
  if (shndx == SHN_XINDEX) {
    if (!v->shndx || symi >= v->nshndx)
      return fail(g, "symbol %zu uses SHN_XINDEX without an SHT_SYMTAB_SHNDX entry", symi);
    shndx = (size_t)get_le(v->shndx + 4 * symi, 4);
  } else if (shndx == SHN_UNDEF || shndx == SHN_COMMON) {
    *val = 0;
    *defined = 0;
    return 0;
  } else if (shndx == SHN_ABS) {
    *val = sym.st_value;
    return 0;
  } else if (shndx >= SHN_LORESERVE) {
    *val = 0;
    *defined = 0;
    return 0;
  }
  if (shndx >= g->shnum)
    return fail(g, "symbol %zu has bad section index %zu", symi, shndx);
  *val = g->secs[shndx].shdr.sh_addr + sym.st_value;
  return 0;
}

static int is_relocated_target(const struct gorc_sec *t)
{
  return !strcmp(t->name, ".eh_frame") || !strcmp(t->name, ".debug_frame")
         || !strcmp(t->name, "gorc_unwind") || !strcmp(t->name, "gorc_unwind_index");
}

static int apply_rela(struct gorc_elf *g, size_t ri)
{
  const struct gorc_sec *rs = &g->secs[ri];
  size_t ti = rs->shdr.sh_info;
  if (ti == 0 || ti >= g->shnum)
    return 0;
  struct gorc_sec *t = &g->secs[ti];
  if (!is_relocated_target(t))
    return 0;
  if (rs->shdr.sh_type == SHT_REL)
    return fail(g, "section [%zu] '%s': SHT_REL relocations for '%s' are not supported",
                ri, rs->name, t->name);
  if (t->shdr.sh_type == SHT_NOBITS || !t->data)
    return 0;
  if (t->shdr.sh_flags & SHF_COMPRESSED)
    return fail(g, "section [%zu] '%s' is compressed and has relocations: not supported",
                ti, t->name);
  if (!rs->data)
    return 0;
  struct symtab_view v;
  if (symtab_view(g, rs->shdr.sh_link, &v) != 0)
    return -1;
  uint8_t *tdata = g->buf + t->shdr.sh_offset;
  size_t n = rs->size / sizeof(Elf64_Rela);
  for (size_t k = 0; k < n; k++) {
    Elf64_Rela r;
    memcpy(&r, rs->data + k * sizeof r, sizeof r);
    unsigned type = ELF64_R_TYPE(r.r_info);
    size_t symi = ELF64_R_SYM(r.r_info);
    struct gorc_reloc how;
    if (g->arch->reloc(type, &how) != 0)
      return fail(g, "section [%zu] '%s' entry %zu: unsupported %s relocation type %u for '%s'"
                  " at offset 0x%" PRIx64, ri, rs->name, k, g->arch->name, type, t->name,
                  r.r_offset);
    if (how.width == 0)
      continue;
    unsigned width = how.width;
    if (r.r_offset > t->size || t->size - r.r_offset < width)
      return fail(g, "section [%zu] '%s' entry %zu: relocation offset 0x%" PRIx64
                  " outside '%s' (size 0x%zx)", ri, rs->name, k, r.r_offset, t->name, t->size);
    uint64_t s = 0;
    int defined = 0;
    if (symbol_value(g, &v, symi, rs->name, r.r_offset, &s, &defined) != 0)
      return -1;
    uint64_t p = t->shdr.sh_addr + r.r_offset;
    uint64_t val = s + (uint64_t)r.r_addend - (how.pcrel ? p : 0);
    if (width == 4 && defined && how.range != GORC_RELOC_ANY) {
      int ok;
      if (how.range == GORC_RELOC_UNSIGNED)
        ok = val <= 0xffffffffu;
      else
        ok = (int64_t)val >= INT32_MIN && (int64_t)val <= INT32_MAX;
      if (!ok)
        return fail(g, "section [%zu] '%s' entry %zu: relocation at '%s'+0x%" PRIx64
                    " overflows (value 0x%" PRIx64 ")", ri, rs->name, k, t->name,
                    r.r_offset, val);
    }
    put_le(tdata + r.r_offset, val, width);
  }
  return 0;
}

/* Give each SHF_ALLOC section of an ET_REL an address, apply relocations,
   write sh_addr into the buffer's section headers.  */
static int relocate_object(struct gorc_elf *g)
{
  GElf_Ehdr eh;
  if (!gelf_getehdr(g->elf, &eh))
    return fail(g, "cannot read ELF header: %s", elf_errmsg(-1));
  if (g->shnum > 0 && eh.e_shentsize != sizeof(Elf64_Shdr))
    return fail(g, "unexpected section header size %u", (unsigned)eh.e_shentsize);
  if (g->shnum > 0 && (eh.e_shoff > g->size
                       || (g->size - eh.e_shoff) / sizeof(Elf64_Shdr) < g->shnum))
    return fail(g, "section header table at 0x%" PRIx64 " extends past the end of the file",
                (uint64_t)eh.e_shoff);

  uint64_t addr = GORC_REL_BASE;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 1; i < g->shnum; i++) {
      GElf_Shdr *sh = &g->secs[i].shdr;
      if (!(sh->sh_flags & SHF_ALLOC))
        continue;
      if (!!(sh->sh_flags & SHF_EXECINSTR) != (pass == 0))
        continue;
      uint64_t align = sh->sh_addralign;
      if (align == 0 || (align & (align - 1)) || align > 4096)
        align = align > 4096 && !(align & (align - 1)) ? 4096 : 1;
      addr = (addr + align - 1) & ~(align - 1);
      if (sh->sh_size >= REL_ADDR_LIMIT || addr + sh->sh_size >= REL_ADDR_LIMIT)
        return fail(g, "section [%zu] '%s': size 0x%" PRIx64 " too large to lay out",
                    i, g->secs[i].name, sh->sh_size);
      sh->sh_addr = addr;
      addr += sh->sh_size ? sh->sh_size : 1;
    }
  for (size_t i = 1; i < g->shnum; i++)
    if (!(g->secs[i].shdr.sh_flags & SHF_ALLOC))
      g->secs[i].shdr.sh_addr = 0;

  for (size_t i = 1; i < g->shnum; i++) {
    unsigned t = g->secs[i].shdr.sh_type;
    if ((t == SHT_RELA || t == SHT_REL) && apply_rela(g, i) != 0)
      return -1;
  }

  for (size_t i = 1; i < g->shnum; i++) {
    Elf64_Shdr raw;
    uint8_t *p = g->buf + eh.e_shoff + i * sizeof raw;
    memcpy(&raw, p, sizeof raw);
    raw.sh_addr = g->secs[i].shdr.sh_addr;
    memcpy(p, &raw, sizeof raw);
  }
  return 0;
}

/* ---- symbols ---- */

/* The symbols by the crash handler's reader (tools/symtab.c): the table
   it chooses, its functions and its alias rule.  An object's symbols are
   placed at the addresses its sections were given.  */
static int load_symbols(struct gorc_elf *g)
{
  uint64_t *section_addr = NULL;
  struct gorc_symtab_opts opts = { .others = 1, .nsections = g->shnum };
  if (g->is_rel) {
    section_addr = calloc(g->shnum ? g->shnum : 1, sizeof *section_addr);
    if (!section_addr)
      return fail(g, "out of memory");
    for (size_t i = 0; i < g->shnum; i++)
      section_addr[i] = g->secs[i].shdr.sh_addr;
    opts.section_addr = section_addr;
  }
  int r = gorc_symtab_load(&g->syms, g->path, &opts);
  free(section_addr);
  return r == 0 ? 0 : fail(g, "out of memory reading the symbols");
}

static const struct gorc_elf *sort_ctx;

static int sec_addr_cmp(const void *pa, const void *pb)
{
  const GElf_Shdr *a = &sort_ctx->secs[*(const size_t *)pa].shdr;
  const GElf_Shdr *b = &sort_ctx->secs[*(const size_t *)pb].shdr;
  if (a->sh_addr != b->sh_addr)
    return a->sh_addr < b->sh_addr ? -1 : 1;
  /* code before data at one address */
  int ca = !!(a->sh_flags & SHF_EXECINSTR), cb = !!(b->sh_flags & SHF_EXECINSTR);
  if (ca != cb)
    return cb - ca;
  return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static int index_sections(struct gorc_elf *g)
{
  g->by_addr = calloc(g->shnum ? g->shnum : 1, sizeof *g->by_addr);
  if (!g->by_addr)
    return fail(g, "out of memory");
  for (size_t i = 1; i < g->shnum; i++) {
    const GElf_Shdr *sh = &g->secs[i].shdr;
    if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_size == 0)
      continue;
    if ((sh->sh_flags & SHF_TLS) && sh->sh_type == SHT_NOBITS)
      continue;
    g->by_addr[g->nby_addr++] = i;
  }
  sort_ctx = g;
  qsort(g->by_addr, g->nby_addr, sizeof *g->by_addr, sec_addr_cmp);
  sort_ctx = NULL;
  return 0;
}

/* G's file, its bytes in g->buf, opened.  */
static int elf_open_buffer(struct gorc_elf *g, int symbols)
{
  if (g->size < EI_NIDENT || memcmp(g->buf, ELFMAG, SELFMAG) != 0)
    return fail(g, "not an ELF file");
  if (g->buf[EI_CLASS] != ELFCLASS64 || g->buf[EI_DATA] != ELFDATA2LSB)
    return fail(g, "not a 64-bit little-endian ELF file (gorc supports %s)", gorc_arch_names());

  g->elf = elf_memory((char *)g->buf, g->size);
  if (!g->elf || elf_kind(g->elf) != ELF_K_ELF)
    return fail(g, "not a readable ELF file: %s", elf_errmsg(-1));
  GElf_Ehdr eh;
  if (!gelf_getehdr(g->elf, &eh))
    return fail(g, "cannot read ELF header: %s", elf_errmsg(-1));
  g->arch = gorc_arch_for(eh.e_machine);
  if (!g->arch)
    return fail(g, "not a file for a machine gorc supports (%s): e_machine %u",
                gorc_arch_names(), (unsigned)eh.e_machine);
  g->e_type = eh.e_type;
  g->e_machine = eh.e_machine;
  if (eh.e_shoff != 0) {
    uint64_t n = eh.e_shnum ? eh.e_shnum : 1; /* extended numbering: at least [0] */
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > g->size
        || (g->size - eh.e_shoff) / sizeof(Elf64_Shdr) < n)
      return fail(g, "truncated or corrupt: section header table at offset 0x%" PRIx64
                  " (%" PRIu64 " entries of %u bytes) does not fit in the file (0x%zx bytes)",
                  (uint64_t)eh.e_shoff, n, (unsigned)eh.e_shentsize, g->size);
  }
  if (eh.e_phoff != 0 && eh.e_phnum != 0
      && (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > g->size
          || (g->size - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum))
    return fail(g, "truncated or corrupt: program header table at offset 0x%" PRIx64
                " does not fit in the file (0x%zx bytes)", (uint64_t)eh.e_phoff, g->size);
  if (eh.e_type != ET_REL && eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    return fail(g, "unsupported ELF type %u (need a relocatable object, executable or"
                " shared library)", (unsigned)eh.e_type);
  if (load_sections(g) != 0)
    return -1;

  if (eh.e_type == ET_REL) {
    g->is_rel = 1;
    if (relocate_object(g) != 0)
      return -1;
    /* Reopen the patched buffer so libelf/libdw see the new addresses.  */
    elf_end(g->elf);
    g->elf = elf_memory((char *)g->buf, g->size);
    if (!g->elf || elf_kind(g->elf) != ELF_K_ELF)
      return fail(g, "cannot reopen relocated object: %s", elf_errmsg(-1));
    if (load_sections(g) != 0)
      return -1;
  }
  if (index_sections(g) != 0 || (symbols && load_symbols(g) != 0))
    return -1;
  return 0;
}

static int elf_open(struct gorc_elf *g, const char *path, int symbols)
{
  memset(g, 0, sizeof *g);
  g->path = path;
  if (elf_version(EV_CURRENT) == EV_NONE)
    return fail(g, "libelf is out of date");
  if (map_whole_file(g, path) != 0)
    return -1;
  return elf_open_buffer(g, symbols);
}

int gorc_elf_open(struct gorc_elf *g, const char *path)
{
  return elf_open(g, path, 1);
}

int gorc_elf_open_image(struct gorc_elf *g, const char *name, const uint8_t *image, size_t size)
{
  memset(g, 0, sizeof *g);
  g->path = name;
  if (elf_version(EV_CURRENT) == EV_NONE)
    return fail(g, "libelf is out of date");
  if (!(g->buf = malloc(size ? size : 1)))
    return fail(g, "out of memory");
  memcpy(g->buf, image, size);
  g->size = size;
  g->buf_copied = 1;
  return elf_open_buffer(g, 0);
}

int gorc_elf_open_sections(struct gorc_elf *g, const char *path)
{
  return elf_open(g, path, 0);
}

void gorc_elf_close(struct gorc_elf *g)
{
  if (g->elf)
    elf_end(g->elf);
  free(g->secs);
  free(g->by_addr);
  gorc_symtab_free(&g->syms);
  if (g->buf_copied)
    free(g->buf);
  else if (g->buf)
    gorc_unmap_file(g->buf, g->size);
  memset(g, 0, sizeof *g);
}

const struct gorc_sec *gorc_elf_section_named(const struct gorc_elf *g, const char *name)
{
  for (size_t i = 1; i < g->shnum; i++)
    if (strcmp(g->secs[i].name, name) == 0 && g->secs[i].data)
      return &g->secs[i];
  return NULL;
}

size_t gorc_elf_section_at(const struct gorc_elf *g, uint64_t addr)
{
  size_t lo = 0, hi = g->nby_addr, best = 0;
  /* last section with sh_addr <= addr; then look back over overlaps */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->secs[g->by_addr[mid]].shdr.sh_addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t k = lo; k-- > 0;) {
    const GElf_Shdr *sh = &g->secs[g->by_addr[k]].shdr;
    if (addr - sh->sh_addr < sh->sh_size) {
      if (sh->sh_flags & SHF_EXECINSTR)
        return g->by_addr[k];
      if (!best)
        best = g->by_addr[k];
    }
    if (lo - k > 8)
      break;
  }
  return best;
}

const struct gorc_sym *gorc_elf_symbol_at(const struct gorc_elf *g, uint64_t addr)
{
  size_t si = gorc_elf_section_at(g, addr);
  if (!si)
    return NULL;
  uint64_t lo = g->secs[si].shdr.sh_addr;
  const struct gorc_sym *s = gorc_symtab_preceding(g->syms.funcs, g->syms.nfuncs, addr);
  if (s && s->addr >= lo)
    return s;
  s = gorc_symtab_preceding(g->syms.others, g->syms.nothers, addr);
  if (s && s->addr >= lo)
    return s;
  return NULL;
}

void gorc_elf_symbolize(const struct gorc_elf *g, uint64_t addr, int is_end,
                        char *buf, size_t n)
{
  uint64_t a = is_end && addr > 0 ? addr - 1 : addr;
  const struct gorc_sym *s = gorc_elf_symbol_at(g, a);
  if (s) {
    snprintf(buf, n, "%s+0x%" PRIx64, s->name, addr - s->addr);
    return;
  }
  size_t si = gorc_elf_section_at(g, a);
  if (si) {
    snprintf(buf, n, "%s+0x%" PRIx64, g->secs[si].name[0] ? g->secs[si].name : "?",
             addr - g->secs[si].shdr.sh_addr);
    return;
  }
  snprintf(buf, n, "0x%" PRIx64, addr);
}
