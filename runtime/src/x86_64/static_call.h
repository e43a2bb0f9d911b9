/* libgorc's x86-64 port: the instructions static-call updates write
   (static_call.c).  A trampoline's aligned 8-byte word holds one
   instruction at offset 0, int3-padded: jmp rel32 to the target (or the
   unit's return-0 stub), or jmp *var(%rip) when rel32 cannot reach.  A
   call site patched in place is a `call rel32` or `jmp rel32` whose
   rel32 lies inside one aligned 8-byte word.  */

#ifndef GORC_RT_X86_64_STATIC_CALL_H
#define GORC_RT_X86_64_STATIC_CALL_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "gorc/static_call_desc.h"

/* Static calls are patched on this machine.  */
#define GORC_RT_SC_PORTED 1

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
                                    uint64_t *word)
{
  unsigned char b[GORC_SC_TRAMP_SIZE];
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

/* A word in one of the states: one instruction at offset 0.  */
static inline int gorc_rt_sc_word_ok(uint64_t w)
{
  unsigned char b[8];
  memcpy(b, &w, 8);
  return b[0] == GORC_RT_OP_JMP_REL32
         || (b[0] == GORC_RT_OP_JMP_IND0 && b[1] == GORC_RT_OP_JMP_IND1);
}

/* Can the call site at SITE (its first byte OP) be pointed elsewhere
   with one aligned 8-byte store?  */
static inline int gorc_rt_sc_site_ok(uintptr_t site, unsigned char op)
{
  return (op == GORC_RT_OP_CALL_REL32 || op == GORC_RT_OP_JMP_REL32) && (site + 1) % 8 <= 4;
}

/* Point the site at SITE (gorc_rt_sc_site_ok) at DEST, else at TRAMP
   when DEST is out of reach: its displacement into *REL and where it
   goes into *AT (inside one aligned 8-byte word).  Returns 0, or -1 when
   neither is in reach.  */
static inline int gorc_rt_sc_site_rel(uintptr_t site, uintptr_t dest, uintptr_t tramp,
                                      int32_t *rel, uintptr_t *at)
{
  int64_t r = (int64_t)(dest - (site + 5));
  if (r != (int32_t)r)
    r = (int64_t)(tramp - (site + 5));
  if (r != (int32_t)r)
    return -1;
  *rel = (int32_t)r;
  *at = site + 1;
  return 0;
}

#endif
