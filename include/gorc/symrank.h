/* gorc: which of several ELF symbols at one address names it: the rule
   of the one symbol reader (include/gorc/elf_symbols.h) of libgorc's
   crash handler and of gorc-prof, gorc-dump and gorc-check (through
   tools/lib/symtab.c), so that a crash trace, a profile and a dump name an
   address alike.

   Plain C without libc calls: elfsym.c runs in a signal handler.  */

#ifndef GORC_SYMRANK_H
#define GORC_SYMRANK_H

#include <elf.h>

/* ELF symbol binding: global before weak before local.  */
static inline int gorc_sym_bind_rank(unsigned bind)
{
  return bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
}

/* Of two symbols at one address, A (sized or not, binding BIND_A, name
   NAME_A) and B: < 0 when A names the address, > 0 when B does, 0 when
   they are the same.  A sized symbol before an unsized one, then by
   binding, then the shorter name, then the smaller (bytewise).  */
static inline int gorc_sym_alias_order(int sized_a, unsigned bind_a, const char *name_a,
                                       int sized_b, unsigned bind_b, const char *name_b)
{
  unsigned long la = 0, lb = 0;
  if (!sized_a != !sized_b)
    return sized_a ? -1 : 1;
  if (gorc_sym_bind_rank(bind_a) != gorc_sym_bind_rank(bind_b))
    return gorc_sym_bind_rank(bind_a) > gorc_sym_bind_rank(bind_b) ? -1 : 1;
  while (name_a[la])
    la++;
  while (name_b[lb])
    lb++;
  if (la != lb)
    return la < lb ? -1 : 1;
  for (unsigned long i = 0; i < la; i++)
    if (name_a[i] != name_b[i])
      return (unsigned char)name_a[i] < (unsigned char)name_b[i] ? -1 : 1;
  return 0;
}

#endif
