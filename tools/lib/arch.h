/* gorc tools: what the tools know of one architecture.

   Each port is one file, tools/arch-<name>.c, defining one struct
   gorc_arch; tools/lib/arch.c lists them.  Everything else in tools/ is the
   same for every architecture and asks these.  */

#ifndef GORC_TOOLS_ARCH_H
#define GORC_TOOLS_ARCH_H

#include <stddef.h>
#include <stdint.h>

/* How the loader applies one relocation type of a relocatable object.  */
enum gorc_reloc_range {
  GORC_RELOC_ANY,          /* 64 bits: never overflows */
  GORC_RELOC_SIGNED,       /* the value must fit as a signed WIDTH-byte number */
  GORC_RELOC_UNSIGNED      /* ... as an unsigned one */
};

struct gorc_reloc {
  unsigned width;          /* bytes written, little-endian; 0: R_*_NONE, skip */
  int pcrel;               /* S + A - P (else S + A) */
  enum gorc_reloc_range range;
};

/* What an instruction does to a signed return address (pointer
   authentication), for gorc-check's check of the records' signed flag.  */
enum gorc_ra_effect {
  GORC_RA_EFFECT_NONE,     /* leaves it as it is */
  GORC_RA_EFFECT_SIGN,     /* paciasp, pacibsp: signed after it */
  GORC_RA_EFFECT_AUTH,     /* autiasp, autibsp: unsigned after it */
  GORC_RA_EFFECT_AUTH_RET  /* retaa, retab: signed up to it, no fall-through */
};

struct gorc_insn_info {
  unsigned len;            /* bytes */
  enum gorc_ra_effect ra;
  int falls_through;       /* the next instruction can run right after it */
};

struct gorc_arch {
  unsigned machine;        /* ELF e_machine, also the records' machine */
  const char *name;        /* "x86-64" */
  const char *fp_name;     /* the frame pointer in state text: "bp", "fp" */
  unsigned dwarf_sp, dwarf_fp;
  unsigned dwarf_ra;       /* the return-address column (aarch64: x30 itself) */
  /* DWARF register REG's name in state text (never NULL).  */
  const char *(*reg_name)(unsigned reg);
  /* Relocation TYPE: 0 and *R filled in, or -1 (a type gorc does not
     apply).  */
  int (*reloc)(unsigned type, struct gorc_reloc *r);
  /* Decode the instruction at CODE (AVAIL bytes there), or NULL when the
     machine does not sign return addresses (gorc-check then has nothing
     to check of the signed flag).  Returns 0, or -1 when there is no
     whole instruction.  */
  int (*insn_info)(const uint8_t *code, size_t avail, struct gorc_insn_info *out);
  /* The GOT slot that the PLT stub ENTRY (LEN bytes, at address ADDR)
     jumps through, into *SLOT: 0, or -1 when the stub loads none (a lazy
     stub that jumps to the PLT's header).  */
  int (*plt_slot)(const uint8_t *entry, size_t len, uint64_t addr, uint64_t *slot);
};

extern const struct gorc_arch gorc_arch_x86_64;
extern const struct gorc_arch gorc_arch_aarch64;

/* The port for ELF machine E_MACHINE, or NULL.  */
const struct gorc_arch *gorc_arch_for(unsigned e_machine);

/* "x86-64, aarch64": the machines the tools read, for messages.  */
const char *gorc_arch_names(void);

#endif /* GORC_TOOLS_ARCH_H */
