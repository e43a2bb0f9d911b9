/* gorc tools: the symbols of an ELF file, read once and sorted, to name
   many addresses: gorc-dump's and gorc-check's ranges (through
   elfload.c); or a pass over them naming a set of addresses known
   beforehand: gorc-prof's frames (gorc_symtab_name_each).

   The crash handler's reader (include/gorc/elf_symbols.h) chooses the
   table (the file's .symtab, else its separate debug file's, else its
   .dynsym), reads it, says which symbols are functions and ranks
   aliases; this keeps what it read, so that every tool names an address
   as a crash trace does, with a bisection instead of a pass over the
   table per address.  */

#ifndef GORC_TOOLS_SYMTAB_H
#define GORC_TOOLS_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct gorc_sym {
  uint64_t addr;             /* its address in the file (ET_REL: as laid out) */
  uint64_t size;             /* 0 when the symbol has no size */
  /* Functions: the greatest end (addr + size) of this entry and those
     before it: no function at or before this one contains an address
     past it.  */
  uint64_t reach;
  const char *name;          /* in the table's strings */
  const char *file;          /* the STT_FILE a local symbol follows, or NULL */
  unsigned char type, bind;  /* STT_*, STB_* */
};

/* Each array by address; at one address the sized symbols, then the
   unsized, each best name first (the rule of include/gorc/symrank.h).  */
struct gorc_symtab {
  struct gorc_sym *funcs;    /* what the crash handler names addresses with */
  size_t nfuncs;
  struct gorc_sym *others;   /* other named symbols of allocated sections
                                (when asked for) */
  size_t nothers;
  char *strings;             /* the string table, NUL-terminated */
  uint32_t *xindex;          /* SHT_SYMTAB_SHNDX of the table, or NULL */
  uint64_t nxindex;
};

/* What to read.  */
struct gorc_symtab_opts {
  int others;                /* the other symbols too (else functions only) */
  /* A relocatable object's symbols are relative to their sections: the
     address the caller gave each section (NSECTIONS of them); NULL for a
     linked file.  */
  const uint64_t *section_addr;
  size_t nsections;
};

/* Read the symbols of the ELF file PATH into ST.  A file that cannot be
   read or has no symbol table gives an empty ST, as the crash handler
   finds no symbol in it.  -1 (ST empty) when out of memory.  */
int gorc_symtab_load(struct gorc_symtab *st, const char *path,
                     const struct gorc_symtab_opts *opts);
void gorc_symtab_free(struct gorc_symtab *st);

/* The function that names ADDR, or NULL: the symbol gorc_es_find gives
   (the crash handler's).  */
const struct gorc_sym *gorc_symtab_find(const struct gorc_symtab *st, uint64_t addr);

/* The best named symbol of V (N of them, sorted as above) at the
   greatest address at or below ADDR, or NULL.  */
const struct gorc_sym *gorc_symtab_preceding(const struct gorc_sym *v, size_t n, uint64_t addr);

/* The names of the functions that name the N addresses ADDRS (ascending,
   distinct) of the linked ELF file PATH, as gorc_symtab_find would on
   its loaded table: NAMES[i] a copy (malloc'd), or NULL for none.  One
   pass over the table, read in place (mapped) and not kept: to name the
   few addresses a profile met, loading and sorting libc's 6,818 debug
   functions was most of the cost.  An address in a PLT (.plt, .plt.sec,
   .plt.got) is named after its stub, "SYM@plt", from the relocation of
   the slot the stub jumps through (struct gorc_arch's plt_slot), as
   perf names it; no symbol covers the PLTs.  0, or -1 when out of
   memory.  */
int gorc_symtab_name_each(const char *path, const uint64_t *addrs, size_t n, char **names);

#endif /* GORC_TOOLS_SYMTAB_H */
