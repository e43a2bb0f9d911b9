/* A loaded module's gorc records as the format tests see them: its note
   (from the program headers, as libgorc finds it), its index entries,
   and the file offset of an address, for tests that patch a copy of the
   file.  Normal context only.  Includers define _GNU_SOURCE first and
   use dg-gorc-runtime internal (format.h is in include/).  */
#ifndef GORC_INDEX_H
#define GORC_INDEX_H
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/wait.h>
#include "gorc/format.h"
#include "rt-test.h"

struct rt_module_records {
  uintptr_t base;                       /* dlpi_addr */
  const ElfW(Phdr) *ph;
  int phnum;
  int found;                            /* a version 2 note was found */
  struct gorc_note_info info;           /* run-time addresses */
};

struct rt_records_query {
  uintptr_t addr;
  struct rt_module_records *out;
};

/* The gorc note in the PT_NOTE segment at [at, end), into R.  */
static inline void
rt_find_gorc_note (uintptr_t at, uintptr_t end, struct rt_module_records *r)
{
  while (end - at >= 12) {
    const uint8_t *n = (const uint8_t *) at;
    uint32_t namesz = gorc_get_le32 (n), descsz = gorc_get_le32 (n + 4);
    uintptr_t desc = at + 12 + ((namesz + 3) & ~3u);
    if (gorc_get_le32 (n + 8) == GORC_NOTE_TABLE && namesz == 5
        && memcmp (n + 12, GORC_NOTE_NAME, 5) == 0) {
      r->found = gorc_note_parse ((const uint8_t *) desc, descsz, desc, &r->info)
                 == GORC_DECODE_OK;
      return;
    }
    at = desc + ((descsz + 3) & ~3u);
  }
}

static inline int
rt_records_cb (struct dl_phdr_info *info, size_t size, void *data)
{
  struct rt_records_query *q = data;
  int mine = 0;
  (void) size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz)
      mine = 1;
  }
  if (!mine)
    return 0;
  memset (q->out, 0, sizeof *q->out);
  q->out->base = info->dlpi_addr;
  q->out->ph = info->dlpi_phdr;
  q->out->phnum = info->dlpi_phnum;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_NOTE && !q->out->found)
      rt_find_gorc_note (info->dlpi_addr + ph->p_vaddr,
                         info->dlpi_addr + ph->p_vaddr + ph->p_memsz, q->out);
  }
  return 1;
}

/* The records of the module holding ADDR; fails the test when the module
   has no version 2 note.  */
static inline void
rt_module_records (const void *addr, struct rt_module_records *r)
{
  struct rt_records_query q = { (uintptr_t) addr, r };
  CHECK (dl_iterate_phdr (rt_records_cb, &q) == 1, 0);
  CHECK (r->found, 0);
}

static inline size_t
rt_index_count (const struct rt_module_records *r)
{
  return (r->info.index_end - r->info.index_start) / GORC_INDEX_ENTRY_SIZE;
}

static inline uintptr_t
rt_index_entry (const struct rt_module_records *r, size_t i)
{
  return r->info.index_start + i * GORC_INDEX_ENTRY_SIZE;
}

/* Range start of index entry I.  */
static inline uintptr_t
rt_index_start (const struct rt_module_records *r, size_t i)
{
  uintptr_t e = rt_index_entry (r, i);
  return gorc_index_start ((const uint8_t *) e, e);
}

/* The index entry whose range starts at FN, or -1.  */
static inline long
rt_index_of (const struct rt_module_records *r, const void *fn)
{
  for (size_t i = 0; i < rt_index_count (r); i++)
    if (rt_index_start (r, i) == (uintptr_t) fn)
      return (long) i;
  return -1;
}

/* Are the index's range starts in ascending order?  */
static inline int
rt_index_sorted (const struct rt_module_records *r)
{
  for (size_t i = 1; i < rt_index_count (r); i++)
    if (rt_index_start (r, i) < rt_index_start (r, i - 1))
      return 0;
  return 1;
}

/* The file offset of run-time address ADDR of the module (its PT_LOAD
   that maps it), or -1.  */
static inline long
rt_file_offset (const struct rt_module_records *r, uintptr_t addr)
{
  for (int i = 0; i < r->phnum; i++) {
    const ElfW(Phdr) *ph = &r->ph[i];
    uintptr_t lo = r->base + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && addr >= lo && addr < lo + ph->p_filesz)
      return (long) (ph->p_offset + (addr - lo));
  }
  return -1;
}

/* This program's file, for a test to patch a copy of: its length.  */
#define RT_SELF_MAX (8 << 20)
static char rt_self[RT_SELF_MAX];
static inline long
rt_read_self (void)
{
  int fd = open ("/proc/self/exe", O_RDONLY);
  ssize_t len = read (fd, rt_self, sizeof rt_self);
  close (fd);
  CHECK (len > 0 && len < (ssize_t) sizeof rt_self, len);
  return (long) len;
}

/* rt_self's first LEN bytes, as the program PATH.  */
static inline void
rt_write_self_copy (const char *path, long len)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  CHECK (fd >= 0 && write (fd, rt_self, (size_t) len) == len && close (fd) == 0, 0);
}

/* Run PATH with ARG1 and ARG2 (or fewer: NULL), wait: its wait status.  */
static inline int
rt_run_copy (const char *path, const char *arg1, const char *arg2)
{
  pid_t pid = fork ();
  CHECK (pid >= 0, pid);
  if (pid == 0) {
    execl (path, path, arg1, arg2, (char *) NULL);
    FAIL ("execl", 0);
  }
  int status;
  CHECK (waitpid (pid, &status, 0) == pid, 0);
  return status;
}

/* In rt_self (read by rt_read_self), the index of module R in reverse
   order: entry I gets the range of entry N-1-I, its two fields
   rewritten relative to its own place.  A sorted index of two or more
   entries comes out unsorted, whatever the linker did.  */
static inline void
rt_reverse_index_in_self (const struct rt_module_records *r)
{
  size_t n = rt_index_count (r);
  for (size_t i = 0; i < n; i++) {
    uintptr_t e = rt_index_entry (r, i), from = rt_index_entry (r, n - 1 - i);
    long at = rt_file_offset (r, e);
    CHECK (at > 0 && at + 8 <= RT_SELF_MAX, at);
    int32_t start = (int32_t) (gorc_index_start ((const uint8_t *) from, from) - e);
    int32_t body = (int32_t) (gorc_index_body ((const uint8_t *) from, from) - (e + 4));
    memcpy (rt_self + at, &start, 4);
    memcpy (rt_self + at + 4, &body, 4);
  }
}
#endif
