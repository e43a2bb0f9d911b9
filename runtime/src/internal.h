/* libgorc internal: the module registry, lookups and the unwind step.  */

#ifndef GORC_RT_INTERNAL_H
#define GORC_RT_INTERNAL_H

#include <stdint.h>
#include <stdatomic.h>
#include <stddef.h>
#include "table.h"

#define GORC_HIDDEN __attribute__((visibility("hidden")))

/* The lookup of one address, in two steps:

   1. blocks[(pc - lo) >> GORC_RT_BLOCK_SHIFT]: one 32-bit word per
      16-byte block of code.  Where the whole block has one state and
      that state is common (a "fast word", below), the word IS the state,
      so most lookups cost one load.  A word 0 means nothing is known.
      Otherwise the word is 2*(i+1): the block starts inside entry i of
      the sorted entry array, and the lookup scans forward from there (a
      block holds a few entries).
   2. entries[i] = { pc_off, word }: the state from pc_off up to the next
      entry's pc_off.  entries[0] is a dummy (pc_off 0, word 0) and
      entries[count - 1] a sentinel (pc_off UINT32_MAX, word 0).  Its
      word is a fast word, 0 (nothing known: the gap after an END), or
      2*k: states[k], for everything a fast word cannot hold.

   The block table costs 4 bytes per 16 bytes of code (25% of the text
   covered, in memory only; nothing in the module's file).

   A fast word (bit 0 set):
     bit 1        the CFA is rbp + off (else rsp + off)
     bits 3..15   off itself (a multiple of 8, 8..65528)
     bits 16..23  j: rbx is unchanged (0), saved at CFA - 8j (1..254),
                  or unknown after this frame (255, gorc records)
     bits 24..31  k: rbp is unchanged (0) or saved at CFA - 8k
   A word that is 0 anywhere means "no information".  */
#define GORC_RT_BLOCK_SHIFT 4
#define GORC_RT_W_FAST 1u
#define GORC_RT_W_CFA_BP 2u
#define GORC_RT_W_OFF_MASK 0xfff8u
#define GORC_RT_W_RBX_SHIFT 16
#define GORC_RT_W_RBX_MASK 0x00ff0000u
#define GORC_RT_W_RBX_LOST 255u
#define GORC_RT_W_BP_SHIFT 24

#define GORC_RT_MAX_MODULES 512
#define GORC_RT_MAX_EXEC 8       /* executable PT_LOADs kept per module */

/* Outermost-frame marking by the eh_frame converter: cfa_kind
   GORC_CFA_UNDEFINED with cfa_reg 0xff (the return address is undefined).  */
#define GORC_RT_OUTERMOST_REG 0xff

struct gorc_rt_pc_entry {
  uint32_t pc_off;                /* from the module's load base */
  uint32_t word;
};

/* A state no fast word can hold (also the decoded form of every word).  */
struct gorc_rt_state {
  uint8_t cfa_kind, cfa_reg;      /* enum gorc_cfa_kind, DWARF register */
  uint8_t bp_kind, bp_reg;        /* enum gorc_bp_kind, DWARF register */
  uint8_t rbx_kind;               /* enum gorc_rt_rbx_kind */
  int32_t cfa_off, bp_off, rbx_off;
};

/* One registered module, in one mapping owned by libgorc, read-only once
   published.  The tables are found by offsets from the module itself,
   never by stored pointers.  A module that went away (dlclose) has its
   mapping zero-filled, not unmapped, and the mapping may later hold
   another module: a walk that still holds the old pointer must never
   read outside the mapping, whatever mix of old, zero and new header
   fields it sees.  So a walk reads the header once into a view
   (gorc_rt_view_load), which checks every table against map_size; a
   mapping keeps its size for its whole life (0 when zero-filled).  */
struct gorc_rt_module {
  uint64_t lo;                    /* absolute address of block 0 */
  uint64_t span;                  /* nblocks << GORC_RT_BLOCK_SHIFT */
  uint64_t base;                  /* dlpi_addr */
  uint32_t blocks_off, entries_off, states_off;   /* from the module */
  uint32_t nentries;              /* with the dummy and the sentinel */
  uint32_t nstates;
  uint32_t nexec;
  uint64_t exec_lo[GORC_RT_MAX_EXEC], exec_hi[GORC_RT_MAX_EXEC];
  const void *phdr;               /* identity for rescans, with ident */
  uint64_t ident;                 /* hash of the file name and build ID */
  size_t map_size;                /* size of this mapping */
  unsigned records_entries, ehframe_entries;
};

/* Registry (modules.c).  */
GORC_HIDDEN void gorc_rt_init(void);
/* Rescan dl_iterate_phdr if modules were added or removed.  Returns 0
   without scanning when a scan is in progress (the lock is only tried).  */
GORC_HIDDEN int gorc_rt_rescan(void);
/* The same, waiting for a scan in progress (dlopen/dlclose wrappers).  */
GORC_HIDDEN void gorc_rt_rescan_wait(void);
/* Has the first scan run?  */
GORC_HIDDEN extern _Atomic int gorc_rt_initialized_flag;
static inline int gorc_rt_initialized(void)
{
  return atomic_load_explicit(&gorc_rt_initialized_flag, memory_order_acquire);
}
/* Is [addr, addr+len) inside an executable segment of module M?  */
GORC_HIDDEN int gorc_rt_module_has_text(const struct gorc_rt_module *m, uint64_t addr,
                                        size_t len);

/* For the crash handler's and the profiler's module lists (normal
   context): the span [*LO, *HI) of INFO's executable segments and its
   file name (the executable's through /proc/self/exe, into BUF).
   Returns the name, or NULL when the module has no code or no name.  */
struct dl_phdr_info;
GORC_HIDDEN const char *gorc_rt_module_span_and_path(const struct dl_phdr_info *info,
                                                     uint64_t *lo, uint64_t *hi,
                                                     char *buf, size_t bufsize);

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
/* Module mappings (builder.c, under the scan lock).  A retired mapping
   is zero-filled (its pages given back to the kernel) but stays mapped,
   so a walk that still holds it reads zeros; gorc_rt_map_module reuses
   it for a later module of at most its size.  *MAP_SIZE gets the size
   of the mapping returned (the size to retire it with).  */
GORC_HIDDEN void *gorc_rt_map_module(size_t size, size_t *map_size);
GORC_HIDDEN void gorc_rt_retire_module(void *p, size_t map_size);

/* Cursor (unwind.c).  The private state in struct gorc_cursor priv[].  */
struct gorc_cursor;
GORC_HIDDEN int gorc_rt_cursor_start(struct gorc_cursor *c, uint64_t ip, uint64_t sp,
                                     uint64_t bp, const void *uc);
GORC_HIDDEN int gorc_rt_cursor_step(struct gorc_cursor *c);
/* Store up to MAX addresses, c->ip first; *COUNT gets how many.  Returns
   the last step's result: 1 (stopped at MAX), 0 (outermost frame) or
   -enum gorc_error.  */
GORC_HIDDEN int gorc_rt_walk(struct gorc_cursor *c, void **ips, int max, int *count);
/* The same from a call's registers (gorc_backtrace): IP its return
   address, SP its CFA, BP the caller's rbp.  */
GORC_HIDDEN int gorc_rt_backtrace_walk(uint64_t ip, uint64_t sp, uint64_t bp, void **ips,
                                       int max, int *count);
/* Set by a walk that met an address in no known module (unwind.c).  */
GORC_HIDDEN extern _Atomic int gorc_rt_rescan_wanted;

/* The registry (modules.c): slots [0, n_slots) may hold a module.  The
   lookup is here, inline, because it is most of a step's cost.  */
GORC_HIDDEN extern struct gorc_rt_module *_Atomic gorc_rt_slots[GORC_RT_MAX_MODULES];
GORC_HIDDEN extern _Atomic unsigned gorc_rt_n_slots;
/* Changed (never to 0) after every change of the slots: a view found
   under one generation stays the right one while it holds.  */
GORC_HIDDEN extern _Atomic unsigned gorc_rt_generation;

/* A module's header as one walk sees it, checked against the mapping.  */
struct gorc_rt_view {
  const struct gorc_rt_module *m;
  uint64_t lo, span, base;
  const uint32_t *blocks;
  const struct gorc_rt_pc_entry *entries;
  const struct gorc_rt_state *states;
  uint32_t nentries, nstates;
};

#define GORC_RT_LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/* Read M's header once into *V.  Returns 0, or -1 (and an empty view:
   every lookup misses) if the header is zero or its tables do not fit
   its mapping.  */
static inline int gorc_rt_view_load(struct gorc_rt_view *v, const struct gorc_rt_module *m)
{
  uint64_t size = GORC_RT_LOAD(m->map_size);
  uint64_t span = GORC_RT_LOAD(m->span);
  uint64_t boff = GORC_RT_LOAD(m->blocks_off), eoff = GORC_RT_LOAD(m->entries_off);
  uint64_t soff = GORC_RT_LOAD(m->states_off);
  uint64_t ne = GORC_RT_LOAD(m->nentries), ns = GORC_RT_LOAD(m->nstates);
  v->m = m;
  v->lo = GORC_RT_LOAD(m->lo);
  v->base = GORC_RT_LOAD(m->base);
  const char *p = (const char *)m;
  v->blocks = (const uint32_t *)(p + boff);
  v->entries = (const struct gorc_rt_pc_entry *)(p + eoff);
  v->states = (const struct gorc_rt_state *)(p + soff);
  v->nentries = (uint32_t)ne;
  v->nstates = (uint32_t)ns;
  v->span = span;
  if (boff < sizeof *m || eoff < sizeof *m || soff < sizeof *m || ne < 2
      || span > (1ull << 40) || boff + (span >> GORC_RT_BLOCK_SHIFT) * 4 > size
      || eoff + ne * sizeof *v->entries > size || soff + ns * sizeof *v->states > size) {
    v->span = 0;
    return -1;
  }
  return 0;
}

/* The word of PC in a block whose word W is not a fast word: 0 (nothing
   known), or the entry scan from the entry W names, bounded by the entry
   count.  (A loop: where a block's entry count repeats, as in a walk
   through the same code, its exit is predicted, and the CPU runs ahead;
   comparing several entries at once without branches made every scan
   wait for all of their loads, and walks slower.)  */
static inline uint32_t gorc_rt_view_scan(const struct gorc_rt_view *v, uint32_t w, uint64_t pc)
{
  const struct gorc_rt_pc_entry *e = v->entries;
  uint32_t i = (w >> 1) - 1, n = v->nentries, off = (uint32_t)(pc - v->base);
  if (w == 0 || i + 1 >= n)
    return 0;
  while (i + 2 < n && e[i + 1].pc_off <= off)
    i++;
  return e[i].word;
}

/* The word of PC (inside the view: pc - v->lo < v->span), 0 when nothing
   is known.  */
static inline uint32_t gorc_rt_view_word(const struct gorc_rt_view *v, uint64_t pc)
{
  uint32_t w = v->blocks[(pc - v->lo) >> GORC_RT_BLOCK_SHIFT];
  return (w & GORC_RT_W_FAST) ? w : gorc_rt_view_scan(v, w, pc);
}

/* Load into *V the registered module holding PC.  Returns 0, or -1 (an
   empty view) if no module holds it.  Slots are re-read on every call,
   so a module unpublished since is not found again.  */
GORC_HIDDEN int gorc_rt_find_view(struct gorc_rt_view *v, uint64_t pc);

/* Decode WORD of view V into *S.  Returns 0, or -1 for "no information"
   (word 0, or a state index out of range).  */
GORC_HIDDEN int gorc_rt_decode_word(const struct gorc_rt_view *v, uint32_t word,
                                    struct gorc_rt_state *s);

#endif
