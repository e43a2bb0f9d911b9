/* libgorc: the state of an address, and the cache that makes a hot return
   address cost one lookup.

   The interface of the walk (walk.c) to states: the fast word of a
   return address from the cache (gorc_rt_cache_word_of,
   gorc_rt_word_cached), the state of an address in its module
   (gorc_rt_module_state: its gorc records, else its .eh_frame), and the
   cache's upkeep.  The walk itself asks module.c for the module first,
   and goes the long way (gorc_rt_word, walk.c) when the cache has no
   word.  States the walk's inner loop can follow (a "fast word", below:
   the outermost frame is one too) are kept in a direct-mapped cache keyed by the
   address: 32768 entries of one 64-bit word each (aarch64: 65536),
   reserved as zero-filled memory up front (256 KiB of address space,
   aarch64 512 KiB, paid for in RSS only as entries are used), written
   and read without a lock, also from signal handlers: an entry is one
   atomic word.

   An entry names the module slot its state came from, and a walk asks
   once per slot whether that slot's module is still loaded
   (gorc_rt_module_slot_current) before it trusts entries of it: a module
   unloaded and another loaded at the same address never lends the new
   one its states.  When a slot is given to another module (only past
   GORC_RT_MODULE_SLOTS modules), the entries of that slot are forgotten,
   and no other; a writer that raced that checks the slot again after its
   write and takes the entry back (cache_put), so every entry that stays
   is of its slot's present module.  */

#ifndef GORC_RT_LOOKUP_H
#define GORC_RT_LOOKUP_H

#include <stdatomic.h>
#include <stdint.h>
#include "arch.h"
#include "fast_word.h"
#include "module.h"

/* A load of a stack word the walk checked is inside its bounds.
   Volatile: the stack is not the compiler's to cache or reorder.  */
#define GORC_RT_LOAD_STACK(a) (*(const volatile uint64_t *)(uintptr_t)(a))

/* The cache, keyed by return address: the entry for PC holds the state
   of PC - 1, the call that pushed PC (the walk's inner loop looks up
   nothing else, and needs no subtraction before its load).  User-space
   code lies below 2^V, V = GORC_RT_VA_BITS of the port (x86-64 47;
   aarch64 48: Linux maps programs at 0xaaaa... and libraries at
   0xffff... there), and the cache has 2^B entries, B = V - 32 (x86-64
   32768, aarch64 65536).  Entry (PC ^ PC >> B) & (2^B - 1) may hold PC
   (the high bits are folded in: code at one offset of libraries mapped
   2^B bytes or 2 MiB apart must not share an entry).  An entry is
   KEY << 24 | the fast word, 0 when empty, where the key of PC from
   module slot SLOT is (PC >> (B - 8)) ^ SLOT ^ GORC_RT_CACHE_KEY_SALT:
   bits B and up of PC (the tag, 32 bits; with the entry's index it
   gives the whole address) and, in the low 8 bits, the slot mixed with
   PC's bits B - 8 .. B - 1, which the tag and index fix.  So one compare
   of the entry's top 40 bits checks tag and slot together, and the slot
   is the key's low 8 bits mixed back.  An address of 2^V or more never
   matches (its tag is wider).  The salt makes an empty entry (key 0)
   match only addresses in the last 2^B bytes below 2^V: no code is
   there (the stack is, below the unmapped top page); where the port
   cannot promise that (GORC_RT_CACHE_EMPTY_MAY_MATCH), the walk's inner
   loop also takes an empty entry for no word.  */
#define GORC_RT_CACHE_TAG_BITS 32
#define GORC_RT_CACHE_BITS (GORC_RT_VA_BITS - GORC_RT_CACHE_TAG_BITS)
#define GORC_RT_CACHE_SIZE (1u << GORC_RT_CACHE_BITS)
#define GORC_RT_CACHE_KEY_SHIFT 24
#define GORC_RT_CACHE_SLOT_PC_SHIFT (GORC_RT_CACHE_BITS - 8)
#define GORC_RT_CACHE_WORD_MASK 0xffffffu
#define GORC_RT_CACHE_MAX_PC (1ull << GORC_RT_VA_BITS)
#define GORC_RT_CACHE_KEY_SALT ((GORC_RT_CACHE_MAX_PC - 1) >> GORC_RT_CACHE_BITS << 8)
_Static_assert(GORC_RT_MODULE_SLOTS == 1u << (GORC_RT_CACHE_BITS - GORC_RT_CACHE_SLOT_PC_SHIFT),
               "the key's low bits hold every slot number");
_Static_assert(GORC_RT_VA_BITS - GORC_RT_CACHE_SLOT_PC_SHIFT + GORC_RT_CACHE_KEY_SHIFT <= 64,
               "an entry holds the key of every user-space address");

GORC_HIDDEN extern _Atomic uint64_t gorc_rt_cache[GORC_RT_CACHE_SIZE];

static inline uint64_t gorc_rt_cache_index(uint64_t pc)
{
  return (pc ^ pc >> GORC_RT_CACHE_BITS) & (GORC_RT_CACHE_SIZE - 1);
}

/* The address entry E at INDEX holds (E not empty).  */
static inline uint64_t gorc_rt_cache_pc(uint64_t e, uint64_t index)
{
  uint64_t tag = (e >> GORC_RT_CACHE_KEY_SHIFT ^ GORC_RT_CACHE_KEY_SALT) >> 8;
  return tag << GORC_RT_CACHE_BITS | ((index ^ tag) & (GORC_RT_CACHE_SIZE - 1));
}

static inline uint64_t gorc_rt_cache_entry(uint64_t pc)
{
  return atomic_load_explicit(&gorc_rt_cache[gorc_rt_cache_index(pc)], memory_order_relaxed);
}

/* The part of a key that depends on the slot only: a loop keeps it in a
   register.  */
static inline uint64_t gorc_rt_cache_slot_key(uint64_t slot)
{
  return slot ^ GORC_RT_CACHE_KEY_SALT;
}

static inline uint64_t gorc_rt_cache_key_of(uint64_t slot_key, uint64_t pc)
{
  return (pc >> GORC_RT_CACHE_SLOT_PC_SHIFT) ^ slot_key;
}

/* The key of PC from module slot SLOT: an entry holds PC for SLOT when
   its top bits equal it.  */
static inline uint64_t gorc_rt_cache_key(uint64_t slot, uint64_t pc)
{
  return gorc_rt_cache_key_of(gorc_rt_cache_slot_key(slot), pc);
}

static inline uint64_t gorc_rt_cache_make(uint64_t slot, uint64_t pc, uint32_t w)
{
  return gorc_rt_cache_key(slot, pc) << GORC_RT_CACHE_KEY_SHIFT | w;
}

/* Does entry E hold PC (whatever its slot)?  */
static inline int gorc_rt_cache_tag_matches(uint64_t e, uint64_t pc)
{
  return e != 0 && (e >> GORC_RT_CACHE_KEY_SHIFT ^ GORC_RT_CACHE_KEY_SALT) >> 8
                       == pc >> GORC_RT_CACHE_BITS;
}

/* The slot of entry E, the entry of PC (only PC's index bits count).  */
static inline unsigned gorc_rt_cache_slot(uint64_t e, uint64_t pc)
{
  return (unsigned)(gorc_rt_cache_key(0, pc) ^ e >> GORC_RT_CACHE_KEY_SHIFT)
         & (GORC_RT_MODULE_SLOTS - 1);
}

/* What one walk has checked: the slots whose module it found still
   loaded, a bit per slot; the slots of permanent modules count as
   checked (they are never rewritten).  Filled when the walk first asks:
   a walk that stays in the main program's slot, or that the walk memo
   takes, never does.  */
struct gorc_rt_walk_modules {
  int filled;
  uint64_t checked[GORC_RT_MODULE_SLOTS / 64];
};

static inline void gorc_rt_walk_modules_fill(struct gorc_rt_walk_modules *wm)
{
  if (wm->filled)
    return;
#pragma GCC unroll 4
  for (unsigned i = 0; i < GORC_RT_MODULE_SLOTS / 64; i++)
    wm->checked[i] = atomic_load_explicit(&gorc_rt_permanent_slots[i], memory_order_acquire);
  wm->filled = 1;
}

static inline int gorc_rt_walk_checked(struct gorc_rt_walk_modules *wm, unsigned slot)
{
  gorc_rt_walk_modules_fill(wm);
  return (wm->checked[slot / 64] >> (slot % 64)) & 1;
}

static inline void gorc_rt_walk_set_checked(struct gorc_rt_walk_modules *wm, unsigned slot)
{
  gorc_rt_walk_modules_fill(wm);
  wm->checked[slot / 64] |= 1ull << (slot % 64);
}

/* No slot: matches no cache entry.  */
#define GORC_RT_NO_SLOT GORC_RT_MODULE_SLOTS

/* Start a walk.  Returns the main program's slot, where a walk most
   often starts (GORC_RT_NO_SLOT: not known yet); its entries need no
   check (the main program is never unloaded).  */
static inline unsigned gorc_rt_walk_modules_init(struct gorc_rt_walk_modules *wm)
{
  wm->filled = 0;
  return atomic_load_explicit(&gorc_rt_main_slot, memory_order_relaxed);
}

/* The fast word of return address RA if the cache holds it for module
   slot SLOT (one this walk checked); else 0.  An address of 2^VA_BITS or
   more never matches (its tag is wider than an entry's).  */
static inline uint32_t gorc_rt_cache_word_of(uint64_t slot, uint64_t ra)
{
  uint64_t e = gorc_rt_cache_entry(ra);
  if ((e >> GORC_RT_CACHE_KEY_SHIFT) != gorc_rt_cache_key(slot, ra))
    return 0;
  return (uint32_t)(e & GORC_RT_CACHE_WORD_MASK);
}

/* The fast word of return address RA if the cache holds it (its module
   checked by this walk now if it was not yet); else 0.  *SLOT gets the
   entry's slot (GORC_RT_NO_SLOT: none).  */
GORC_HIDDEN uint32_t gorc_rt_word_cached(struct gorc_rt_walk_modules *wm, uint64_t ra,
                                         unsigned *slot);

/* Keep state S of PC, found the long way in module M, in the cache (the
   entry of PC + 1) if it is a fast word; returns the word, or 0.  The
   entry of PC + 1 is the state of PC whether PC + 1 is a return address
   or PC an interrupted instruction.  */
GORC_HIDDEN uint32_t gorc_rt_cache_keep(const struct gorc_rt_module *m, uint64_t pc,
                                        const struct gorc_state *s);

/* The state fast word W says, for the general step.  A word says nothing
   of aux: its rule is GORC_AUX_UNKNOWN.  */
GORC_HIDDEN void gorc_rt_word_state(uint32_t w, struct gorc_state *s);

/* The state of PC (the address looked up) in its module M, uncached:
   1 with *S, 0 when nothing in M covers PC, or -GORC_ECORRUPT.  */
GORC_HIDDEN int gorc_rt_module_state(const struct gorc_rt_module *m, uint64_t pc,
                                     struct gorc_state *s);

/* Forget every cached state of module slot SLOT (it is being given to
   another module).  */
GORC_HIDDEN void gorc_rt_cache_forget_slot(unsigned slot);

/* S as a fast word, or 0 when the inner loop cannot follow it.  */
GORC_HIDDEN uint32_t gorc_rt_fast_word(const struct gorc_state *s);

#endif
