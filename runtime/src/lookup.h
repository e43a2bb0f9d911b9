/* libgorc: the state of an address, and the cache that makes a hot return
   address cost one lookup.

   gorc_rt_state finds a state the long way: the module (module.c), its
   gorc records (records.c), else its .eh_frame (eh_lookup.c).  States
   the walk's inner loop can follow (a "fast word", below) are kept in a
   direct-mapped cache keyed by the address: 16384 entries of one 64-bit
   word each, reserved as zero-filled memory up front (128 KiB of address
   space, paid for in RSS only as entries are used), written and read
   without a lock, also from signal handlers: an entry is one atomic word.

   An entry names the module slot its state came from, and a walk asks
   once per slot whether that slot's module is still loaded
   (gorc_rt_module_still_loaded) before it trusts entries of it: a module
   unloaded and another loaded at the same address never lends the new
   one its states.  When a slot is given to another module, the whole
   cache is forgotten; a writer that raced that checks the slot again
   after its write and takes the entry back (cache_put), so every entry
   that stays is of its slot's present module.  */

#ifndef GORC_RT_LOOKUP_H
#define GORC_RT_LOOKUP_H

#include <stdatomic.h>
#include <stdint.h>
#include "module.h"

/* A fast word: a state the inner loop follows with the registers in
   locals, 24 bits.  Never 0 (the offset is at least 8).
     bit 0        the CFA is rbp + off (else rsp + off)
     bit 1        rbx is unknown after this frame (gorc records)
     bits 3..13   off itself (a multiple of 8, 8..16376)
     bits 14..18  k: rbp unchanged (0) or saved at CFA - 8k (1..31)
     bits 19..23  j: rbx unchanged (0) or saved at CFA - 8j (1..31)
   The return address is at CFA - 8.  Each field is a mask or a shift and
   a mask away from what the loop needs.  */
#define GORC_RT_W_CFA_BP 1u
#define GORC_RT_W_RBX_LOST 2u
#define GORC_RT_W_OFF_MASK 0x3ff8u
#define GORC_RT_W_BP_SHIFT 11          /* (w >> 11) & 0xf8 = 8k */
#define GORC_RT_W_RBX_SHIFT 16         /* (w >> 16) & 0xf8 = 8j */
#define GORC_RT_W_SLOT8_MASK 0xf8u

static inline uint64_t gorc_rt_w_off(uint32_t w)
{
  return w & GORC_RT_W_OFF_MASK;
}

/* 8k: how far below the CFA rbp is saved, 0 when it is not.  */
static inline uint64_t gorc_rt_w_bp8(uint32_t w)
{
  return (w >> GORC_RT_W_BP_SHIFT) & GORC_RT_W_SLOT8_MASK;
}

/* 8j: how far below the CFA rbx is saved, 0 when it is not (or when
   it is unknown after the frame: GORC_RT_W_RBX_LOST).  */
static inline uint64_t gorc_rt_w_rbx8(uint32_t w)
{
  return (w >> GORC_RT_W_RBX_SHIFT) & GORC_RT_W_SLOT8_MASK;
}

/* The cache.  An entry: bits 31..63 the tag (pc >> 14: no user-space
   address is above 2^47), bits 24..29 the module slot, bits 0..23 the
   fast word; 0 is empty.  */
#define GORC_RT_CACHE_BITS 14
#define GORC_RT_CACHE_SIZE (1u << GORC_RT_CACHE_BITS)
#define GORC_RT_CACHE_TAG_SHIFT 31
#define GORC_RT_CACHE_SLOT_SHIFT 24
#define GORC_RT_CACHE_WORD_MASK 0xffffffu
#define GORC_RT_CACHE_MAX_PC (1ull << 47)

GORC_HIDDEN extern _Atomic uint64_t gorc_rt_cache[GORC_RT_CACHE_SIZE];

/* What one walk has checked: the slots whose module it found still
   loaded.  */
struct gorc_rt_walk_modules {
  uint64_t checked;                              /* bit per slot */
};

/* No slot: matches no cache entry.  */
#define GORC_RT_NO_SLOT GORC_RT_MODULE_SLOTS

/* Start a walk: the main program's slot, when known, counts as checked
   (it is never rewritten).  Returns it (GORC_RT_NO_SLOT: not known yet).  */
static inline unsigned gorc_rt_walk_modules_init(struct gorc_rt_walk_modules *wm)
{
  unsigned main_slot = atomic_load_explicit(&gorc_rt_main_slot, memory_order_acquire);
  wm->checked = main_slot < GORC_RT_MODULE_SLOTS ? 1ull << main_slot : 0;
  return main_slot;
}

/* The fast word of PC if the cache holds it for module slot SLOT (one
   this walk checked); else 0.  The walk's inner loop calls this with the
   slot of the last frame's module: most frames are in the module of the
   frame before.  An address of 2^47 or more never matches (its tag is
   wider than an entry's).  */
static inline uint32_t gorc_rt_cache_word_of(uint64_t slot, uint64_t pc)
{
  uint64_t e = atomic_load_explicit(&gorc_rt_cache[pc & (GORC_RT_CACHE_SIZE - 1)],
                                    memory_order_relaxed);
  if ((e >> GORC_RT_CACHE_SLOT_SHIFT)
      != ((pc >> GORC_RT_CACHE_BITS) << (GORC_RT_CACHE_TAG_SHIFT - GORC_RT_CACHE_SLOT_SHIFT)
          | slot))
    return 0;
  return (uint32_t)(e & GORC_RT_CACHE_WORD_MASK);
}

/* The fast word of PC, whatever module holds it: from the cache when an
   entry holds it (its module checked by this walk now if it was not
   yet), else the long way, into the cache.  *SLOT gets the slot of PC's
   module.  0 when PC's state is not a fast word or is not known, or on an
   error: the general step finds out which.  */
GORC_HIDDEN uint32_t gorc_rt_word(struct gorc_rt_walk_modules *wm, uint64_t pc,
                                  unsigned *slot);

/* The state of PC (the address looked up), uncached.  Returns 1 with *S
   and *M (the module), 0 when nothing is known of PC (*M is valid when
   the return is 0 and has_module is set), or -GORC_ECORRUPT.  */
GORC_HIDDEN int gorc_rt_state(uint64_t pc, struct gorc_state *s, struct gorc_rt_module *m,
                              int *has_module);

/* Forget every cached state (a module slot is being given to another
   module).  */
GORC_HIDDEN void gorc_rt_cache_forget(void);

/* S as a fast word, or 0 when the inner loop cannot follow it.  */
GORC_HIDDEN uint32_t gorc_rt_fast_word(const struct gorc_state *s);

#endif
