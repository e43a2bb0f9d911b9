/* libgorc internal: the module registry, lookups and the unwind step.  */

#ifndef GORC_RT_INTERNAL_H
#define GORC_RT_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include "table.h"

#define GORC_HIDDEN __attribute__((visibility("hidden")))

/* The fast-lookup block: 256 bytes of code, so that the binary search
   after the index load covers a handful of entries.  */
#define GORC_RT_BLOCK_SHIFT 8
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
GORC_HIDDEN int gorc_rt_initialized(void);
/* The entry in effect at PC, or NULL; *MOD (may be NULL) gets the module.
   *HINT (may be NULL): 1 + registry slot to try first, updated.  */
GORC_HIDDEN const struct gorc_rt_entry *gorc_rt_lookup(uint64_t pc,
                                                       const struct gorc_rt_module **mod,
                                                       unsigned *hint);
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

#endif
