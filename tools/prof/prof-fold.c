/* gorc-prof: samples to folded stacks (see prof-fold.h).

   Symbols: each file's .symtab (else its separate debug file's, else
   .dynsym), chosen by the crash handler's reader
   (include/gorc/elf_symbols.h); every address the samples met is
   collected first, then each file's are named in one pass over its
   table (gorc_symtab_name_each).  Kernel frames are named from
   /proc/kallsyms (prof-kernel.c).  */

#define _GNU_SOURCE
#include "prof-fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof-kernel.h"
#include "symtab.h"

/* libstdc++'s demangler (cp-demangle.o, linked from GCC's libsupc++.a:
   loading libstdc++.so for it took about 0.6 ms of every run's start-up).  */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

uint64_t prof_hash(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
  return h;
}

/* ---- symbols ---- */

/* NAME for display: a symbol version ("@@GLIBC_2.34") cut, C++ demangled;
   a PLT stub's "@plt" (symtab.h) kept after its demangled name.  */
static const char *demangle(const char *sym)
{
  static const char plt[] = "@plt";
  char *name = prof_xstrdup(sym), *at = strchr(name, '@');
  int is_plt = at && strcmp(at, plt) == 0;
  if (at && at != name)
    *at = 0;
  if (name[0] == '_' && name[1] == 'Z') {
    int status = 0;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (d && status == 0) {
      free(name);
      name = d;
    } else {
      free(d);
    }
  }
  if (is_plt) {
    size_t n = strlen(name);
    name = prof_xrealloc(name, n + sizeof plt);
    memcpy(name + n, plt, sizeof plt);
  }
  return name;
}

/* An address of a file that a frame met, and its display name.  */
struct sym_slot {
  uint64_t rel;              /* in the file's numbering */
  int used, named;
  const char *name;          /* NULL: no symbol */
};

/* The addresses of one file that frames met, by open addressing: every
   one is met before any is named (prof_fold), so that the file's
   symbols are read in one pass, for those only.  */
struct file_syms {
  char *path;
  struct sym_slot *slots;
  size_t nslots, count;
  struct file_syms *next;
};

static struct file_syms *files;

static struct file_syms *file_syms_of(const char *path)
{
  for (struct file_syms *f = files; f; f = f->next)
    if (strcmp(f->path, path) == 0)
      return f;
  struct file_syms *f = prof_xmalloc(sizeof *f);
  memset(f, 0, sizeof *f);
  f->path = prof_xstrdup(path);
  f->next = files;
  files = f;
  return f;
}

static struct sym_slot *slot_find(struct sym_slot *slots, size_t nslots, uint64_t rel)
{
  size_t j = (size_t)((rel ^ rel >> 12) * 0x9e3779b97f4a7c15ULL >> 32) & (nslots - 1);
  while (slots[j].used && slots[j].rel != rel)
    j = (j + 1) & (nslots - 1);
  return &slots[j];
}

/* The slot of REL in F, made when new.  */
static struct sym_slot *file_meet(struct file_syms *f, uint64_t rel)
{
  if (f->count * 2 >= f->nslots) {
    size_t ns = f->nslots ? f->nslots * 2 : 64;
    struct sym_slot *slots = prof_xmalloc(ns * sizeof *slots);
    memset(slots, 0, ns * sizeof *slots);
    for (size_t i = 0; i < f->nslots; i++)
      if (f->slots[i].used)
        *slot_find(slots, ns, f->slots[i].rel) = f->slots[i];
    free(f->slots);
    f->slots = slots;
    f->nslots = ns;
  }
  struct sym_slot *s = slot_find(f->slots, f->nslots, rel);
  if (!s->used) {
    s->used = 1;
    s->rel = rel;
    f->count++;
  }
  return s;
}

static int rel_cmp(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Every address of F met and not named yet, named: one pass over the
   file's symbols (gorc_symtab_name_each).  */
static void file_name(struct file_syms *f)
{
  uint64_t *rels = prof_xmalloc((f->count ? f->count : 1) * sizeof *rels);
  size_t n = 0;
  for (size_t i = 0; i < f->nslots; i++)
    if (f->slots[i].used && !f->slots[i].named)
      rels[n++] = f->slots[i].rel;
  prof_sort(rels, n, sizeof *rels, rel_cmp);
  char **names = prof_xmalloc((n ? n : 1) * sizeof *names);
  if (gorc_symtab_name_each(prof_module_file(f->path), rels, n, names) != 0) {
    fprintf(stderr, "gorc-prof: out of memory reading the symbols of %s\n", f->path);
    exit(2);
  }
  for (size_t i = 0; i < n; i++) {
    struct sym_slot *s = slot_find(f->slots, f->nslots, rels[i]);
    s->named = 1;
    s->name = names[i] ? demangle(names[i]) : NULL;
    free(names[i]);
  }
  free(names);
  free(rels);
}

/* The slot of REL in the ELF file PATH, named: its name NULL where no
   symbol names it.  */
static struct sym_slot *symbol_slot(const char *path, uint64_t rel)
{
  struct file_syms *f = file_syms_of(path);
  struct sym_slot *s = file_meet(f, rel);
  if (!s->named) {
    file_name(f);
    s = slot_find(f->slots, f->nslots, rel);
  }
  return s;
}

/* The file that names the frames of span S: its module's (a file
   replaced since: a copy of what the module read), or NULL.  */
static const char *names_file(const struct prof_span *s)
{
  return s->mod ? prof_module_names_file(s->mod) : s->name;
}

const char *prof_frame_name(const struct prof_proc *p, uint64_t pc, uint64_t time, char *tmp,
                            size_t tmplen)
{
  const struct prof_span *m = prof_span_of(p, pc, time);
  if (!m)
    return "[unknown]";
  const char *file = names_file(m), *base = strrchr(m->name, '/');
  base = base ? base + 1 : m->name;
  struct sym_slot *s = file ? symbol_slot(file, pc - m->base) : NULL;
  uint64_t entry;
  if (s && !s->name && m->mod && prof_module_function(m->mod, pc - m->base, &entry)) {
    /* no symbol (a stripped file): the function by its entry, as its
       CFI gives it, kept as the address's name */
    snprintf(tmp, tmplen, "[%s]+0x%llx", base, (unsigned long long)entry);
    s->name = prof_xstrdup(tmp);
  }
  if (s && s->name)
    return s->name;
  snprintf(tmp, tmplen, "[%s]", base);
  return tmp;
}

/* The names of one process's addresses met so far: most frames are at
   addresses met before, and finding a name (its mapping, its file's
   table of addresses) costs more than the rest of folding it.
   Direct-mapped by address; a made-up name (in TMP) is not kept.  */
#define NAME_CACHE_SIZE 1024

struct name_cache {
  uint64_t pc[NAME_CACHE_SIZE];
  const char *name[NAME_CACHE_SIZE];  /* NULL: empty */
};

/* (Not for a process whose addresses name other code at other times.)  */
static const char *cached_name(struct name_cache *c, const struct prof_proc *p, uint64_t pc,
                               uint64_t time, char *tmp, size_t tmplen)
{
  size_t i = (pc ^ pc >> 12) & (NAME_CACHE_SIZE - 1);
  if (p->spans_overlap)
    return prof_frame_name(p, pc, time, tmp, tmplen);
  if (c->name[i] && c->pc[i] == pc)
    return c->name[i];
  const char *name = prof_frame_name(p, pc, time, tmp, tmplen);
  if (name != tmp) {
    c->pc[i] = pc;
    c->name[i] = name;
  }
  return name;
}

/* The address that names frame F of sample S of P: a caller's frame by
   its call (the return address - 1); the innermost kernel frame and the
   innermost user frame as they are (where the kernel was interrupted,
   and where the user code was: the instruction after a system call's,
   or one that faulted).  */
static uint64_t frame_pc(const struct prof_proc *p, const struct prof_sample *s, uint32_t f)
{
  uint64_t ip = p->ips[s->at + f];
  return f == 0 || f == s->nkernel ? ip : ip - 1;
}

/* The frame addresses of one process met so far (plus one; 0: empty),
   direct-mapped as the names are.  */
struct pc_seen {
  uint64_t pc1[NAME_CACHE_SIZE];
};

/* Every address the samples of D name met in its file (file_meet), or
   in the kernel (prof_kernel_meet), then every file's addresses named at
   once.  */
static void meet_frames(const struct prof_data *d, struct pc_seen *seen)
{
  for (size_t i = 0; i < d->nprocs; i++) {
    const struct prof_proc *p = &d->procs[i];
    if (p->nsamples)
      memset(seen, 0, sizeof *seen);
    for (size_t k = 0; k < p->nsamples; k++) {
      const struct prof_sample *s = &p->samples[k];
      for (uint32_t f = 0; f < s->nkernel; f++)
        prof_kernel_meet(frame_pc(p, s, f));
      for (uint32_t f = s->nkernel; f < s->n; f++) {
        uint64_t pc = frame_pc(p, s, f);
        uint64_t *slot = &seen->pc1[(pc ^ pc >> 12) & (NAME_CACHE_SIZE - 1)];
        if (*slot == pc + 1 && !p->spans_overlap)
          continue;
        *slot = pc + 1;
        const struct prof_span *m = prof_span_of(p, pc, s->time);
        const char *file = m ? names_file(m) : NULL;
        if (file)
          file_meet(file_syms_of(file), pc - m->base);
      }
    }
  }
  for (struct file_syms *f = files; f; f = f->next)
    file_name(f);
}

/* How sample S of P ended, as every output says it.  A sample in an
   exec (under the execve or execveat system call's kernel frame) whose
   user walk stopped at its first frame was taken after the kernel
   replaced the process's mappings (exec_mmap; the old ones' freeing
   that follows is most of an exec's time): the user registers are the
   old program's until the new one starts, and its stack is gone.  The
   walk could not go on, whatever it said (no table, an empty copy, no
   unwind information): PROF_WALK_EXEC.  */
static int32_t sample_end(const struct prof_proc *p, const struct prof_sample *s)
{
  if (s->end >= 0 || s->n != s->nkernel + 1)
    return s->end;
  for (uint32_t f = 0; f < s->nkernel; f++)
    if (strstr(prof_kernel_name(p->ips[s->at + f]), "_sys_execve"))
      return PROF_WALK_EXEC;
  return s->end;
}

static void stack_line(struct prof_text *l, const struct prof_proc *p, const struct prof_sample *s)
{
  char tid_end[32];
  prof_text_uint(l, s->time, 10);
  prof_text_put(l, tid_end, (size_t)snprintf(tid_end, sizeof tid_end, " %u %d ", s->tid,
                                             (int)sample_end(p, s)));
  for (uint32_t fr = s->nkernel; fr < s->n; fr++) {
    /* a caller's frame is its call: the return address - 1 (a
       callchain's addresses are printed as they are, as perf does) */
    uint64_t ip = p->ips[s->at + fr] - (fr > s->nkernel && s->end != PROF_WALK_CALLCHAIN);
    const struct prof_span *m = prof_span_of(p, ip, s->time);
    if (fr > s->nkernel)
      prof_text_put(l, ";", 1);
    if (!m) {
      prof_text_put(l, "?", 1);
      continue;
    }
    const char *base = strrchr(m->name, '/');
    base = base ? base + 1 : m->name;
    prof_text_put(l, base, strlen(base));
    prof_text_put(l, "+", 1);
    prof_text_uint(l, ip - m->base, 16);
  }
}

int prof_write_stacks(const char *path, const struct prof_data *d)
{
  FILE *f = prof_create(path);
  struct prof_text l = { NULL, 0, 0 };
  if (!f)
    return -1;
  for (size_t i = 0; i < d->nprocs; i++) {
    const struct prof_proc *p = &d->procs[i];
    for (size_t k = 0; k < p->nsamples; k++) {
      if (p->samples[k].n == p->samples[k].nkernel)
        continue;
      l.len = 0;
      stack_line(&l, p, &p->samples[k]);
      prof_text_put(&l, "\n", 1);
      fwrite(l.buf, 1, l.len, f);
    }
  }
  free(l.buf);
  return fclose(f);
}

/* ---- folding ---- */

/* The distinct stacks, by open addressing: 256 slots at first (4 KB;
   a small profile has tens of stacks), doubled at half full.  */
struct fold_table {
  struct prof_folded *v;
  size_t cap, count;
};

static size_t fold_hash(const char *stack, pid_t pid, uint32_t tid)
{
  return (size_t)(prof_hash(stack) ^ ((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ULL)
                  ^ ((uint64_t)tid << 17));
}

static void fold_add(struct fold_table *t, const char *stack, const struct prof_proc *p,
                     uint32_t tid)
{
  if (t->count * 2 >= t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 256;
    struct prof_folded *n = calloc(ncap, sizeof *n);
    if (!n) {
      fprintf(stderr, "gorc-prof: out of memory\n");
      exit(2);
    }
    for (size_t i = 0; i < t->cap; i++)
      if (t->v[i].stack) {
        size_t j = fold_hash(t->v[i].stack, t->v[i].pid, t->v[i].tid) & (ncap - 1);
        while (n[j].stack)
          j = (j + 1) & (ncap - 1);
        n[j] = t->v[i];
      }
    free(t->v);
    t->v = n;
    t->cap = ncap;
  }
  size_t j = fold_hash(stack, p->pid, tid) & (t->cap - 1);
  while (t->v[j].stack && (t->v[j].pid != p->pid || t->v[j].tid != tid
                           || strcmp(t->v[j].stack, stack) != 0))
    j = (j + 1) & (t->cap - 1);
  if (!t->v[j].stack) {
    t->v[j].stack = prof_xstrdup(stack);
    t->v[j].pid = p->pid;
    t->v[j].tid = tid;
    t->v[j].comm = p->comm;
    t->count++;
  }
  t->v[j].count++;
}

/* Append NAME to the stack text, with ';' (the separator) replaced.  */
static void append_frame(char **buf, size_t *len, size_t *cap, const char *name)
{
  size_t n = strlen(name);
  *buf = prof_xgrow(*buf, cap, *len + n + 2, 1, 1024, SIZE_MAX);
  if (*len)
    (*buf)[(*len)++] = ';';
  for (size_t i = 0; i < n; i++)
    (*buf)[(*len)++] = name[i] == ';' ? ':' : name[i];
  (*buf)[*len] = 0;
}

/* The root a stack that did not reach its outermost frame gets in the
   flame graph, and the count it goes to.  */
static const char *end_root(int32_t end, struct prof_fold_counts *c)
{
  if (end == PROF_WALK_COMPLETE) {
    c->complete++;
    return NULL;
  }
  if (end == PROF_WALK_CALLCHAIN) {
    c->callchain++;
    return NULL;
  }
  if (end == PROF_WALK_KERNEL) {
    c->kernel_only++;
    return NULL;
  }
  if (end == PROF_WALK_DEEPER) {
    c->deeper++;
    return "[deeper]";
  }
  if (end == PROF_WALK_TRUNCATED) {
    c->truncated++;
    return "[truncated]";
  }
  if (end == PROF_WALK_NO_TABLE) {
    c->no_table++;
    return "[no table yet]";
  }
  if (end == PROF_WALK_EXEC) {
    c->exec++;
    return "[exec]";
  }
  c->incomplete++;
  return "[incomplete]";
}

static void fold_sample(struct fold_table *t, struct name_cache *names, const struct prof_proc *p,
                        const struct prof_sample *s, struct prof_fold_counts *c, char **buf,
                        size_t *cap)
{
  char tmp[512];
  size_t len = 0;
  if (*buf)
    (*buf)[0] = 0;
  const char *root = end_root(sample_end(p, s), c);
  if (root)
    append_frame(buf, &len, cap, root);
  if (s->n == 0)
    append_frame(buf, &len, cap, "[unknown]");
  c->kernel_frames += s->nkernel > 0;
  for (uint32_t f = s->n; f-- > 0;) {
    uint64_t pc = frame_pc(p, s, f);
    const char *name = f < s->nkernel ? prof_kernel_name(pc)
                                      : cached_name(names, p, pc, s->time, tmp, sizeof tmp);
    /* the thread-start trampoline of libgorc (runtime/src/thread.c) is not the program's */
    if (strcmp(name, "gorc_rt_thread_start") == 0 && f > 0)
      continue;
    append_frame(buf, &len, cap, name);
  }
  fold_add(t, *buf, p, s->tid);
}

static int folded_cmp(const void *a, const void *b)
{
  const struct prof_folded *x = a, *y = b;
  int c = strcmp(x->stack, y->stack);
  if (c)
    return c;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct prof_folded *prof_fold(const struct prof_data *d, size_t *n, struct prof_fold_counts *c)
{
  struct fold_table t = { NULL, 0, 0 };
  char *buf = NULL;
  size_t cap = 0;
  struct pc_seen *seen = prof_xmalloc(sizeof *seen);
  meet_frames(d, seen);
  free(seen);
  struct name_cache *names = prof_xmalloc(sizeof *names);
  memset(c, 0, sizeof *c);
  for (size_t i = 0; i < d->nprocs; i++) {
    if (d->procs[i].nsamples)
      memset(names->name, 0, sizeof names->name);
    for (size_t k = 0; k < d->procs[i].nsamples; k++)
      fold_sample(&t, names, &d->procs[i], &d->procs[i].samples[k], c, &buf, &cap);
  }
  free(names);
  free(buf);
  struct prof_folded *list = prof_xmalloc((t.count ? t.count : 1) * sizeof *list);
  size_t nl = 0;
  for (size_t k = 0; k < t.cap; k++)
    if (t.v[k].stack)
      list[nl++] = t.v[k];
  free(t.v);
  prof_sort(list, nl, sizeof *list, folded_cmp);
  *n = nl;
  return list;
}

void prof_folded_free(struct prof_folded *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(f[i].stack);
  free(f);
}
