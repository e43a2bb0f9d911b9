/* libgorc: the state of an address, and the cache that makes a hot return
   address cost one lookup.

   gorc_rt_state finds a state the long way: the module (module.c), its
   gorc records (records.c), else its .eh_frame (eh_lookup.c).  States
   the walk's inner loop can follow (a "fast word", below) are kept in a
   direct-mapped cache keyed by the address: 16384 entries of two 64-bit
   words, reserved as zero-filled memory up front (256 KiB of address
   space, paid for in RSS only as entries are used), written and read
   without a lock, also from signal handlers.

   Each half of an entry holds the address's tag, the module slot and its
   sequence number, and half of the word: a reader that sees two halves
   with the same tag, slot and number has one consistent entry, however
   writes interleave (the word is a function of the address within one
   module's life).  An entry names its module's slot, and a walk asks once
   per slot whether that module is still loaded (gorc_rt_module_still_loaded)
   before it trusts entries of it: a module unloaded and another loaded at
   the same address never lends the new one its states.  When a slot is
   given to another module, the whole cache is forgotten.  */

#ifndef GORC_RT_LOOKUP_H
#define GORC_RT_LOOKUP_H

#include <stdatomic.h>
#include <stdint.h>
#include "module.h"

/* A fast word: a state the inner loop follows with the registers in
   locals.  Never 0 (the offset is at least 8).
     bit 0        the CFA is rbp + off (else rsp + off)
     bits 1..13   off / 8 (off 8..65528)
     bits 14..19  k: rbp unchanged (0) or saved at CFA - 8k (1..63)
     bits 20..25  j: rbx unchanged (0), saved at CFA - 8j (1..62), or
                  unknown after this frame (63)
   The return address is at CFA - 8.  */
#define GORC_RT_W_CFA_BP 1u
#define GORC_RT_W_OFF_SHIFT 1
#define GORC_RT_W_OFF_MASK 0x1fffu
#define GORC_RT_W_BP_SHIFT 14
#define GORC_RT_W_BP_MASK 0x3fu
#define GORC_RT_W_RBX_SHIFT 20
#define GORC_RT_W_RBX_MASK 0x3fu
#define GORC_RT_W_RBX_LOST 63u
#define GORC_RT_W_BITS 26

static inline uint64_t gorc_rt_w_off(uint32_t w)
{
  return 8 * (uint64_t)((w >> GORC_RT_W_OFF_SHIFT) & GORC_RT_W_OFF_MASK);
}

static inline uint64_t gorc_rt_w_bp(uint32_t w)
{
  return (w >> GORC_RT_W_BP_SHIFT) & GORC_RT_W_BP_MASK;
}

static inline uint64_t gorc_rt_w_rbx(uint32_t w)
{
  return (w >> GORC_RT_W_RBX_SHIFT) & GORC_RT_W_RBX_MASK;
}

/* The cache.  An address above 2^47 (no user-space code is) is never
   cached.  */
#define GORC_RT_CACHE_BITS 14
#define GORC_RT_CACHE_SIZE (1u << GORC_RT_CACHE_BITS)
#define GORC_RT_CACHE_TAG_SHIFT 31       /* tag = pc >> GORC_RT_CACHE_BITS */
#define GORC_RT_CACHE_SEQ_SHIFT 19       /* 12 bits of the slot's number */
#define GORC_RT_CACHE_SLOT_SHIFT 13      /* 6 bits: the slot */
#define GORC_RT_CACHE_HALF_MASK 0x1fffu  /* 13 bits of the word */
#define GORC_RT_CACHE_MAX_PC (1ull << 47)

struct gorc_rt_cache_entry {
  _Atomic uint64_t lo, hi;
};
GORC_HIDDEN extern struct gorc_rt_cache_entry gorc_rt_cache[GORC_RT_CACHE_SIZE];

/* What one walk has checked: the slots whose module it found still
   loaded, with the 12 bits of their number it checked.  */
struct gorc_rt_walk_modules {
  uint64_t checked;                              /* bit per slot */
  uint16_t seq[GORC_RT_MODULE_SLOTS];
};

/* The module part of a cache entry's halves: slot and number.  (Slots
   skip numbers whose low 12 bits are 0, so key 0 matches no entry.)  */
static inline uint64_t gorc_rt_cache_key(unsigned slot, uint32_t seq)
{
  return (uint64_t)(seq & 0xfff) << GORC_RT_CACHE_SEQ_SHIFT
         | (uint64_t)slot << GORC_RT_CACHE_SLOT_SHIFT;
}

/* Start a walk: the main program's slot, when known, counts as checked
   (it is never rewritten).  Returns the key of its entries (0: none).  */
static inline uint64_t gorc_rt_walk_modules_init(struct gorc_rt_walk_modules *wm)
{
  uint32_t main_slot = atomic_load_explicit(&gorc_rt_main_slot, memory_order_acquire);
  wm->checked = 0;
  if (!main_slot)
    return 0;
  unsigned slot = main_slot & 0xff;
  wm->checked = 1ull << slot;
  wm->seq[slot] = (uint16_t)((main_slot >> 8) & 0xfff);
  return gorc_rt_cache_key(slot, wm->seq[slot]);
}

/* The fast word of PC if the cache holds it for the module whose entries
   have key KEY (one this walk checked); else 0.  The walk's inner loop
   calls this with the key of the last frame's module: most frames are in
   the module of the frame before.  */
static inline uint32_t gorc_rt_cache_word_of(uint64_t key, uint64_t pc)
{
  const struct gorc_rt_cache_entry *e = &gorc_rt_cache[pc & (GORC_RT_CACHE_SIZE - 1)];
  uint64_t lo = atomic_load_explicit(&e->lo, memory_order_relaxed);
  uint64_t hi = atomic_load_explicit(&e->hi, memory_order_relaxed);
  uint64_t want = (pc >> GORC_RT_CACHE_BITS) << GORC_RT_CACHE_TAG_SHIFT | key;
  if ((((lo ^ want) | (hi ^ want)) >> GORC_RT_CACHE_SLOT_SHIFT) != 0
      || pc >= GORC_RT_CACHE_MAX_PC)
    return 0;
  return (uint32_t)((lo & GORC_RT_CACHE_HALF_MASK) | (hi & GORC_RT_CACHE_HALF_MASK) << 13);
}

/* The fast word of PC, whatever module holds it: from the cache when an
   entry holds it (its module checked by this walk now if it was not
   yet), else the long way, into the cache.  *KEY gets the key of PC's
   module.  0 when PC's state is not a fast word or is not known, or on an
   error: the general step finds out which.  */
GORC_HIDDEN uint32_t gorc_rt_word(struct gorc_rt_walk_modules *wm, uint64_t pc, uint64_t *key);

/* The state of PC (the address looked up), uncached.  Returns 1 with *S
   and *M (the module), 0 when nothing is known of PC (*M is valid when
   the return is 0 and has_module is set), or -GORC_ECORRUPT.  */
GORC_HIDDEN int gorc_rt_state(uint64_t pc, struct gorc_state *s, struct gorc_rt_module *m,
                              int *has_module);

/* Forget every cached state (a module slot was given to another module).  */
GORC_HIDDEN void gorc_rt_cache_forget(void);

/* S as a fast word, or 0 when the inner loop cannot follow it.  */
GORC_HIDDEN uint32_t gorc_rt_fast_word(const struct gorc_state *s);

#endif
