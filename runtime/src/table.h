/* libgorc internal: the in-memory unwind table of one module.

   At registration (normal context, never in a signal handler) a module's
   gorc_unwind ranges and, for code they do not cover, its .eh_frame FDEs
   are decoded into one array of fixed-size entries owned by libgorc,
   sorted by address.  The unwind path only reads these arrays: no
   decoding, no allocation, no access to the module's own tables.  */

#ifndef GORC_RT_TABLE_H
#define GORC_RT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "gorc/format.h"

/* One state change.  PC_OFF is relative to the module's load base
   (dlpi_addr), so a module spans at most 4 GiB.  A state with cfa_kind
   GORC_CFA_END means "no information from here on" (the end of a range
   not immediately followed by another one).

   Besides the CFA and rbp, the table keeps one more callee-saved
   register, rbx: glibc's lazy-binding resolver (_dl_runtime_resolve_*)
   keeps its CFA in rbx, so a walk through it needs rbx's value in the
   frame above, restored through the frames in between.  gorc records
   do not describe rbx (GORC_RT_RBX_UNKNOWN after such a frame); .eh_frame does.  */
#define GORC_DWARF_RBX 3

enum gorc_rt_rbx_kind {
  GORC_RT_RBX_SAME = 0,     /* not saved by this frame: unchanged in the caller */
  GORC_RT_RBX_CFA = 1,      /* saved at CFA + rbx_off */
  GORC_RT_RBX_UNKNOWN = 2   /* not known (gorc records, or a rule we cannot follow) */
};

struct gorc_rt_entry {
  uint32_t pc_off;
  int32_t cfa_off;
  int32_t bp_off;
  int32_t rbx_off;
  uint8_t cfa_kind;   /* enum gorc_cfa_kind */
  uint8_t cfa_reg;
  uint8_t bp_kind;    /* enum gorc_bp_kind */
  uint8_t bp_reg;
  uint8_t rbx_kind;   /* enum gorc_rt_rbx_kind */
};

/* A growable entry array, used only at registration.  The memory comes
   from mmap (never malloc), so registration is safe even from a fork
   child or a malloc-less context, and is freed with munmap.  */
struct gorc_rt_builder {
  struct gorc_rt_entry *entries;
  size_t count, cap;
  int failed;          /* out of memory, or an offset did not fit */
};

/* Append one entry (PC is an absolute run-time address, BASE the module's
   load base; RBX_KIND/RBX_OFF the rbx rule).  Records failure in
   b->failed instead of returning it.  */
void gorc_rt_builder_add(struct gorc_rt_builder *b, uint64_t base, uint64_t pc,
                         const struct gorc_state *state, uint8_t rbx_kind, int64_t rbx_off);
void gorc_rt_builder_free(struct gorc_rt_builder *b);

/* Convert the .eh_frame at EH_FRAME (LEN bytes, mapped at run-time
   address EH_FRAME_ADDR, i.e. EH_FRAME itself for a loaded module) into
   entries: for every FDE, its rows as gorc states (rules gorc cannot
   express become GORC_CFA_UNDEFINED / GORC_BP_UNDEFINED), followed by an
   END entry at the FDE's end.  Every FDE is converted; the caller drops
   the ones that gorc records cover.  Returns 0, or -1 on a malformed
   section (the entries added so far stay valid).  */
int gorc_rt_convert_eh_frame(struct gorc_rt_builder *b, uint64_t base,
                             const uint8_t *eh_frame, size_t len,
                             uint64_t eh_frame_addr);

#endif
