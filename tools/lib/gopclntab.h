/* gorc tools: Go programs' own table of their functions, .gopclntab:
   gorc-prof's frame sizes of a Go program (tools/prof/prof-unwind.c) and
   the names of its functions where it has no symbol table (symtab.c).

   Every Go program keeps it, stripped or not (Go's runtime walks its
   own stacks with it): each function's entry, its name, and a table of
   how far SP has moved from the entry at each address (pcsp).  From it
   a frame's state is CFA = sp + that + 8, the return address at CFA - 8,
   the frame pointer unchanged: what Go's linker writes in .debug_frame,
   which a program built with -ldflags=-s -w does not have.

   The layouts read (runtime/symtab.go's pcHeader, functab and _func),
   x86-64 only (pointers of 8 bytes, instructions a byte apart):
     magic 0xfffffffa   Go 1.16, 1.17: absolute entries in the functab
     magic 0xfffffff0   Go 1.18, 1.19: entries relative to textStart
     magic 0xfffffff1   Go 1.20 and later: _func has startLine too
   Every offset read is checked against the section: a corrupt table
   gives no state, never a fault.  */
#ifndef GORC_TOOLS_GOPCLNTAB_H
#define GORC_TOOLS_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>
#include "gorc/format.h"

struct gorc_go {
  const uint8_t *tab, *end;      /* .gopclntab's bytes */
  unsigned layout;               /* 116, 118 or 120 (the first Go version of it) */
  uint64_t nfunc;
  uint64_t text;                 /* what functab's entries are relative to (0: absolute) */
  const uint8_t *funcnames, *pctab, *functab;
};

/* G for the .gopclntab bytes [TAB, TAB + SIZE) of a program whose
   .text section starts at TEXT: 0, or -1 when they are not a table of a
   layout read here.  (From Go 1.22 or so the header's textStart is 0 in
   the file, set by the runtime: the entries are relative to .text.)  */
int gorc_go_open(struct gorc_go *g, const uint8_t *tab, size_t size, uint64_t text);

/* The state of a frame at file address PC of G's program: 1, with in
   *NEXT the first address above PC where it may change; 0 when no
   function of G holds PC, or its table is corrupt there (*NEXT: the
   next function's entry, or UINT64_MAX).  */
int gorc_go_state(const struct gorc_go *g, uint64_t pc, struct gorc_state *st, uint64_t *next);

/* The name of G's function holding file address PC (in G's bytes), or
   NULL.  */
const char *gorc_go_name(const struct gorc_go *g, uint64_t pc);

/* A function's flags (runtime's funcFlag, Go 1.17 and later; 0
   before): where Go's own traceback stops.  */
#define GORC_GO_TOPFRAME 1u     /* the outermost frame of a stack */
#define GORC_GO_SPWRITE 2u      /* it writes SP: its caller may be on another stack */

/* FN(ARG, NAME, LO, HI, FLAGS) for each function of G: [LO, HI) its
   code, FLAGS its GORC_GO_*.  */
void gorc_go_each_function(const struct gorc_go *g,
                           void (*fn)(void *arg, const char *name, uint64_t lo, uint64_t hi,
                                      unsigned flags),
                           void *arg);

#endif
