/* gorc tools: the aarch64 port.  */

#include "arch.h"

#include <elf.h>

#include "gorc/format.h"

/* DWARF numbering (AAPCS64 DWARF): x0..x30 = 0..30, sp = 31; x29 is "fp"
   in state text.  */
static const char *reg_name(unsigned reg)
{
  static const char *const names[32] = {
    "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
    "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
    "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "fp", "x30", "sp",
  };
  return reg < 32 ? names[reg] : "x?";
}

static int reloc(unsigned type, struct gorc_reloc *r)
{
  switch (type) {
  case R_AARCH64_NONE: *r = (struct gorc_reloc){ 0, 0, GORC_RELOC_ANY }; return 0;
  case R_AARCH64_ABS64: *r = (struct gorc_reloc){ 8, 0, GORC_RELOC_ANY }; return 0;
  case R_AARCH64_PREL64: *r = (struct gorc_reloc){ 8, 1, GORC_RELOC_ANY }; return 0;
  case R_AARCH64_ABS32: *r = (struct gorc_reloc){ 4, 0, GORC_RELOC_SIGNED }; return 0;
  case R_AARCH64_PREL32: *r = (struct gorc_reloc){ 4, 1, GORC_RELOC_SIGNED }; return 0;
  default: return -1;
  }
}

/* A64 encodings (Arm ARM, C6): every instruction is 4 bytes.  */
#define A64_PACIASP 0xd503233fu     /* hint #25 */
#define A64_PACIBSP 0xd503237fu     /* hint #27 */
#define A64_AUTIASP 0xd50323bfu     /* hint #29 */
#define A64_AUTIBSP 0xd50323ffu     /* hint #31 */
#define A64_RETAA 0xd65f0bffu
#define A64_RETAB 0xd65f0fffu
#define A64_RET_MASK 0xfffffc1fu    /* ret Xn */
#define A64_RET 0xd65f0000u
#define A64_BR_MASK 0xfffffc1fu     /* br Xn */
#define A64_BR 0xd61f0000u
#define A64_B_MASK 0xfc000000u      /* b imm26 */
#define A64_B 0x14000000u
#define A64_BRK_MASK 0xffe0001fu    /* brk #imm16: __builtin_trap */
#define A64_BRK 0xd4200000u
#define A64_UDF_MASK 0xffff0000u    /* udf #imm16 */
#define A64_UDF 0x00000000u

static int insn_info(const uint8_t *code, size_t avail, struct gorc_insn_info *out)
{
  if (avail < 4)
    return -1;
  uint32_t w = (uint32_t)code[0] | (uint32_t)code[1] << 8 | (uint32_t)code[2] << 16
               | (uint32_t)code[3] << 24;
  out->len = 4;
  out->ra = GORC_RA_EFFECT_NONE;
  out->falls_through = 1;
  if (w == A64_PACIASP || w == A64_PACIBSP) {
    out->ra = GORC_RA_EFFECT_SIGN;
  } else if (w == A64_AUTIASP || w == A64_AUTIBSP) {
    out->ra = GORC_RA_EFFECT_AUTH;
  } else if (w == A64_RETAA || w == A64_RETAB) {
    out->ra = GORC_RA_EFFECT_AUTH_RET;
    out->falls_through = 0;
  } else if ((w & A64_RET_MASK) == A64_RET || (w & A64_BR_MASK) == A64_BR
             || (w & A64_B_MASK) == A64_B || (w & A64_BRK_MASK) == A64_BRK
             || (w & A64_UDF_MASK) == A64_UDF) {
    out->falls_through = 0;
  }
  return 0;
}

/* A PLT stub: "adrp x16, PAGE; ldr x17, [x16, #OFF]; add x16, x16,
   #OFF; br x17" (after a bti c where built with BTI).  */
static int plt_slot(const uint8_t *entry, size_t len, uint64_t addr, uint64_t *slot)
{
  for (size_t i = 0; i + 8 <= len; i += 4) {
    uint32_t adrp = (uint32_t)entry[i] | (uint32_t)entry[i + 1] << 8
                    | (uint32_t)entry[i + 2] << 16 | (uint32_t)entry[i + 3] << 24;
    uint32_t ldr = (uint32_t)entry[i + 4] | (uint32_t)entry[i + 5] << 8
                   | (uint32_t)entry[i + 6] << 16 | (uint32_t)entry[i + 7] << 24;
    if ((adrp & 0x9f00001fu) != 0x90000010u || (ldr & 0xffc003ffu) != 0xf9400211u)
      continue;
    uint64_t imm = ((uint64_t)(adrp >> 5 & 0x7ffff) << 2 | (adrp >> 29 & 3)) << 12;
    if (imm & (1ULL << 32))
      imm |= ~0ULL << 33;     /* 33 bits, signed */
    uint64_t page = ((addr + i) & ~0xfffULL) + imm;
    *slot = page + (uint64_t)(ldr >> 10 & 0xfff) * 8;
    return 0;
  }
  return -1;
}

const struct gorc_arch gorc_arch_aarch64 = {
  .machine = GORC_MACHINE_AARCH64,
  .name = "aarch64",
  .fp_name = "fp",
  .dwarf_sp = GORC_DWARF_A64_SP,
  .dwarf_fp = GORC_DWARF_X29,
  .dwarf_ra = GORC_DWARF_X30,
  .reg_name = reg_name,
  .reloc = reloc,
  .insn_info = insn_info,
  .plt_slot = plt_slot,
};
