/* gorc: the function symbol of an address, read from an ELF file on
   disk, and the ELF note walker it needs: one reader for libgorc's crash
   handler (runtime/src/elfsym.c, in a signal handler) and the tools
   (gorc-prof, gorc-dump, gorc-check through tools/lib/symtab.c).

   Async-signal-safe: open, fstat, pread and close only; no allocation,
   no stdio, no locks.  Everything is read through small buffers on the
   stack (about 3 KB), so the cost is paid per lookup: one pass over the
   symbol table, milliseconds for a large program.  Every read is bounds
   checked against the file: a truncated, corrupt or foreign file yields
   "no symbol", never a fault.  Of aliases, the rule of symrank.h.

     gorc_es_note_next(BUF, LEN, POS, N)       as gorc_elf_note_next
     gorc_es_find(PATH, ADDR, SYM, NAME, LEN)  as gorc_elfsym_find
   (runtime/src/elfsym.h documents both).  The pieces they are made of
   serve tools/lib/symtab.c, which reads a file's symbols once to name many
   addresses: gorc_es_open_symbols (which table names a file's
   addresses), gorc_es_each_symbol and gorc_es_is_function (its
   symbols, those that can name an address) and
   gorc_es_alias_order (which of two aliases names their address).  */

#ifndef GORC_ELF_SYMBOLS_H
#define GORC_ELF_SYMBOLS_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gorc/symrank.h"

/* One ELF note of a buffer.  */
struct gorc_elf_note {
  uint32_t type;
  uint32_t namesz, descsz;   /* namesz counts the name's NUL */
  const char *name;
  const uint8_t *desc;
};

/* What gorc_elfsym_find found.  */
struct gorc_elfsym {
  uint64_t value;            /* the symbol's address in the file */
  uint64_t size;             /* 0 when the symbol has no size */
};

#define GORC_ES_PATH_LEN 1024      /* a debug file's path, built here */
#define GORC_ES_NAME_CMP 256       /* bytes of two aliases' names compared */
#define GORC_ES_NOTES_LEN 512      /* bytes of a note section searched for the build ID */
#define GORC_ES_SHDR_CHUNK 16      /* section headers read at a time */
#define GORC_ES_SYM_CHUNK 64       /* symbols read at a time */
#define GORC_ES_BUILD_ID_MAX 64

/* ------------------------------------------------------------ notes */

static inline int gorc_es_note_next(const uint8_t *buf, size_t len, size_t *pos,
                                    struct gorc_elf_note *n)
{
  size_t at = *pos;
  uint32_t w[3];
  if (at > len || len - at < sizeof w)
    return 0;
  memcpy(w, buf + at, sizeof w);
  uint64_t name_len = ((uint64_t)w[0] + 3) & ~3ull, desc_len = ((uint64_t)w[1] + 3) & ~3ull;
  size_t room = len - at - sizeof w;
  if (name_len > room || desc_len > room - name_len)
    return 0;
  n->namesz = w[0];
  n->descsz = w[1];
  n->type = w[2];
  n->name = (const char *)buf + at + sizeof w;
  n->desc = buf + at + sizeof w + name_len;
  *pos = at + sizeof w + name_len + desc_len;
  return 1;
}

/* ------------------------------------------------------------ the file */

struct gorc_es_elf_file {
  int fd;
  uint64_t size;
  uint64_t shoff;
  uint32_t shnum, shstrndx;
  /* The file's SIZE bytes where a reader that may allocate mapped them
     (the tools, naming many addresses: a pread each section name and
     chunk of headers was most of the time); NULL: read with pread, as
     the crash handler does.  */
  const uint8_t *image;
};

/* LEN bytes at OFF, all inside the file, or -1.  */
static inline int gorc_es_read_at(const struct gorc_es_elf_file *f, uint64_t off, void *buf,
                                  size_t len)
{
  if (off > f->size || len > f->size - off)
    return -1;
  if (f->image) {
    memcpy(buf, f->image + off, len);
    return 0;
  }
  size_t done = 0;
  while (done < len) {
    ssize_t r = pread(f->fd, (char *)buf + done, len - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    done += (size_t)r;
  }
  return 0;
}

/* Are SH's contents in the file?  */
static inline int gorc_es_in_file(const struct gorc_es_elf_file *f, const Elf64_Shdr *sh)
{
  return sh->sh_type != SHT_NOBITS && sh->sh_offset <= f->size
         && sh->sh_size <= f->size - sh->sh_offset;
}

/* Section header I.  */
static inline int gorc_es_section(const struct gorc_es_elf_file *f, uint32_t i, Elf64_Shdr *sh)
{
  if (i >= f->shnum)
    return -1;
  return gorc_es_read_at(f, f->shoff + (uint64_t)i * sizeof *sh, sh, sizeof *sh);
}

/* Open PATH if it is a 64-bit little-endian ELF file whose section
   headers lie in it.  */
static inline int gorc_es_elf_open(const char *path, struct gorc_es_elf_file *f)
{
  struct stat st;
  Elf64_Ehdr eh;
  Elf64_Shdr sh0;
  f->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (f->fd < 0)
    return -1;
  f->size = fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
  f->shoff = 0;
  f->shnum = 0;
  f->image = NULL;
  if (gorc_es_read_at(f, 0, &eh, sizeof eh) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0
      || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB
      || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff == 0)
    goto bad;
  f->shoff = eh.e_shoff;
  f->shnum = 1;
  f->shstrndx = eh.e_shstrndx;
  /* More than SHN_LORESERVE sections: the counts are in section 0.  */
  if (gorc_es_section(f, 0, &sh0) != 0)
    goto bad;
  uint64_t shnum = eh.e_shnum ? eh.e_shnum : sh0.sh_size;
  if (eh.e_shstrndx == SHN_XINDEX)
    f->shstrndx = sh0.sh_link;
  if (f->shoff > f->size || shnum > (f->size - f->shoff) / sizeof(Elf64_Shdr))
    goto bad;
  f->shnum = (uint32_t)shnum;
  return 0;
bad:
  close(f->fd);
  return -1;
}

/* Call VISIT with each section header of F until it returns nonzero;
   returns that, else 0.  */
typedef int (*gorc_es_section_visit)(const struct gorc_es_elf_file *f, const Elf64_Shdr *sh,
                                     void *ctx);

static inline int gorc_es_each_section(const struct gorc_es_elf_file *f,
                                       gorc_es_section_visit visit, void *ctx)
{
  Elf64_Shdr chunk[GORC_ES_SHDR_CHUNK];
  for (uint32_t i = 0; i < f->shnum; i += GORC_ES_SHDR_CHUNK) {
    uint32_t n = f->shnum - i < GORC_ES_SHDR_CHUNK ? f->shnum - i : GORC_ES_SHDR_CHUNK;
    if (gorc_es_read_at(f, f->shoff + (uint64_t)i * sizeof chunk[0], chunk,
                        n * sizeof chunk[0]) != 0)
      return 0;
    for (uint32_t k = 0; k < n; k++) {
      int r = visit(f, &chunk[k], ctx);
      if (r)
        return r;
    }
  }
  return 0;
}

/* String NAME of the string table STR into BUF (cut to LEN - 1 bytes).  */
static inline int gorc_es_read_name(const struct gorc_es_elf_file *f, const Elf64_Shdr *str,
                                    uint64_t name, char *buf,
                     size_t len)
{
  if (len == 0 || name >= str->sh_size)
    return -1;
  size_t n = str->sh_size - name < len - 1 ? (size_t)(str->sh_size - name) : len - 1;
  if (gorc_es_read_at(f, str->sh_offset + name, buf, n) != 0)
    return -1;
  buf[n] = 0;
  return 0;
}

/* ------------------------------------------------------------ tables */

struct gorc_es_table {
  uint32_t type;               /* SHT_SYMTAB or SHT_DYNSYM */
  Elf64_Shdr sym, str;
};

static inline int gorc_es_table_visit(const struct gorc_es_elf_file *f, const Elf64_Shdr *sh,
                                      void *ctx)
{
  struct gorc_es_table *t = ctx;
  if (sh->sh_type != t->type || sh->sh_size < sizeof(Elf64_Sym) || !gorc_es_in_file(f, sh)
      || (sh->sh_entsize != 0 && sh->sh_entsize != sizeof(Elf64_Sym)))
    return 0;
  if (gorc_es_section(f, sh->sh_link, &t->str) != 0 || t->str.sh_type != SHT_STRTAB
      || !gorc_es_in_file(f, &t->str))
    return 0;
  t->sym = *sh;
  return 1;
}

/* F's first symbol table of TYPE with its string table.  */
static inline int gorc_es_find_table(const struct gorc_es_elf_file *f, uint32_t type,
                                     struct gorc_es_table *t)
{
  t->type = type;
  return gorc_es_each_section(f, gorc_es_table_visit, t) ? 0 : -1;
}

/* ------------------------------------------------------------ choosing */

struct gorc_es_choice {
  uint64_t addr;
  int have_sized, have_unsized, have_before;
  Elf64_Sym sized;             /* the best sized symbol containing addr */
  Elf64_Sym unsized;           /* the best unsized symbol at or below addr */
  uint64_t before;             /* the greatest start of a sized symbol ending at or before addr */
};

/* Of two aliases (sized or not, binding, name): < 0 when A names their
   address, > 0 when B does; the rule of include/gorc/symrank.h on the
   names' first GORC_ES_NAME_CMP - 1 bytes, as much as this reader
   compares.  */
static inline int gorc_es_alias_order(int sized_a, unsigned bind_a, const char *name_a,
                                      int sized_b, unsigned bind_b, const char *name_b)
{
  char na[GORC_ES_NAME_CMP], nb[GORC_ES_NAME_CMP];
  size_t la = strnlen(name_a, sizeof na), lb = strnlen(name_b, sizeof nb);
  if (la < sizeof na && lb < sizeof nb)   /* nothing to cut */
    return gorc_sym_alias_order(sized_a, bind_a, name_a, sized_b, bind_b, name_b);
  la = la < sizeof na ? la : sizeof na - 1;
  lb = lb < sizeof nb ? lb : sizeof nb - 1;
  memcpy(na, name_a, la);
  na[la] = 0;
  memcpy(nb, name_b, lb);
  nb[lb] = 0;
  return gorc_sym_alias_order(sized_a, bind_a, na, sized_b, bind_b, nb);
}

/* Is A a better name than its alias B (same value, both sized or both
   not)?  */
static inline int gorc_es_better_alias(const struct gorc_es_elf_file *f, const Elf64_Shdr *str,
                                       const Elf64_Sym *a, const Elf64_Sym *b)
{
  char na[GORC_ES_NAME_CMP], nb[GORC_ES_NAME_CMP];
  unsigned bind_a = ELF64_ST_BIND(a->st_info), bind_b = ELF64_ST_BIND(b->st_info);
  if (gorc_sym_bind_rank(bind_a) != gorc_sym_bind_rank(bind_b))
    return gorc_sym_bind_rank(bind_a) > gorc_sym_bind_rank(bind_b);
  if (gorc_es_read_name(f, str, a->st_name, na, sizeof na) != 0)
    return 0;
  if (gorc_es_read_name(f, str, b->st_name, nb, sizeof nb) != 0)
    return 1;
  return gorc_es_alias_order(a->st_size != 0, bind_a, na, b->st_size != 0, bind_b, nb) < 0;
}

/* Is S better than BEST (HAVE: there is one) by value, then as an alias?  */
static inline int gorc_es_better(const struct gorc_es_elf_file *f, const Elf64_Shdr *str,
                                 const Elf64_Sym *s, int have,
                  const Elf64_Sym *best)
{
  if (!have || s->st_value > best->st_value)
    return 1;
  return s->st_value == best->st_value && gorc_es_better_alias(f, str, s, best);
}

/* Can S name an address: a defined, named function at a nonzero
   address?  */
static inline int gorc_es_is_function(const Elf64_Sym *s)
{
  int type = ELF64_ST_TYPE(s->st_info);
  return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF
         && s->st_value != 0 && s->st_name != 0;
}

/* Call VISIT with each symbol of table T of F and its index, in table
   order; -1 when the table cannot be read to its end, else 0.  */
typedef void (*gorc_es_symbol_visit)(const struct gorc_es_elf_file *f,
                                     const struct gorc_es_table *t, uint64_t index,
                                     const Elf64_Sym *s, void *ctx);

static inline int gorc_es_each_symbol(const struct gorc_es_elf_file *f,
                                      const struct gorc_es_table *t, gorc_es_symbol_visit visit,
                                      void *ctx)
{
  Elf64_Sym chunk[GORC_ES_SYM_CHUNK];
  uint64_t count = t->sym.sh_size / sizeof(Elf64_Sym);
  for (uint64_t i = 0; i < count; i += GORC_ES_SYM_CHUNK) {
    size_t n = count - i < GORC_ES_SYM_CHUNK ? (size_t)(count - i) : GORC_ES_SYM_CHUNK;
    if (gorc_es_read_at(f, t->sym.sh_offset + i * sizeof chunk[0], chunk, n * sizeof chunk[0]) != 0)
      return -1;
    for (size_t k = 0; k < n; k++)
      visit(f, t, i + k, &chunk[k], ctx);
  }
  return 0;
}

static inline void gorc_es_consider(const struct gorc_es_elf_file *f,
                                    const struct gorc_es_table *t, uint64_t index,
                                    const Elf64_Sym *s, void *ctx)
{
  struct gorc_es_choice *c = ctx;
  (void)index;
  if (!gorc_es_is_function(s) || s->st_value > c->addr)
    return;
  if (s->st_size && c->addr - s->st_value < s->st_size) {
    if (gorc_es_better(f, &t->str, s, c->have_sized, &c->sized)) {
      c->sized = *s;
      c->have_sized = 1;
    }
  } else if (s->st_size) {
    if (!c->have_before || s->st_value > c->before)
      c->before = s->st_value;
    c->have_before = 1;
  } else if (gorc_es_better(f, &t->str, s, c->have_unsized, &c->unsized)) {
    c->unsized = *s;
    c->have_unsized = 1;
  }
}

/* The symbol of ADDR in table T of F.  */
static inline int gorc_es_lookup_in(const struct gorc_es_elf_file *f,
                                    const struct gorc_es_table *t, uint64_t addr,
                                    struct gorc_elfsym *sym, char *name, size_t namelen)
{
  struct gorc_es_choice c;
  memset(&c, 0, sizeof c);
  c.addr = addr;
  if (gorc_es_each_symbol(f, t, gorc_es_consider, &c) != 0)
    return 0;
  const Elf64_Sym *best = c.have_sized ? &c.sized
                          : c.have_unsized && (!c.have_before || c.unsized.st_value > c.before)
                              ? &c.unsized
                              : NULL;
  if (!best || gorc_es_read_name(f, &t->str, best->st_name, name, namelen) != 0)
    return 0;
  sym->value = best->st_value;
  sym->size = best->st_size;
  return 1;
}

/* ------------------------------------------------------------ debug files */

struct gorc_es_build_id {
  uint8_t id[GORC_ES_BUILD_ID_MAX];
  uint32_t len;                /* 0: none */
};

static inline int gorc_es_build_id_visit(const struct gorc_es_elf_file *f, const Elf64_Shdr *sh,
                                         void *ctx)
{
  struct gorc_es_build_id *b = ctx;
  uint8_t buf[GORC_ES_NOTES_LEN];
  if (sh->sh_type != SHT_NOTE || !gorc_es_in_file(f, sh))
    return 0;
  size_t len = sh->sh_size < sizeof buf ? (size_t)sh->sh_size : sizeof buf, pos = 0;
  if (gorc_es_read_at(f, sh->sh_offset, buf, len) != 0)
    return 0;
  struct gorc_elf_note n;
  while (gorc_es_note_next(buf, len, &pos, &n))
    if (n.type == NT_GNU_BUILD_ID && n.namesz == 4 && memcmp(n.name, "GNU", 4) == 0
        && n.descsz >= 2 && n.descsz <= GORC_ES_BUILD_ID_MAX) {
      memcpy(b->id, n.desc, n.descsz);
      b->len = n.descsz;
      return 1;
    }
  return 0;
}

static inline void gorc_es_read_build_id(const struct gorc_es_elf_file *f,
                                         struct gorc_es_build_id *b)
{
  b->len = 0;
  gorc_es_each_section(f, gorc_es_build_id_visit, b);
}

/* Append S to OUT (LEN bytes used of GORC_ES_PATH_LEN), or -1 when it does not fit.  */
static inline int gorc_es_append(char *out, size_t *len, const char *s, size_t n)
{
  if (n >= GORC_ES_PATH_LEN - *len)
    return -1;
  memcpy(out + *len, s, n);
  *len += n;
  out[*len] = 0;
  return 0;
}

/* /usr/lib/debug/.build-id/xx/yyyy.debug: where Debian's -dbg and
   -dbgsym packages put them.  */
static inline void gorc_es_build_id_path(const struct gorc_es_build_id *b, char *out)
{
  static const char hex[] = "0123456789abcdef";
  size_t len = 0;
  gorc_es_append(out, &len, "/usr/lib/debug/.build-id/", 25);
  for (uint32_t i = 0; i < b->len; i++) {
    char two[2] = { hex[b->id[i] >> 4], hex[b->id[i] & 15] };
    gorc_es_append(out, &len, two, 2);
    if (i == 0)
      gorc_es_append(out, &len, "/", 1);
  }
  gorc_es_append(out, &len, ".debug", 6);
}

struct gorc_es_debuglink {
  Elf64_Shdr shstr;
  char name[256];
};

static inline int gorc_es_debuglink_visit(const struct gorc_es_elf_file *f,
                                          const Elf64_Shdr *sh, void *ctx)
{
  static const char want[] = ".gnu_debuglink";
  struct gorc_es_debuglink *d = ctx;
  char nm[sizeof want + 1];   /* one more: a longer name does not match */
  if (sh->sh_type != SHT_PROGBITS || !gorc_es_in_file(f, sh)
      || gorc_es_read_name(f, &d->shstr, sh->sh_name, nm, sizeof nm) != 0 || strcmp(nm, want) != 0)
    return 0;
  /* the file name, NUL-terminated, then padding and a CRC */
  size_t len = sh->sh_size < sizeof d->name ? (size_t)sh->sh_size : sizeof d->name;
  if (gorc_es_read_at(f, sh->sh_offset, d->name, len) != 0 || strnlen(d->name, len) == len
      || d->name[0] == 0 || strchr(d->name, '/'))
    return -1;
  return 1;
}

/* The file name F's .gnu_debuglink names, into D->name.  */
static inline int gorc_es_read_debuglink(const struct gorc_es_elf_file *f,
                                         struct gorc_es_debuglink *d)
{
  if (gorc_es_section(f, f->shstrndx, &d->shstr) != 0 || !gorc_es_in_file(f, &d->shstr))
    return -1;
  return gorc_es_each_section(f, gorc_es_debuglink_visit, d) == 1 ? 0 : -1;
}

/* Candidate K (0, 1, 2) for the debug file NAME of PATH, as gdb looks:
   DIR/NAME, DIR/.debug/NAME, /usr/lib/debug/DIR/NAME.  */
static inline int gorc_es_debuglink_path(const char *path, const char *name, int k, char *out)
{
  const char *slash = strrchr(path, '/');
  size_t len = 0;
  out[0] = 0;
  if (k == 2 && (path[0] != '/' || gorc_es_append(out, &len, "/usr/lib/debug", 14) != 0))
    return -1;
  if (slash ? gorc_es_append(out, &len, path, (size_t)(slash - path)) : gorc_es_append(out,
                                                                                       &len,
                                                                                          ".", 1))
    return -1;
  if (gorc_es_append(out, &len, k == 1 ? "/.debug/" : "/", k == 1 ? 8 : 1) != 0)
    return -1;
  return gorc_es_append(out, &len, name, strlen(name));
}

/* Open the debug file CANDIDATE into F with its .symtab in T, if it has
   one and the build ID ID (when known) is its.  */
static inline int gorc_es_open_candidate(const char *candidate,
                                         const struct gorc_es_build_id *id,
                                         struct gorc_es_elf_file *f, struct gorc_es_table *t)
{
  struct gorc_es_build_id other;
  if (gorc_es_elf_open(candidate, f) != 0)
    return -1;
  if (id->len) {
    gorc_es_read_build_id(f, &other);
    if (other.len != id->len || memcmp(other.id, id->id, id->len) != 0)
      goto bad;
  }
  if (gorc_es_find_table(f, SHT_SYMTAB, t) == 0)
    return 0;
bad:
  close(f->fd);
  return -1;
}

/* Open the separate debug file of F (at PATH) into DEBUG with its
   .symtab in T, if there is one.  */
static inline int gorc_es_open_debug_file(const struct gorc_es_elf_file *f, const char *path,
                                          struct gorc_es_elf_file *debug,
                                          struct gorc_es_table *t)
{
  struct gorc_es_build_id id;
  struct gorc_es_debuglink link;
  char candidate[GORC_ES_PATH_LEN];
  gorc_es_read_build_id(f, &id);
  if (id.len) {
    gorc_es_build_id_path(&id, candidate);
    if (gorc_es_open_candidate(candidate, &id, debug, t) == 0)
      return 0;
  }
  if (gorc_es_read_debuglink(f, &link) != 0)
    return -1;
  for (int k = 0; k < 3; k++)
    if (gorc_es_debuglink_path(path, link.name, k, candidate) == 0 && strcmp(candidate, path) != 0
        && gorc_es_open_candidate(candidate, &id, debug, t) == 0)
      return 0;
  return -1;
}

/* ------------------------------------------------------------ the lookup */

/* The symbol table T that names the addresses of the ELF file PATH,
   open in F: F's .symtab (0), else its separate debug file's, opened
   into DEBUG (1: the caller closes DEBUG->fd), else F's .dynsym (0);
   -1 when there is none.  */
static inline int gorc_es_choose_symbols(const struct gorc_es_elf_file *f, const char *path,
                                         struct gorc_es_elf_file *debug,
                                         struct gorc_es_table *t)
{
  if (gorc_es_find_table(f, SHT_SYMTAB, t) == 0)
    return 0;
  if (gorc_es_open_debug_file(f, path, debug, t) == 0)
    return 1;
  return gorc_es_find_table(f, SHT_DYNSYM, t) == 0 ? 0 : -1;
}

/* Open into F the file whose symbol table T names the addresses of the
   ELF file PATH (gorc_es_choose_symbols).  -1 when there is none; else
   the caller closes F.fd.  */
static inline int gorc_es_open_symbols(const char *path, struct gorc_es_elf_file *f,
                                       struct gorc_es_table *t)
{
  struct gorc_es_elf_file debug;
  if (gorc_es_elf_open(path, f) != 0)
    return -1;
  int in = gorc_es_choose_symbols(f, path, &debug, t);
  if (in != 0)
    close(f->fd);
  if (in == 1)
    *f = debug;
  return in >= 0 ? 0 : -1;
}

static inline int gorc_es_find(const char *path, uint64_t addr, struct gorc_elfsym *sym,
                               char *name, size_t namelen)
{
  struct gorc_es_elf_file f;
  struct gorc_es_table t;
  if (namelen == 0 || gorc_es_open_symbols(path, &f, &t) != 0)
    return 0;
  int found = gorc_es_lookup_in(&f, &t, addr, sym, name, namelen);
  close(f.fd);
  return found;
}

#endif /* GORC_ELF_SYMBOLS_H */
