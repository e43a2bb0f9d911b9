/* gorc tools: files mapped for reading.  A file that shrinks while a tool
   has it mapped (truncated or rewritten in place) makes a read of the
   lost pages raise SIGBUS; the tools then stop with a message naming the
   file and exit status 2, not a crash.  */

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

#endif
