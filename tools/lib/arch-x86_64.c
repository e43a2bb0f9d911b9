/* gorc tools: the x86-64 port.  */

#include "arch.h"

#include <elf.h>

#include "gorc/format.h"

/* DWARF numbering (System V x86-64 psABI, figure 3.36); rbp and rsp are
   "bp" and "sp" in state text.  */
static const char *const reg_names[16] = {
  "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "bp", "sp",
  "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static const char *reg_name(unsigned reg)
{
  return reg < 16 ? reg_names[reg] : "r?";
}

static int reloc(unsigned type, struct gorc_reloc *r)
{
  switch (type) {
  case R_X86_64_NONE: *r = (struct gorc_reloc){ 0, 0, GORC_RELOC_ANY }; return 0;
  case R_X86_64_64: *r = (struct gorc_reloc){ 8, 0, GORC_RELOC_ANY }; return 0;
  case R_X86_64_PC64: *r = (struct gorc_reloc){ 8, 1, GORC_RELOC_ANY }; return 0;
  case R_X86_64_PC32:
  case R_X86_64_PLT32: *r = (struct gorc_reloc){ 4, 1, GORC_RELOC_SIGNED }; return 0;
  case R_X86_64_32: *r = (struct gorc_reloc){ 4, 0, GORC_RELOC_UNSIGNED }; return 0;
  case R_X86_64_32S: *r = (struct gorc_reloc){ 4, 0, GORC_RELOC_SIGNED }; return 0;
  default: return -1;
  }
}

/* The stubs of .plt, .plt.sec and .plt.got jump through their slot with
   "jmp *DISP(%rip)" (ff 25 disp32), after an endbr64 and with a bnd
   prefix (f2) where the program was built with IBT or MPX.  */
static int plt_slot(const uint8_t *entry, size_t len, uint64_t addr, uint64_t *slot)
{
  for (size_t i = 0; i + 6 <= len; i++)
    if (entry[i] == 0xff && entry[i + 1] == 0x25) {
      int32_t disp = (int32_t)((uint32_t)entry[i + 2] | (uint32_t)entry[i + 3] << 8
                               | (uint32_t)entry[i + 4] << 16 | (uint32_t)entry[i + 5] << 24);
      *slot = addr + i + 6 + (uint64_t)(int64_t)disp;
      return 0;
    }
  return -1;
}

const struct gorc_arch gorc_arch_x86_64 = {
  .machine = GORC_MACHINE_X86_64,
  .name = "x86-64",
  .fp_name = "bp",
  .dwarf_sp = GORC_DWARF_RSP,
  .dwarf_fp = GORC_DWARF_RBP,
  .dwarf_ra = GORC_DWARF_RA,
  .reg_name = reg_name,
  .reloc = reloc,
  .insn_info = NULL,
  .plt_slot = plt_slot,
};
