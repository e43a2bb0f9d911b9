/* libgorc internal: the module registry, lookups and the unwind step.  */

#ifndef GORC_RT_INTERNAL_H
#define GORC_RT_INTERNAL_H

#include <stdint.h>
#include <stdatomic.h>
#include <stddef.h>
#include "table.h"

#define GORC_HIDDEN __attribute__((visibility("hidden")))

/* The fast-lookup block: 64 bytes of code, so that after the index load
   a lookup scans one to three entries.  The index costs 4 bytes per 64
   bytes of code (6%).  */
#define GORC_RT_BLOCK_SHIFT 6
#define GORC_RT_MAX_MODULES 512
#define GORC_RT_MAX_EXEC 8       /* executable PT_LOADs kept per module */

/* Outermost-frame marking by the eh_frame converter: cfa_kind
   GORC_CFA_UNDEFINED with cfa_reg 0xff (the return address is undefined).  */
#define GORC_RT_OUTERMOST_REG 0xff

/* One registered module.  Everything lives in one mmap owned by libgorc
   and is immutable once published.  */
struct gorc_rt_module {
  uint64_t base;                  /* dlpi_addr */
  uint64_t lo, hi;                /* absolute span [first entry, last entry) */
  uint64_t lo_block;              /* lo rounded down to a block */
  const struct gorc_rt_entry *entries;
  const struct gorc_rt_entry *last;   /* &entries[count - 1] */
  size_t count;
  const uint32_t *index;          /* per block: last entry <= block start */
  size_t nblocks;
  uint64_t exec_lo[GORC_RT_MAX_EXEC], exec_hi[GORC_RT_MAX_EXEC];
  unsigned nexec;
  const void *phdr;               /* identity for rescans */
  size_t map_size;                /* size of this mapping */
  unsigned records_entries, ehframe_entries;
};

/* Registry (modules.c).  */
GORC_HIDDEN void gorc_rt_init(void);
/* Rescan dl_iterate_phdr if modules were added or removed.  Normal
   context only.  */
GORC_HIDDEN void gorc_rt_rescan(void);
/* The same, waiting for a scan in progress (dlopen/dlclose wrappers).  */
GORC_HIDDEN void gorc_rt_rescan_wait(void);
GORC_HIDDEN int gorc_rt_initialized(void);
/* Is [addr, addr+len) inside an executable segment of module M?  */
GORC_HIDDEN int gorc_rt_module_has_text(const struct gorc_rt_module *m, uint64_t addr,
                                        size_t len);

/* Main-thread stack bounds found by the constructor (0, 0 if unknown).  */
GORC_HIDDEN extern uint64_t gorc_rt_main_lo, gorc_rt_main_hi;
GORC_HIDDEN extern unsigned long gorc_rt_main_self;  /* pthread_self() of main */
GORC_HIDDEN extern int gorc_rt_main_self_known;

/* Sorting (builder.c): sort by pc_off (ties: END entries first, then
   insertion order) and keep the last of equal addresses.  Returns the new
   count; the array is rewritten in place.  0 entries on out of memory.  */
GORC_HIDDEN size_t gorc_rt_sort_entries(struct gorc_rt_entry *e, size_t n, int *failed);

/* mmap helpers (builder.c).  */
GORC_HIDDEN void *gorc_rt_map(size_t size);
GORC_HIDDEN void gorc_rt_unmap(void *p, size_t size);

/* Cursor (unwind.c).  The private state in struct gorc_cursor priv[].  */
struct gorc_cursor;
GORC_HIDDEN int gorc_rt_cursor_start(struct gorc_cursor *c, uint64_t ip, uint64_t sp,
                                     uint64_t bp, const void *uc);
GORC_HIDDEN int gorc_rt_cursor_step(struct gorc_cursor *c);
/* Store up to MAX addresses, c->ip first; *COUNT gets how many.  Returns
   the last step's result: 1 (stopped at MAX), 0 (outermost frame) or
   -enum gorc_error.  */
GORC_HIDDEN int gorc_rt_walk(struct gorc_cursor *c, void **ips, int max, int *count);

/* The registry (modules.c): slots [0, n_slots) may hold a module.  The
   lookup is here, inline, because it is most of a step's cost.  */
GORC_HIDDEN extern struct gorc_rt_module *_Atomic gorc_rt_slots[GORC_RT_MAX_MODULES];
GORC_HIDDEN extern _Atomic unsigned gorc_rt_n_slots;

static inline const struct gorc_rt_entry *gorc_rt_module_lookup(const struct gorc_rt_module *m, uint64_t pc)
{
  uint32_t off = (uint32_t)(pc - m->base);
  size_t b = (size_t)((pc - m->lo_block) >> GORC_RT_BLOCK_SHIFT);
  if (b >= m->nblocks)
    return NULL;
  /* index[b] is the last entry at or before the block start; a block of
     GORC_RT_BLOCK_SHIFT bytes holds a few entries, so scan forward.  */
  const struct gorc_rt_entry *e = &m->entries[m->index[b]];
  const struct gorc_rt_entry *last = m->last;
  while (e < last && e[1].pc_off <= off)
    e++;
  if (e->pc_off > off || e->cfa_kind == GORC_CFA_END)
    return NULL;
  return e;
}

/* *HINT (may be NULL) is 1 + the registry slot of the previous frame's
   module (callers are mostly in the same module) on entry, and of the
   module found on return.  A slot is re-read, so a module unpublished
   since is never used.  */
static inline const struct gorc_rt_entry *gorc_rt_lookup(uint64_t pc,
                                                         const struct gorc_rt_module **mod,
                                                         unsigned *hint)
{
  const struct gorc_rt_module *m;
  if (hint && *hint && *hint <= GORC_RT_MAX_MODULES) {
    m = atomic_load_explicit(&gorc_rt_slots[*hint - 1], memory_order_acquire);
    if (m && pc >= m->lo && pc < m->hi) {
      if (mod)
        *mod = m;
      return gorc_rt_module_lookup(m, pc);
    }
  }
  unsigned n = atomic_load_explicit(&gorc_rt_n_slots, memory_order_acquire);
  for (unsigned s = 0; s < n; s++) {
    m = atomic_load_explicit(&gorc_rt_slots[s], memory_order_acquire);
    if (!m || pc < m->lo || pc >= m->hi)
      continue;
    if (mod)
      *mod = m;
    if (hint)
      *hint = s + 1;
    return gorc_rt_module_lookup(m, pc);
  }
  if (mod)
    *mod = NULL;
  return NULL;
}

#endif
