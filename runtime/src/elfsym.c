/* gorc: the function symbol of an address from an ELF file on disk, and
   the ELF note walker (see elfsym.h): the reader of
   include/gorc/elf_symbols.h, shared with gorc-prof.  */

#define _GNU_SOURCE
#include "elfsym.h"

int gorc_elf_note_next(const uint8_t *buf, size_t len, size_t *pos, struct gorc_elf_note *n)
{
  return gorc_es_note_next(buf, len, pos, n);
}

int gorc_elfsym_find(const char *path, uint64_t addr, struct gorc_elfsym *sym, char *name,
                     size_t namelen)
{
  return gorc_es_find(path, addr, sym, name, namelen);
}
