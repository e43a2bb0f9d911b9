/* gorc tools: a file's function symbols, sorted (see symtab.h).  */

#define _GNU_SOURCE
#include "symtab.h"

#include <stdlib.h>
#include <string.h>

#include "gorc/elf_symbols.h"

struct load {
  struct gorc_symtab *st;
  uint64_t strings_len;      /* bytes of st->strings before its last NUL */
  size_t cap;
  int out_of_memory;
};

static void keep_function(const struct gorc_es_elf_file *f, const struct gorc_es_table *t,
                          const Elf64_Sym *s, void *ctx)
{
  struct load *l = ctx;
  (void)f;
  (void)t;
  if (l->out_of_memory || s->st_name >= l->strings_len)
    return;
  if (l->st->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 1024;
    struct gorc_symtab_entry *v = realloc(l->st->v, cap * sizeof *v);
    if (!v) {
      l->out_of_memory = 1;
      return;
    }
    l->st->v = v;
    l->cap = cap;
  }
  l->st->v[l->st->n++] = (struct gorc_symtab_entry){
    .value = s->st_value, .size = s->st_size,
    .name = l->st->strings + s->st_name, .bind = (unsigned char)ELF64_ST_BIND(s->st_info),
  };
}

static int entry_order(const void *pa, const void *pb)
{
  const struct gorc_symtab_entry *a = pa, *b = pb;
  if (a->value != b->value)
    return a->value < b->value ? -1 : 1;
  if (!a->size != !b->size)
    return a->size ? -1 : 1;
  return gorc_es_alias_order(a->size != 0, a->bind, a->name, b->size != 0, b->bind, b->name);
}

/* Read T's strings and function symbols from F into ST.  */
static int read_table(struct gorc_symtab *st, const struct gorc_es_elf_file *f,
                      const struct gorc_es_table *t)
{
  struct load l = { st, t->str.sh_size, 0, 0 };
  st->strings = malloc(t->str.sh_size + 1);
  if (!st->strings)
    return -1;
  st->strings[t->str.sh_size] = 0;
  /* Unreadable: no symbol, as the crash handler finds none.  */
  if (gorc_es_read_at(f, t->str.sh_offset, st->strings, t->str.sh_size) != 0
      || gorc_es_each_function(f, t, keep_function, &l) != 0)
    st->n = 0;
  return l.out_of_memory ? -1 : 0;
}

int gorc_symtab_load(struct gorc_symtab *st, const char *path)
{
  struct gorc_es_elf_file f;
  struct gorc_es_table t;
  memset(st, 0, sizeof *st);
  if (gorc_es_open_symbols(path, &f, &t) != 0)
    return 0;
  int r = read_table(st, &f, &t);
  close(f.fd);
  if (r != 0) {
    gorc_symtab_free(st);
    return -1;
  }
  qsort(st->v, st->n, sizeof *st->v, entry_order);
  uint64_t reach = 0;
  for (size_t i = 0; i < st->n; i++) {
    const struct gorc_symtab_entry *e = &st->v[i];
    uint64_t end = e->size > UINT64_MAX - e->value ? UINT64_MAX : e->value + e->size;
    if (end > reach)
      reach = end;
    st->v[i].reach = reach;
  }
  return 0;
}

void gorc_symtab_free(struct gorc_symtab *st)
{
  free(st->v);
  free(st->strings);
  memset(st, 0, sizeof *st);
}

static int contains(const struct gorc_symtab_entry *e, uint64_t addr)
{
  return e->size && addr - e->value < e->size;
}

/* As gorc_es_lookup_in chooses: the sized symbol containing ADDR with the
   greatest value, else the unsized one with the greatest value at or
   below ADDR unless a sized symbol starts there too or after it.  */
const struct gorc_symtab_entry *gorc_symtab_find(const struct gorc_symtab *st, uint64_t addr)
{
  size_t lo = 0, hi = st->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (st->v[mid].value <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  size_t last = lo - 1;   /* the last entry at or below addr */
  for (size_t k = lo; k-- > 0 && st->v[k].reach > addr;)
    if (contains(&st->v[k], addr)) {
      /* the best alias at that value that contains addr too */
      size_t best = k;
      for (size_t j = k; j > 0 && st->v[j - 1].value == st->v[k].value; j--)
        if (contains(&st->v[j - 1], addr))
          best = j - 1;
      return &st->v[best];
    }
  /* No sized symbol contains addr: the greatest value at or below it
     names it only if no sized symbol starts there (the sized sort first).  */
  size_t first = last;
  while (first > 0 && st->v[first - 1].value == st->v[last].value)
    first--;
  return st->v[first].size ? NULL : &st->v[first];
}
