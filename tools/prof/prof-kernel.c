/* gorc-prof: kernel addresses named from /proc/kallsyms (see
   prof-kernel.h).  The text symbols (types t, T, w, W) are read once,
   at the first kernel frame named, and sorted by address; an address is
   named by the symbol at or below it, as perf does (kallsyms has no
   sizes), with the tools' lookup (gorc_symtab_preceding, symtab.h).  At
   one address a global symbol is preferred to a local one (_stext over
   its local aliases).  */

#define _GNU_SOURCE
#include "prof-kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elf.h>

#include "prof-data.h"
#include "symtab.h"

/* Each name with PROF_KERNEL_SUFFIX, in chunks of NAME_CHUNK bytes that
   never move (one allocation per chunk, not per name: kallsyms has over
   100,000 text symbols); bind STB_GLOBAL or STB_LOCAL; no sizes.  */
#define NAME_CHUNK (256 * 1024)
static struct gorc_sym *ksyms;
static size_t nksyms, cap_ksyms;
static char **chunks;
static size_t nchunks, cap_chunks, chunk_used = NAME_CHUNK;
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

/* NAME (LEN bytes) with PROF_KERNEL_SUFFIX, kept in the chunks.  */
static const char *keep_name(const char *name, size_t len)
{
  size_t need = len + sizeof PROF_KERNEL_SUFFIX;
  if (need > NAME_CHUNK)
    return NULL;
  if (chunk_used + need > NAME_CHUNK) {
    chunks = prof_xgrow(chunks, &cap_chunks, nchunks + 1, sizeof *chunks, 16, SIZE_MAX);
    chunks[nchunks++] = prof_xmalloc(NAME_CHUNK);
    chunk_used = 0;
  }
  char *kept = chunks[nchunks - 1] + chunk_used;
  memcpy(kept, name, len);
  memcpy(kept + len, PROF_KERNEL_SUFFIX, sizeof PROF_KERNEL_SUFFIX);
  chunk_used += need;
  return kept;
}

/* One line of kallsyms, "ADDR TYPE NAME[\tMODULE]" (LINE, LEN bytes, no
   newline), kept when a text symbol.  Returns 1 when its address was
   hidden (0).  */
static int read_line(const char *line, size_t len)
{
  char *after;
  /* (the hex digits end at the space: strtoull stays inside the line) */
  uint64_t addr = strtoull(line, &after, 16);
  size_t i = (size_t)(after - line);
  if (i == 0 || i + 3 > len || line[i] != ' ' || line[i + 2] != ' ')
    return 0;
  char type = line[i + 1];
  if (type != 't' && type != 'T' && type != 'w' && type != 'W')
    return 0;
  if (addr == 0)
    return 1;
  const char *name = line + i + 3;
  size_t n = strcspn(name, " \t\n");     /* (the line ends at its newline) */
  if (n > len - (i + 3))
    n = len - (i + 3);
  const char *kept = n ? keep_name(name, n) : NULL;
  if (!kept)
    return 0;
  ksyms = prof_xgrow(ksyms, &cap_ksyms, nksyms + 1, sizeof *ksyms, 4096, SIZE_MAX);
  struct gorc_sym *k = &ksyms[nksyms++];
  memset(k, 0, sizeof *k);
  k->addr = addr;
  k->name = kept;
  k->type = STT_FUNC;
  k->bind = type == 'T' || type == 'W' ? STB_GLOBAL : STB_LOCAL;
  return 0;
}

/* /proc/kallsyms read in large pieces, each whole line read_line's.  */
static void load(void)
{
  static char buf[64 * 1024];
  size_t have = 0, hidden = 0;
  ssize_t got;
  loaded = 1;
  int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "gorc-prof: cannot read /proc/kallsyms: kernel frames are shown as %s\n",
            PROF_KERNEL_UNNAMED);
    return;
  }
  for (;;) {
    got = read(fd, buf + have, sizeof buf - have);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    size_t end = have + (size_t)got, start = 0;
    for (char *nl; (nl = memchr(buf + start, '\n', end - start)) != NULL;
         start = (size_t)(nl - buf) + 1)
      hidden += (size_t)read_line(buf + start, (size_t)(nl - (buf + start)));
    have = end - start;
    /* a line longer than the buffer (none is) is dropped */
    if (have == sizeof buf)
      have = 0;
    memmove(buf, buf + start, have);
  }
  close(fd);
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
  for (size_t i = 0; i < nchunks; i++)
    free(chunks[i]);
  free(chunks);
  free(ksyms);
  ksyms = NULL;
  chunks = NULL;
  nksyms = cap_ksyms = nchunks = cap_chunks = 0;
  chunk_used = NAME_CHUNK;
  loaded = 0;
}
