/* gorc tools: files mapped for reading (and arrays: large ones in huge
   pages, growing ones grown by one rule).  A file that shrinks while a
   tool has it mapped (truncated or rewritten in place) makes a read of
   the lost pages raise SIGBUS; the tools then stop with a message naming
   the file and exit status 2, not a crash.  */

#ifndef GORC_TOOLS_MAPPED_H
#define GORC_TOOLS_MAPPED_H

#include <stddef.h>

/* Map LEN bytes of FD (PATH) privately, PROT_READ | PROT_WRITE when
   WRITABLE (the copy's pages are the tool's own), else PROT_READ, with
   FLAGS added to MAP_PRIVATE.  Returns the mapping or MAP_FAILED
   (errno set).  */
void *gorc_map_file(int fd, size_t len, int writable, int flags, const char *path);

/* Unmap what gorc_map_file mapped at ADDR.  */
void gorc_unmap_file(void *addr, size_t len);

/* N bytes aligned to a huge page (2 MB), in transparent huge pages where
   the kernel has them, for large arrays: the first touch of each 4 KB
   page is a page fault, 3-15 µs each on the VM of this project's figures
   (2 MB of them: 6 ms), one huge page's 0.2 ms.  NULL when out of memory;
   freed by free().  */
#define GORC_HUGE_PAGE ((size_t)2 << 20)
void *gorc_alloc_huge(size_t n);

/* N rounded up to whole huge pages.  */
static inline size_t gorc_huge_round(size_t n)
{
  return (n + GORC_HUGE_PAGE - 1) & ~(GORC_HUGE_PAGE - 1);
}

/* BYTES for an array: from malloc below SMALL bytes, else whole huge
   pages (gorc_alloc_huge).  NULL when out of memory; freed by free().  */
void *gorc_alloc_array(size_t bytes, size_t small);

/* Grow by doubling, the one rule of the tools' growing arrays: the
   array V of *CAP entries of SIZE bytes with room for at least MIN,
   *CAP made FIRST at first, then doubled until MIN fit; the old *CAP
   entries kept.  Past HUGE bytes (SIZE_MAX: never) it moves to whole
   huge pages (gorc_alloc_huge: *CAP then fills them), else it is
   realloc'd.  The array (V itself when MIN fit already), or NULL, V
   and *CAP unchanged, when out of memory; freed by free().  */
void *gorc_grow_array(void *v, size_t *cap, size_t min, size_t size, size_t first,
                      size_t huge);

#endif
