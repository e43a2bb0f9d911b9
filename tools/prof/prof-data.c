/* gorc-prof: the samples of a profile (see prof-data.h).  */

#define _GNU_SOURCE
#include "prof-data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mapped.h"

void *prof_xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "gorc-prof: out of memory\n");
    exit(2);
  }
  return p;
}

uint8_t *prof_read_whole(int fd, size_t len)
{
  uint8_t *buf = prof_xmalloc(len ? len : 1);
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  if (got == len)
    return buf;
  free(buf);
  return NULL;
}

void *prof_xrealloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (!p) {
    fprintf(stderr, "gorc-prof: out of memory\n");
    exit(2);
  }
  return p;
}

void prof_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
  /* Most callers' arrays come sorted, or nearly (a table's rows, read in
     address order): a pass to see it is cheaper than qsort's.  */
  const char *p = v;
  size_t i = 1;
  while (i < n && cmp(p + (i - 1) * size, p + i * size) <= 0)
    i++;
  if (i < n)
    qsort(v, n, size, cmp);
}

FILE *prof_create(const char *path)
{
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
    unlink(path);
  return fopen(path, "w");
}

char *prof_xstrdup(const char *s)
{
  size_t n = strlen(s) + 1;
  return memcpy(prof_xmalloc(n), s, n);
}

struct prof_proc *prof_proc_find(struct prof_data *d, pid_t pid)
{
  for (size_t i = d->nprocs; i-- > 0;)
    if (d->procs[i].pid == pid && !d->procs[i].ended)
      return &d->procs[i];
  return NULL;
}

struct prof_proc *prof_proc_get(struct prof_data *d, pid_t pid)
{
  struct prof_proc *p = prof_proc_find(d, pid);
  if (p)
    return p;
  d->procs = prof_xgrow(d->procs, &d->cap_procs, d->nprocs + 1, sizeof *d->procs, 16, SIZE_MAX);
  p = &d->procs[d->nprocs++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  return p;
}

struct prof_proc *prof_proc_of_sample(struct prof_data *d, pid_t pid, pid_t tid)
{
  for (size_t i = d->nprocs; tid != pid && i-- > 0;)
    if (d->procs[i].pid == pid)
      return &d->procs[i];
  return prof_proc_get(d, pid);
}

/* Is process PID's root another than gorc-prof's?  */
static int root_differs(pid_t pid)
{
  char root[64];
  struct stat theirs, ours;
  snprintf(root, sizeof root, "/proc/%d/root", (int)pid);
  return stat(root, &theirs) == 0 && stat("/", &ours) == 0
         && (theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino);
}

const char *prof_proc_file(const struct prof_data *d, const struct prof_proc *p,
                           const char *path, const struct prof_file_id *id)
{
  char in_root[PATH_MAX + 64], key[64];
  struct stat st;
  /* (inodes only: btrfs gives stat another device than the kernel's
     mapping records) */
  if (!d->live || !id || path[0] != '/')
    return path;
  if (stat(path, &st) == 0 && st.st_ino == id->ino) {
    prof_modules_path_changed(path, &st);
    return path;
  }
  snprintf(in_root, sizeof in_root, "/proc/%d/root%s", (int)p->pid, path);
  if (stat(in_root, &st) != 0 || (st.st_ino != id->ino && !root_differs(p->pid)))
    return NULL;
  snprintf(key, sizeof key, "%02x:%02x:%llu", id->major, id->minor, (unsigned long long)id->ino);
  return prof_modules_save(in_root, key, strrchr(path, '/') + 1);
}

void prof_proc_add_tid(struct prof_proc *p, uint32_t tid)
{
  for (size_t i = 0; i < p->ntids; i++)
    if (p->tids[i] == tid)
      return;
  p->tids = prof_xrealloc(p->tids, (p->ntids + 1) * sizeof *p->tids);
  p->tids[p->ntids++] = tid;
}

void prof_proc_add_span(struct prof_proc *p, uint64_t base, uint64_t lo, uint64_t hi,
                        const char *name, const struct prof_module *mod, uint64_t time)
{
  /* the same mapping again (a re-read of the maps, a library mapped
     anew where it was) is the one there, unless another was mapped
     over it since */
  for (size_t i = p->nspans; i-- > 0;) {
    const struct prof_span *o = &p->spans[i];
    if (o->lo >= hi || lo >= o->hi)
      continue;
    int same_file = o->base == base && o->mod == mod && strcmp(o->name, name) == 0;
    if (same_file && o->lo == lo && o->hi == hi)
      return;
    if (!same_file)
      p->spans_overlap = 1;
    break;
  }
  p->spans = prof_xrealloc(p->spans, (p->nspans + 1) * sizeof *p->spans);
  struct prof_span *s = &p->spans[p->nspans++];
  s->base = base;
  s->lo = lo;
  s->hi = hi;
  s->time = time;
  s->name = prof_xstrdup(name);
  s->mod = mod;
}

const struct prof_span *prof_span_of(const struct prof_proc *p, uint64_t pc, uint64_t time)
{
  const struct prof_span *later = NULL;
  for (size_t i = p->nspans; i-- > 0;) {
    const struct prof_span *s = &p->spans[i];
    if (pc < s->lo || pc >= s->hi)
      continue;
    if (s->time <= time)
      return s;
    later = s;
  }
  return later;
}

void *prof_xgrow(void *v, size_t *cap, size_t min, size_t size, size_t first, size_t huge)
{
  v = gorc_grow_array(v, cap, min, size, first, huge);
  if (!v) {
    fprintf(stderr, "gorc-prof: out of memory\n");
    exit(2);
  }
  return v;
}

void prof_text_put(struct prof_text *t, const char *s, size_t n)
{
  t->buf = prof_xgrow(t->buf, &t->cap, t->len + n, 1, 256, SIZE_MAX);
  memcpy(t->buf + t->len, s, n);
  t->len += n;
}

void prof_text_uint(struct prof_text *t, unsigned long long v, unsigned base)
{
  char buf[24];
  size_t at = sizeof buf;
  do {
    buf[--at] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  prof_text_put(t, buf + at, sizeof buf - at);
}

static uint64_t stack_hash(const uint64_t *kips, uint32_t nkernel, const uint64_t *uips,
                           uint32_t nuser)
{
  uint64_t h = (uint64_t)nkernel << 32 | nuser;
  for (uint32_t i = 0; i < nkernel; i++)
    h = (h ^ kips[i]) * 0x9e3779b97f4a7c15ull;
  for (uint32_t i = 0; i < nuser; i++)
    h = (h ^ uips[i]) * 0x9e3779b97f4a7c15ull;
  return h ^ h >> 31;
}

/* SLOT's stack as the frames KIPS then UIPS?  */
static int stack_is(const struct prof_proc *p, const struct prof_stack_slot *slot,
                    const uint64_t *kips, uint32_t nkernel, const uint64_t *uips, uint32_t nuser)
{
  const uint64_t *ips = p->ips + slot->at_plus_one - 1;
  return slot->nkernel == nkernel && slot->n == nkernel + nuser
         && (!nkernel || memcmp(ips, kips, nkernel * sizeof *ips) == 0)
         && (!nuser || memcmp(ips + nkernel, uips, nuser * sizeof *ips) == 0);
}

/* P's stacks in twice the slots.  */
static void stacks_grow(struct prof_proc *p)
{
  size_t cap = p->cap_stacks ? 2 * p->cap_stacks : 256;
  struct prof_stack_slot *slots = memset(prof_xmalloc(cap * sizeof *slots), 0, cap * sizeof *slots);
  for (size_t i = 0; i < p->cap_stacks; i++) {
    const struct prof_stack_slot *old = &p->stacks[i];
    if (!old->at_plus_one)
      continue;
    size_t at = old->hash & (cap - 1);
    while (slots[at].at_plus_one)
      at = (at + 1) & (cap - 1);
    slots[at] = *old;
  }
  free(p->stacks);
  p->stacks = slots;
  p->cap_stacks = cap;
}

/* The index in P's ips of the stack KIPS then UIPS: where a sample had
   it before, else appended.  */
static size_t stack_at(struct prof_proc *p, const uint64_t *kips, uint32_t nkernel,
                       const uint64_t *uips, uint32_t nuser)
{
  if (2 * (p->nstacks + 1) > p->cap_stacks)
    stacks_grow(p);
  uint64_t hash = stack_hash(kips, nkernel, uips, nuser);
  size_t i = hash & (p->cap_stacks - 1);
  for (; p->stacks[i].at_plus_one; i = (i + 1) & (p->cap_stacks - 1))
    if (p->stacks[i].hash == hash && stack_is(p, &p->stacks[i], kips, nkernel, uips, nuser))
      return p->stacks[i].at_plus_one - 1;
  uint32_t n = nkernel + nuser;
  /* past 64 KB in huge pages: a process's samples and frames are most
     of what gorc-prof writes to memory; small at first: a perf.data of
     many short processes has a few samples each */
  p->ips = prof_xgrow(p->ips, &p->cap_ips, p->nips + n, sizeof *p->ips, 128, 64 * 1024);
  if (nkernel)
    memcpy(p->ips + p->nips, kips, (size_t)nkernel * sizeof *kips);
  if (nuser)
    memcpy(p->ips + p->nips + nkernel, uips, (size_t)nuser * sizeof *uips);
  p->stacks[i] = (struct prof_stack_slot){ hash, p->nips + 1, n, nkernel };
  p->nstacks++;
  p->nips += n;
  return p->nips - n;
}

void prof_proc_add_sample(struct prof_proc *p, uint64_t time, uint32_t tid, int32_t end,
                          const uint64_t *kips, uint32_t nkernel, const uint64_t *uips,
                          uint32_t nuser)
{
  p->samples = prof_xgrow(p->samples, &p->cap_samples, p->nsamples + 1, sizeof *p->samples, 16,
                          64 * 1024);
  struct prof_sample *s = &p->samples[p->nsamples++];
  s->time = time;
  s->tid = tid;
  s->end = end;
  s->n = nkernel + nuser;
  s->nkernel = nkernel;
  s->at = stack_at(p, kips, nkernel, uips, nuser);
  prof_proc_add_tid(p, tid);
}

void prof_data_totals(const struct prof_data *d, size_t *samples, size_t *threads)
{
  *samples = *threads = 0;
  for (size_t i = 0; i < d->nprocs; i++) {
    *samples += d->procs[i].nsamples;
    *threads += d->procs[i].ntids;
  }
}

static void proc_free(struct prof_proc *p)
{
  for (size_t k = 0; k < p->nspans; k++)
    free(p->spans[k].name);
  free(p->spans);
  free(p->samples);
  free(p->ips);
  free(p->stacks);
  free(p->tids);
  free(p->space.maps);
  free(p->path);
}

void prof_data_clear_samples(struct prof_data *d)
{
  size_t kept = 0;
  for (size_t i = 0; i < d->nprocs; i++) {
    struct prof_proc *p = &d->procs[i];
    if (p->ended) {
      proc_free(p);
      continue;
    }
    p->nsamples = p->nips = p->ntids = p->nstacks = 0;
    if (p->stacks)
      memset(p->stacks, 0, p->cap_stacks * sizeof *p->stacks);
    d->procs[kept++] = *p;
  }
  d->nprocs = kept;
}

void prof_data_free(struct prof_data *d)
{
  for (size_t i = 0; i < d->nprocs; i++)
    proc_free(&d->procs[i]);
  free(d->procs);
  memset(d, 0, sizeof *d);
}
