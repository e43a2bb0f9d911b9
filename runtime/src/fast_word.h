/* libgorc: the fast word, the format of a state the walk's inner loop
   (walk.c) follows with the registers in locals, and the PC cache
   (lookup.h) and the walk memo (memo.c) keep.  Only libgorc writes and
   reads it, in memory (no file holds one); this header is its one
   definition, the fields and their accessors.

   24 bits, never 0:
     | bits  | field                                                      |
     |-------|------------------------------------------------------------|
     | 0     | the CFA is fp + off (else sp + off)                        |
     | 1     | aarch64: the return address is signed (strip it); x86-64 0 |
     | 2     | the outermost frame: every other field is 0                |
     | 3-13  | off itself (a multiple of 8, 8..16376)                     |
     | 14-18 | k: fp unchanged (0) or saved at CFA - 8k (1..31)           |
     | 19-23 | j: aarch64: the return address at CFA - 8j (1..31);        |
     |       | x86-64: 0 (it is at CFA - 8)                               |
   gorc_rt_fast_word (lookup.c) makes one from a struct gorc_state, or
   says the state is none; gorc_rt_word_state gives the state back.  */

#ifndef GORC_RT_FAST_WORD_H
#define GORC_RT_FAST_WORD_H

#include <stdint.h>
#include "arch.h"

/* A word says nothing of the aux register (x86-64's rbx): the inner loop
   does not follow it, and a walk that turns out to need it walks again
   with the general step (walk.c).  Each field is a mask or a shift and a
   mask away from what the loop needs, and ignores bits 24 and up: the
   loop takes the low half of a PC cache entry as the word.  */
#define GORC_RT_W_CFA_BP 1u
#define GORC_RT_W_RA_SIGNED 2u
#define GORC_RT_W_END 4u
#define GORC_RT_W_OFF_MASK 0x3ff8u
#define GORC_RT_W_BP_SHIFT 11          /* (w >> 11) & 0xf8 = 8k */
#define GORC_RT_W_J_SHIFT 16           /* (w >> 16) & 0xf8 = 8j */
#define GORC_RT_W_SLOT8_MASK 0xf8u
#define GORC_RT_W_BP_MASK (0x1fu << 14)
#define GORC_RT_W_J_MASK (0x1fu << 19)
#define GORC_RT_W_BP_FAR (0x10u << 14)    /* k >= 16: fp 128 bytes or more below */
#define GORC_RT_W_J_FAR (0x10u << 19)     /* j >= 16 */

static inline uint64_t gorc_rt_w_off(uint32_t w)
{
  return w & GORC_RT_W_OFF_MASK;
}

/* 8k: how far below the CFA fp is saved, 0 when it is not.  */
static inline uint64_t gorc_rt_w_bp8(uint32_t w)
{
  return (w >> GORC_RT_W_BP_SHIFT) & GORC_RT_W_SLOT8_MASK;
}

/* 8j: how far below the CFA the return address is saved on a machine
   that names it in the word.  */
static inline uint64_t gorc_rt_w_j8(uint32_t w)
{
  return (w >> GORC_RT_W_J_SHIFT) & GORC_RT_W_SLOT8_MASK;
}

/* How far below the CFA the return address is saved.  */
static inline uint64_t gorc_rt_w_ra8(uint32_t w)
{
  return GORC_STEP_RA_IN_REG ? gorc_rt_w_j8(w) : 8;
}

/* Is a frame whose fast word is W, with CFA CFA, one the inner loop may
   step from sp SP on the stack [LO, HI)?  The CFA above sp, aligned, at
   most HI, and the slots the word names (fp, the return address where
   the word names it) at or above LO.  The loop's common branch needs
   only the CFA's bound (walk.c says why); its careful branch, and the
   walk memo's second stepping of a run (memo.c), ask this.  */
static inline int gorc_rt_w_frame_ok(uint32_t w, uint64_t cfa, uint64_t sp, uint64_t lo,
                                     uint64_t hi)
{
  return cfa > sp && !(cfa & 7) && cfa <= hi && cfa - lo >= gorc_rt_w_bp8(w)
         && cfa - lo >= gorc_rt_w_j8(w);
}

#endif
