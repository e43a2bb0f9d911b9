/* libgorc: the growable entry array used at registration (mmap only, no
   malloc), and the in-place sort of an entry array.  */

#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include "internal.h"

#define PAGE 4096u

static size_t round_page(size_t n)
{
  return (n + PAGE - 1) & ~(size_t)(PAGE - 1);
}

void *gorc_rt_map(size_t size)
{
  void *p = mmap(NULL, round_page(size), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void gorc_rt_unmap(void *p, size_t size)
{
  if (p)
    munmap(p, round_page(size));
}

/* Retired module mappings, reused first-fit.  Only the scan (under its
   lock) allocates and retires modules.  */
#define RETIRED_MAX 1024
static struct { void *p; size_t size; } retired[RETIRED_MAX];
static unsigned n_retired;

void *gorc_rt_map_module(size_t size, size_t *map_size)
{
  size = round_page(size);
  unsigned best = n_retired;
  for (unsigned i = 0; i < n_retired; i++)
    if (retired[i].size >= size && (best == n_retired || retired[i].size < retired[best].size))
      best = i;
  if (best < n_retired) {
    void *p = retired[best].p;
    if (mprotect(p, retired[best].size, PROT_READ | PROT_WRITE) == 0) {
      *map_size = retired[best].size;
      retired[best] = retired[--n_retired];
      return p;   /* zero-filled by gorc_rt_retire_module */
    }
  }
  void *p = gorc_rt_map(size);
  *map_size = p ? size : 0;
  return p;
}

void gorc_rt_retire_module(void *p, size_t map_size)
{
  /* MADV_DONTNEED on private anonymous memory: the pages go back to the
     kernel and read as zeros from now on; the range stays mapped.  */
  madvise(p, map_size, MADV_DONTNEED);
  if (n_retired < RETIRED_MAX) {
    retired[n_retired].p = p;
    retired[n_retired].size = map_size;
    n_retired++;
  }
  /* else: the range stays reserved (zero pages cost no memory) */
}

void gorc_rt_builder_add(struct gorc_rt_builder *b, uint64_t base, uint64_t pc,
                         const struct gorc_state *s, uint8_t rbx_kind, int64_t rbx_off)
{
  if (b->failed)
    return;
  if (pc < base || pc - base > UINT32_MAX
      || s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX
      || s->bp_off < INT32_MIN || s->bp_off > INT32_MAX
      || rbx_off < INT32_MIN || rbx_off > INT32_MAX
      || b->count >= (size_t)INT32_MAX) {
    b->failed = 1;
    return;
  }
  if (b->count == b->cap) {
    size_t ncap = b->cap ? b->cap * 2 : PAGE * 4 / sizeof(struct gorc_rt_entry);
    void *p;
    if (b->entries)
      p = mremap(b->entries, round_page(b->cap * sizeof *b->entries),
                 round_page(ncap * sizeof *b->entries), MREMAP_MAYMOVE);
    else
      p = mmap(NULL, round_page(ncap * sizeof *b->entries), PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      b->failed = 1;
      return;
    }
    b->entries = p;
    b->cap = ncap;
  }
  struct gorc_rt_entry *e = &b->entries[b->count++];
  e->pc_off = (uint32_t)(pc - base);
  e->cfa_off = (int32_t)s->cfa_off;
  e->bp_off = (int32_t)s->bp_off;
  e->cfa_kind = s->cfa_kind;
  e->cfa_reg = s->cfa_reg;
  e->bp_kind = s->bp_kind;
  e->bp_reg = s->bp_reg;
  e->rbx_kind = rbx_kind;
  e->rbx_off = (int32_t)rbx_off;
}

void gorc_rt_builder_free(struct gorc_rt_builder *b)
{
  if (b->entries)
    munmap(b->entries, round_page(b->cap * sizeof *b->entries));
  b->entries = NULL;
  b->count = b->cap = 0;
  b->failed = 0;
}

/* Sort key: address, then END entries before others at one address (an
   END that closes one range must not hide the start of the next range at
   the same address, whatever the table order), then insertion order (of
   several entries at one address within a range, the last one holds).  */
static uint64_t key_of(const struct gorc_rt_entry *e, size_t i)
{
  return (uint64_t)e->pc_off << 32 | (uint64_t)(e->cfa_kind != GORC_CFA_END) << 31
         | (uint64_t)i;
}

static void sift_down(uint64_t *k, size_t root, size_t n)
{
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n)
      return;
    if (child + 1 < n && k[child + 1] > k[child])
      child++;
    if (k[root] >= k[child])
      return;
    uint64_t t = k[root];
    k[root] = k[child];
    k[child] = t;
    root = child;
  }
}

static void heapsort_keys(uint64_t *k, size_t n)
{
  if (n < 2)
    return;
  for (size_t i = n / 2; i-- > 0;)
    sift_down(k, i, n);
  for (size_t end = n - 1; end > 0; end--) {
    uint64_t t = k[0];
    k[0] = k[end];
    k[end] = t;
    sift_down(k, 0, end);
  }
}

size_t gorc_rt_sort_entries(struct gorc_rt_entry *e, size_t n, int *failed)
{
  int sorted = 1;
  for (size_t i = 1; i < n && sorted; i++)
    if (key_of(&e[i - 1], i - 1) > key_of(&e[i], i))
      sorted = 0;
  if (!sorted) {
    size_t ksize = n * sizeof(uint64_t), tsize = n * sizeof *e;
    uint64_t *k = gorc_rt_map(ksize);
    struct gorc_rt_entry *t = gorc_rt_map(tsize);
    if (!k || !t) {
      gorc_rt_unmap(k, ksize);
      gorc_rt_unmap(t, tsize);
      *failed = 1;
      return 0;
    }
    for (size_t i = 0; i < n; i++)
      k[i] = key_of(&e[i], i);
    heapsort_keys(k, n);
    for (size_t i = 0; i < n; i++)
      t[i] = e[k[i] & 0x7fffffffu];
    memcpy(e, t, tsize);
    gorc_rt_unmap(k, ksize);
    gorc_rt_unmap(t, tsize);
  }
  /* Of equal addresses keep the last.  */
  size_t out = 0;
  for (size_t i = 0; i < n; i++) {
    if (out > 0 && e[out - 1].pc_off == e[i].pc_off)
      e[out - 1] = e[i];
    else
      e[out++] = e[i];
  }
  return out;
}
