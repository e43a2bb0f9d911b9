/* gorc-prof: kernel addresses named from /proc/kallsyms (see
   prof-kernel.h).  The text symbols (types t, T, w, W) are read once,
   at the first kernel frame named, and sorted by address; an address is
   named by the symbol at or below it, as perf does (kallsyms has no
   sizes), with the tools' lookup (gorc_symtab_preceding, symtab.h).  At
   one address a global symbol is preferred to a local one (_stext over
   its local aliases).  */

#define _GNU_SOURCE
#include "prof-kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "prof-data.h"
#include "symtab.h"

/* Each name (malloc'd) with PROF_KERNEL_SUFFIX; bind STB_GLOBAL or
   STB_LOCAL; no sizes.  */
static struct gorc_sym *ksyms;
static size_t nksyms, cap_ksyms;
static int loaded;

/* By address, the global symbols first at one address (the first is
   the one gorc_symtab_preceding gives).  */
static int ksym_cmp(const void *a, const void *b)
{
  const struct gorc_sym *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return (y->bind == STB_GLOBAL) - (x->bind == STB_GLOBAL);
}

/* One line of kallsyms, "ADDR TYPE NAME [MODULE]", kept when a text
   symbol.  Returns 1 when its address was hidden (0).  */
static int read_line(const char *line)
{
  unsigned long long addr;
  char type, name[256];
  if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
    return 0;
  if (type != 't' && type != 'T' && type != 'w' && type != 'W')
    return 0;
  if (addr == 0)
    return 1;
  ksyms = prof_xgrow(ksyms, &cap_ksyms, nksyms + 1, sizeof *ksyms, 4096, SIZE_MAX);
  struct gorc_sym *k = &ksyms[nksyms++];
  size_t n = strlen(name);
  char *display = prof_xmalloc(n + sizeof PROF_KERNEL_SUFFIX);
  memcpy(display, name, n);
  memcpy(display + n, PROF_KERNEL_SUFFIX, sizeof PROF_KERNEL_SUFFIX);
  memset(k, 0, sizeof *k);
  k->addr = addr;
  k->name = display;
  k->type = STT_FUNC;
  k->bind = type == 'T' || type == 'W' ? STB_GLOBAL : STB_LOCAL;
  return 0;
}

static void load(void)
{
  char line[512];
  size_t hidden = 0;
  loaded = 1;
  FILE *f = fopen("/proc/kallsyms", "r");
  if (!f) {
    fprintf(stderr, "gorc-prof: cannot read /proc/kallsyms: kernel frames are shown as %s\n",
            PROF_KERNEL_UNNAMED);
    return;
  }
  while (fgets(line, sizeof line, f))
    hidden += (size_t)read_line(line);
  fclose(f);
  if (nksyms == 0 && hidden > 0)
    fprintf(stderr, "gorc-prof: /proc/kallsyms hides the kernel's addresses "
            "(kernel.kptr_restrict, or no CAP_SYSLOG): kernel frames are shown as %s\n",
            PROF_KERNEL_UNNAMED);
  prof_sort(ksyms, nksyms, sizeof *ksyms, ksym_cmp);
}

const char *prof_kernel_name(uint64_t pc)
{
  if (!loaded)
    load();
  const struct gorc_sym *k = gorc_symtab_preceding(ksyms, nksyms, pc);
  return k ? k->name : PROF_KERNEL_UNNAMED;
}

int prof_kernel_frame(const char *name, size_t len)
{
  size_t n = sizeof PROF_KERNEL_SUFFIX - 1;
  return len >= n && memcmp(name + len - n, PROF_KERNEL_SUFFIX, n) == 0;
}

void prof_kernel_end(void)
{
  for (size_t i = 0; i < nksyms; i++)
    free((char *)ksyms[i].name);
  free(ksyms);
  ksyms = NULL;
  nksyms = cap_ksyms = 0;
  loaded = 0;
}
