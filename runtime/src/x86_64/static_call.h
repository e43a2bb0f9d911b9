/* libgorc's x86-64 port: the instructions static-call updates write
   (static_call.c).  A trampoline's aligned 8-byte word holds one
   instruction at offset 0, int3-padded: jmp rel32 to the target (or the
   unit's return-0 stub), or jmp *var(%rip) when rel32 cannot reach.  A
   call site patched in place is a `call rel32` or `jmp rel32` whose
   rel32 lies inside one aligned 8-byte word.  The interface (the same in
   every port): gorc_rt_sc_word, GORC_RT_SC_TRAMP_SIZE, GORC_RT_SC_PAD,
   gorc_rt_sc_encode, gorc_rt_sc_tramp_ok, gorc_rt_sc_site_word,
   gorc_rt_sc_sync_icache.  */

#ifndef GORC_RT_X86_64_STATIC_CALL_H
#define GORC_RT_X86_64_STATIC_CALL_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "gorc/static_call_desc.h"

/* What one update store writes: a trampoline's aligned 8-byte word, or
   the aligned word holding a call site's rel32.  */
typedef uint64_t gorc_rt_sc_word;

#define GORC_RT_SC_TRAMP_SIZE GORC_SC_TRAMP_SIZE_X86_64

#define GORC_RT_OP_INT3 0xcc
#define GORC_RT_OP_CALL_REL32 0xe8
#define GORC_RT_OP_JMP_REL32 0xe9
#define GORC_RT_OP_JMP_IND0 0xff   /* jmp *rel32(%rip): ff 25 */
#define GORC_RT_OP_JMP_IND1 0x25

/* The byte a trampoline word is padded with.  */
#define GORC_RT_SC_PAD GORC_RT_OP_INT3

/* The trampoline word at TRAMP that jumps to FN (the variable at VAR
   holds FN) into *WORD.  Returns 0 or -ERANGE.  */
static inline int gorc_rt_sc_encode(uintptr_t tramp, uintptr_t var, uintptr_t fn,
                                    gorc_rt_sc_word *word)
{
  unsigned char b[GORC_RT_SC_TRAMP_SIZE];
  memset(b, GORC_RT_OP_INT3, sizeof b);
  int64_t rel = (int64_t)(fn - (tramp + 5));
  if (rel == (int32_t)rel) {
    int32_t r = (int32_t)rel;
    b[0] = GORC_RT_OP_JMP_REL32;
    memcpy(b + 1, &r, 4);
  } else {
    rel = (int64_t)(var - (tramp + 6));
    if (rel != (int32_t)rel)
      return -ERANGE;
    int32_t r = (int32_t)rel;
    b[0] = GORC_RT_OP_JMP_IND0;
    b[1] = GORC_RT_OP_JMP_IND1;
    memcpy(b + 2, &r, 4);
  }
  memcpy(word, b, sizeof b);
  return 0;
}

/* The trampoline at TRAMP (aligned) is in one of the states: one
   instruction at offset 0.  */
static inline int gorc_rt_sc_tramp_ok(uintptr_t tramp)
{
  unsigned char b[8];
  gorc_rt_sc_word w = *(volatile gorc_rt_sc_word *)tramp;
  memcpy(b, &w, 8);
  return b[0] == GORC_RT_OP_JMP_REL32
         || (b[0] == GORC_RT_OP_JMP_IND0 && b[1] == GORC_RT_OP_JMP_IND1);
}

/* Point the call site at SITE at DEST, else at TRAMP when DEST is out of
   rel32 range: the aligned word to store into *WORD and its address into
   *AT.  A site is patchable when it is a `call rel32` or `jmp rel32`
   whose rel32 lies inside one aligned 8-byte word (its other bytes are
   stored unchanged; only libgorc writes code, under its mutex).  Returns
   0, or -1 when the site is not patchable or neither is in reach.  */
static inline int gorc_rt_sc_site_word(uintptr_t site, uintptr_t dest, uintptr_t tramp,
                                       uintptr_t *at, gorc_rt_sc_word *word)
{
  unsigned char op = *(volatile unsigned char *)site;
  if ((op != GORC_RT_OP_CALL_REL32 && op != GORC_RT_OP_JMP_REL32) || (site + 1) % 8 > 4)
    return -1;
  int64_t r = (int64_t)(dest - (site + 5));
  if (r != (int32_t)r)
    r = (int64_t)(tramp - (site + 5));
  if (r != (int32_t)r)
    return -1;
  int32_t rel = (int32_t)r;
  *at = (site + 1) & ~(uintptr_t)7;
  gorc_rt_sc_word w = __atomic_load_n((gorc_rt_sc_word *)*at, __ATOMIC_RELAXED);
  memcpy((unsigned char *)&w + (site + 1) % 8, &rel, 4);
  *word = w;
  return 0;
}

/* After a store of code at WRITTEN (executed at EXECUTED, the same
   address unless written through the alias): x86-64 keeps instruction
   fetch coherent with stores by itself.  */
static inline void gorc_rt_sc_sync_icache(uintptr_t written, uintptr_t executed)
{
  (void)written, (void)executed;
}

#endif
