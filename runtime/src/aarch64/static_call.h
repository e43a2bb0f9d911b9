/* libgorc's aarch64 port: the instructions static-call updates write
   (static_call.c; the interface is described in x86_64/static_call.h).
   A trampoline is 16 bytes (docs/STATIC_CALLS.md): its state is the one
   instruction at offset 0, replaced with one aligned 32-bit store:
     b target      the target (or the unit's return-0 stub) within
                   +-128 MB of the trampoline
     nop           anything else: into the fixed tail adrp x16, var;
                   ldr x16, [x16, #:lo12:var]; br x16 (the variable
                   always holds the target)
   B and NOP are among the instructions the architecture lets one thread
   modify while others may execute them (concurrent modification and
   execution), each seeing the old or the new one.  A call site patched
   in place is a bl (or b: a sibling call), always 4-byte aligned, so
   every site is patchable with one aligned 32-bit store.  */

#ifndef GORC_RT_AARCH64_STATIC_CALL_H
#define GORC_RT_AARCH64_STATIC_CALL_H

#include <stdint.h>
#include "gorc/static_call_desc.h"

typedef uint32_t gorc_rt_sc_word;

#define GORC_RT_SC_TRAMP_SIZE GORC_SC_TRAMP_SIZE_AARCH64

#define GORC_RT_A64_NOP 0xd503201fu
#define GORC_RT_A64_B 0x14000000u          /* b imm26 */
#define GORC_RT_A64_BL 0x94000000u         /* bl imm26 */
#define GORC_RT_A64_BRANCH_MASK 0xfc000000u
#define GORC_RT_A64_IMM26_MASK 0x03ffffffu
#define GORC_RT_A64_ADRP_X16 0x90000010u   /* adrp x16, ... */
#define GORC_RT_A64_ADRP_MASK 0x9f00001fu
#define GORC_RT_A64_BRANCH_RANGE (1l << 27) /* imm26 * 4: +-128 MB */

/* The byte the trampoline block is padded with (udf #0).  */
#define GORC_RT_SC_PAD 0

/* OPCODE (b or bl) from AT to DEST into *INSN; 0, or -1 when DEST is
   beyond +-128 MB or not 4-byte aligned.  */
static inline int gorc_rt_a64_branch(uint32_t opcode, uintptr_t at, uintptr_t dest,
                                     uint32_t *insn)
{
  int64_t rel = (int64_t)(dest - at);
  if (rel % 4 != 0 || rel < -GORC_RT_A64_BRANCH_RANGE || rel >= GORC_RT_A64_BRANCH_RANGE)
    return -1;
  *insn = opcode | ((uint32_t)(rel / 4) & GORC_RT_A64_IMM26_MASK);
  return 0;
}

/* The state instruction of the trampoline at TRAMP that goes to FN: b FN
   when in reach, else nop (the tail jumps through the variable, which
   holds FN).  Never fails.  */
static inline int gorc_rt_sc_encode(uintptr_t tramp, uintptr_t var, uintptr_t fn,
                                    gorc_rt_sc_word *word)
{
  (void)var;
  if (gorc_rt_a64_branch(GORC_RT_A64_B, tramp, fn, word) != 0)
    *word = GORC_RT_A64_NOP;
  return 0;
}

/* The trampoline at TRAMP holds a state (b or nop) and its tail starts
   with adrp x16.  */
static inline int gorc_rt_sc_tramp_ok(uintptr_t tramp)
{
  uint32_t state = *(volatile uint32_t *)tramp;
  uint32_t tail = *(volatile uint32_t *)(tramp + 4);
  return ((state & GORC_RT_A64_BRANCH_MASK) == GORC_RT_A64_B || state == GORC_RT_A64_NOP)
         && (tail & GORC_RT_A64_ADRP_MASK) == GORC_RT_A64_ADRP_X16;
}

/* The call site at SITE (a bl, or a b) pointed at DEST, else at TRAMP
   when DEST is beyond +-128 MB: the instruction into *WORD, SITE into
   *AT.  Returns 0, or -1 when SITE holds neither or neither is in reach.  */
static inline int gorc_rt_sc_site_word(uintptr_t site, uintptr_t dest, uintptr_t tramp,
                                       uintptr_t *at, gorc_rt_sc_word *word)
{
  uint32_t insn = *(volatile uint32_t *)site;
  uint32_t op = insn & GORC_RT_A64_BRANCH_MASK;
  if (site % 4 != 0 || (op != GORC_RT_A64_B && op != GORC_RT_A64_BL))
    return -1;
  if (gorc_rt_a64_branch(op, site, dest, word) != 0
      && gorc_rt_a64_branch(op, site, tramp, word) != 0)
    return -1;
  *at = site;
  return 0;
}

/* After a 32-bit store of code at WRITTEN, executed at EXECUTED (the
   same address unless written through the alias, which maps the same
   physical page): clean the data cache line to the point of
   unification, invalidate the instruction cache line by the address
   that executes, and synchronise this thread (the architecture's
   sequence for cross-modifying code; the other threads serialise in the
   membarrier SYNC_CORE that ends the update).  One instruction never
   crosses a cache line, so one line each suffices.  */
static inline void gorc_rt_sc_sync_icache(uintptr_t written, uintptr_t executed)
{
  __asm__ volatile("dc cvau, %0\n\t"
                   "dsb ish\n\t"
                   "ic ivau, %1\n\t"
                   "dsb ish\n\t"
                   "isb"
                   : : "r"(written), "r"(executed) : "memory");
}

#endif
