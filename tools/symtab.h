/* gorc tools: every function symbol of an ELF file, read once and sorted,
   to name many addresses: gorc-prof's frames, gorc-dump's and
   gorc-check's ranges.

   The crash handler's reader (include/gorc/elf_symbols.h) chooses the
   table (the file's .symtab, else its separate debug file's, else its
   .dynsym), reads it and ranks aliases; this only keeps what it read, so
   that a tool names an address as a crash trace does, with a bisection
   instead of a pass over the table.  */

#ifndef GORC_TOOLS_SYMTAB_H
#define GORC_TOOLS_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct gorc_symtab_entry {
  uint64_t value;            /* the symbol's address in the file */
  uint64_t size;             /* 0 when the symbol has no size */
  /* The greatest end (value + size) of this entry and those before it:
     no symbol at or before this one contains an address past it.  */
  uint64_t reach;
  const char *name;          /* in the table's strings */
  unsigned char bind;        /* STB_* */
};

/* By value; at one value the sized symbols, then the unsized, each best
   name first.  */
struct gorc_symtab {
  struct gorc_symtab_entry *v;
  size_t n;
  char *strings;             /* the string table, NUL-terminated */
};

/* Read the function symbols of the ELF file PATH into ST.  A file that
   cannot be read or has no symbol table gives an empty ST, as the crash
   handler finds no symbol in it.  -1 (ST empty) when out of memory.  */
int gorc_symtab_load(struct gorc_symtab *st, const char *path);
void gorc_symtab_free(struct gorc_symtab *st);

/* The entry that names ADDR (an address of the file), or NULL: the
   symbol gorc_es_find gives.  */
const struct gorc_symtab_entry *gorc_symtab_find(const struct gorc_symtab *st, uint64_t addr);

#endif /* GORC_TOOLS_SYMTAB_H */
