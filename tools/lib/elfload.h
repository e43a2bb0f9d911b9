/* gorc tools: one ELF loader for gorc-dump and gorc-check.

   gorc_elf_open reads a whole file into memory.  Linked files (ET_EXEC,
   ET_DYN) are used as they are.  Relocatable objects (ET_REL) are given an
   address space first: every SHF_ALLOC section gets a distinct address
   (code sections first, in section order, from GORC_REL_BASE, each at its
   alignment), the RELA relocations of .eh_frame, .debug_frame,
   gorc_unwind_index and gorc_unwind are applied into the buffer and
   sh_addr is set in the section headers of the buffer.  The patched
   buffer is then opened with elf_memory, so libdw and the record decoder
   see a normal address space.  (.note.gorc is not relocated: its offsets
   refer to __start_/__stop_ symbols that only a final link defines.)

   Only 64-bit little-endian files of a machine with a port in tools/lib/arch-*.c
   (x86-64, aarch64) are accepted.  Every offset and
   size read from the file is checked; errors are reported as text in
   g->err naming the section and offset, never by crashing.  */

#ifndef GORC_TOOLS_ELFLOAD_H
#define GORC_TOOLS_ELFLOAD_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "arch.h"
#include "symtab.h"

#define GORC_REL_BASE 0x10000

struct gorc_sec {
  const char *name;        /* never NULL ("" when unreadable) */
  GElf_Shdr shdr;          /* sh_addr as laid out for ET_REL */
  const uint8_t *data;     /* contents in the (patched) buffer, or NULL */
  size_t size;             /* bytes at data (0 for SHT_NOBITS) */
};

struct gorc_elf {
  const char *path;
  uint8_t *buf;
  size_t size;
  int buf_copied;          /* buf is a copy (malloc), not the file mapped */
  /* the file opened, as fstat gave it (zero for an image in memory):
     which file the kernel maps, for gorc-prof's walker */
  dev_t dev;
  ino_t ino;
  struct timespec ctime, mtime;
  Elf *elf;                /* elf_memory of buf */
  int is_rel;              /* ET_REL: addresses were assigned by the loader */
  unsigned e_type;
  unsigned e_machine;
  const struct gorc_arch *arch;  /* the port for e_machine */
  size_t shnum;
  struct gorc_sec *secs;   /* shnum entries; [0] is the null section */
  size_t *by_addr;         /* SHF_ALLOC sections with size, sorted by address */
  size_t nby_addr;
  struct gorc_symtab syms;  /* by the crash handler's reader (symtab.h) */
  char err[512];
};

/* 0 on success; -1 with a message in g->err (g must still be closed).  */
int gorc_elf_open(struct gorc_elf *g, const char *path);
/* The same without the symbols (g->syms stays empty), for a reader of
   the sections only: gorc-prof, whose frames are named from one table
   per file that holds functions only (prof-fold.c).  */
int gorc_elf_open_sections(struct gorc_elf *g, const char *path);
/* gorc_elf_open_sections of the SIZE bytes at IMAGE, an ELF file in
   memory (the vdso), copied; NAME names it.  */
int gorc_elf_open_image(struct gorc_elf *g, const char *name, const uint8_t *image,
                        size_t size);
void gorc_elf_close(struct gorc_elf *g);

/* Index of the SHF_ALLOC section (code preferred) containing ADDR, or 0.  */
size_t gorc_elf_section_at(const struct gorc_elf *g, uint64_t addr);
/* G's first section named NAME whose contents were read, or NULL.  */
const struct gorc_sec *gorc_elf_section_named(const struct gorc_elf *g, const char *name);

/* Nearest preceding function symbol in the section of ADDR, else any
   symbol there, else NULL.  */
const struct gorc_sym *gorc_elf_symbol_at(const struct gorc_elf *g,
                                          uint64_t addr);

/* "func+0x1a", "sect+0x10" or "0x1234" into BUF.  IS_END: ADDR is one
   past the last byte of something; name it from the byte before it.  */
void gorc_elf_symbolize(const struct gorc_elf *g, uint64_t addr, int is_end,
                        char *buf, size_t n);

#endif /* GORC_TOOLS_ELFLOAD_H */
