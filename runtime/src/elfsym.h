/* gorc: the function symbol of an address, read from an ELF file on
   disk, and the ELF note walker it needs.  Shared by libgorc's crash
   handler (crash.c, in a signal handler) and tools/gorc-prof (offline).

   Async-signal-safe: open, fstat, pread and close only; no allocation,
   no stdio, no locks.  Everything is read through small buffers on the
   stack (about 3 KB), so the cost is paid per lookup: one pass over the
   symbol table, milliseconds for a large program.  Every read is bounds
   checked against the file: a truncated, corrupt or foreign file yields
   "no symbol", never a fault.  */

#ifndef GORC_ELFSYM_H
#define GORC_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/* struct gorc_elf_note, struct gorc_elfsym and the reader itself.  */
#include "gorc/elf_symbols.h"

/* The note at *POS of the LEN bytes of notes at BUF (a note section or
   segment, 4-byte aligned entries) into *N, and *POS moved past it.
   Returns 1, or 0 at the end or at a note that does not fit.  Start
   with *POS = 0.  */
int gorc_elf_note_next(const uint8_t *buf, size_t len, size_t *pos, struct gorc_elf_note *n);

/* The function symbol (STT_FUNC, STT_GNU_IFUNC) of ADDR, an address of
   the ELF file PATH as the file numbers it (a run-time address minus the
   module's load bias).  The symbol chosen: among the sized symbols that
   contain ADDR the one with the greatest value; else the unsized symbol
   with the greatest value at or below ADDR, unless a sized symbol that
   ends before ADDR starts after it.  Aliases: global before weak before
   local, then the shorter name, then the smaller.

   Read from PATH's .symtab; when it has none, from the .symtab of its
   separate debug file (by build ID under /usr/lib/debug/.build-id/, else
   by .gnu_debuglink next to PATH, in its .debug/ or under
   /usr/lib/debug/DIR/); else from PATH's .dynsym.

   Returns 1 with *SYM and NAME (NUL-terminated, cut to NAMELEN - 1
   bytes), 0 when there is no such symbol or the files cannot be read.  */
int gorc_elfsym_find(const char *path, uint64_t addr, struct gorc_elfsym *sym, char *name,
                     size_t namelen);

#endif
