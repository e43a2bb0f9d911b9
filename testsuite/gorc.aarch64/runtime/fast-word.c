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
