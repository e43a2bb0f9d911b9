/* libgorc on aarch64: the inner loop's fast word.  aarch64 prologues
   save the return address below the frame pointer's slot
   (stp x29, x30, [sp, #-N]! puts x30 at CFA - N + 8), so the word names
   the return address's slot and whether it is signed; a return address
   still in x30 is no fast word (the general step reads it from an
   interrupted context only), nor a slot 16 words or more below the CFA
   the loop's common branch could take.  After walks through the chain,
   the PC cache holds a fast word for each of its return addresses: the
   loop, not the general step, walks such frames.  */
/* { dg-do run } */
/* { dg-gorc-runtime internal } */

#include "lookup.h"
#include "oracle.h"

#define NIPS 64

static void *ips[NIPS];
volatile int sink;

static struct gorc_state
saved_ra_state (int64_t cfa_off, int64_t bp_off, int64_t ra_off, int ra_signed)
{
  struct gorc_state s = gorc_entry_state (GORC_MACHINE_AARCH64);
  s.cfa_off = cfa_off;
  s.bp_kind = GORC_BP_CFA;
  s.bp_off = bp_off;
  s.ra_kind = GORC_RA_CFA;
  s.ra_off = ra_off;
  s.ra_signed = (uint8_t) ra_signed;
  return s;
}

static void
check_words (void)
{
  /* stp x29, x30, [sp, #-32]! after paciasp  */
  struct gorc_state s = saved_ra_state (32, -32, -24, 1);
  uint32_t w = gorc_rt_fast_word (&s);
  CHECK (w != 0, 0);
  CHECK (gorc_rt_w_off (w) == 32, w);
  CHECK (gorc_rt_w_bp8 (w) == 32, w);
  CHECK (gorc_rt_w_ra8 (w) == 24, w);
  CHECK ((w & GORC_RT_W_RA_SIGNED) != 0, w);
  CHECK ((w & (GORC_RT_W_CFA_BP | GORC_RT_W_END | GORC_RT_W_J_FAR)) == 0, w);
  s.ra_signed = 0;
  CHECK ((gorc_rt_fast_word (&s) & GORC_RT_W_RA_SIGNED) == 0, 1);
  /* The entry state: the return address is in x30.  */
  s = gorc_entry_state (GORC_MACHINE_AARCH64);
  CHECK (gorc_rt_fast_word (&s) == 0, 2);
  /* A slot 20 words below the CFA: the careful branch.  */
  s = saved_ra_state (256, -168, -160, 0);
  w = gorc_rt_fast_word (&s);
  CHECK (w != 0 && (w & GORC_RT_W_J_FAR) && gorc_rt_w_ra8 (w) == 160, w);
  /* A slot the word cannot name (above the CFA).  */
  s = saved_ra_state (32, -32, 8, 0);
  CHECK (gorc_rt_fast_word (&s) == 0, 3);
}

/* Linux on arm64 hardware (48-bit virtual addresses) maps programs at
   0xaaaa... and libraries at 0xffff..., above 2^47; qemu-user on this
   x86-64 host maps them low, so the walk never meets such an address
   here: the cache's key, slot and address are checked for them alone.  */
static void
check_high_keys (void)
{
  static const uint64_t pcs[] = { 0xaaaaaaab1234ull, 0xffffa7f01a3cull, 0x7ffff7a01234ull,
                                  0x5500000680ull };
  CHECK (GORC_RT_CACHE_MAX_PC == 1ull << 48, 0);
  for (unsigned i = 0; i < sizeof pcs / sizeof pcs[0]; i++) {
    uint64_t pc = pcs[i], index = gorc_rt_cache_index (pc);
    unsigned slot = 37 + i;
    uint64_t e = gorc_rt_cache_make (slot, pc, 0x12345);
    CHECK (gorc_rt_cache_tag_matches (e, pc), i);
    CHECK (gorc_rt_cache_slot (e, pc) == slot, i);
    CHECK (gorc_rt_cache_pc (e, index) == pc, i);
    CHECK ((e & GORC_RT_CACHE_WORD_MASK) == 0x12345, i);
    CHECK ((e >> GORC_RT_CACHE_KEY_SHIFT) == gorc_rt_cache_key (slot, pc), i);
    CHECK ((e >> GORC_RT_CACHE_KEY_SHIFT) != gorc_rt_cache_key (slot + 1, pc), i);
    /* The same index, another address: bit 47, or above 2^48.  */
    uint64_t other = pc ^ (1ull << 47);
    CHECK (gorc_rt_cache_index (other) == index, i);
    CHECK (!gorc_rt_cache_tag_matches (e, other), i);
    CHECK ((e >> GORC_RT_CACHE_KEY_SHIFT) != gorc_rt_cache_key (slot, other), i);
    CHECK (!gorc_rt_cache_tag_matches (e, pc | 1ull << 48), i);
    CHECK ((e >> GORC_RT_CACHE_KEY_SHIFT) != gorc_rt_cache_key (slot, pc | 1ull << 48), i);
  }
}

__attribute__((noinline, noclone)) static int
capture (void)
{
  int rc = gorc_backtrace (ips, NIPS);
  CHECK (rc >= 8, rc);
  return rc;
}

__attribute__((noinline, noclone)) static int
rec (int n)
{
  int r = n ? rec (n - 1) : capture ();
  sink += r;
  return r + 1;
}

int
main (void)
{
  check_words ();
  check_high_keys ();
  rec (5);
  rec (5);
  /* rec's return addresses (ips[1..6]) and main's: the cache has their
     words for the main program's slot.  */
  unsigned slot = atomic_load (&gorc_rt_main_slot);
  CHECK (slot < GORC_RT_MODULE_SLOTS, slot);
  for (int i = 1; i <= 7; i++)
    CHECK (gorc_rt_cache_word_of (slot, (uint64_t) (uintptr_t) ips[i]) != 0, i);
  return 0;
}
