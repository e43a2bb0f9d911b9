/* gorc-prof --unwind=bpf: the walker's tables kept on disk across runs.

   Building a module's table (prof-bpf.c: its records or .eh_frame read
   row by row, the rows into blocks) is the second cost of every start
   after the verifier's, and grows with the libraries a program maps: a
   module's finished table is kept in a file named by its build ID and
   size, and the next run that meets the same file loads its blocks as
   they are.  Their state ids are the table's own (prof-bpf.h): only its
   few states are looked up in the run's states map.

   Where: $GORC_PROF_CACHE; else $XDG_CACHE_HOME/gorc/prof-tables, else
   $HOME/.cache/gorc/prof-tables; GORC_PROF_CACHE=off (or empty): none.
   A module without a build ID is never kept.  At most
   PROF_CACHE_MAX_FILES files: past that the least recently used go (a
   file read is touched).  A file is written as FILE.PID and renamed; one
   an hour old was a killed run's, and goes.

   A file, in the machine's byte order (a cache is the machine's own):
     struct prof_cache_header
     struct gorc_state states[nstates]        (padding zeroed)
     struct prof_bpf_block blocks[]           (prof-bpf.h: the index
                                               levels, then nleaves leaves)
     uint64_t check                           (of every byte before it: check_sum)
   A file another gorc-prof wrote (its build ID, the header's producer)
   is built again and replaced, silently; a corrupt one too, said on
   stderr with the file and what is wrong.  */
#ifndef GORC_PROF_CACHE_H
#define GORC_PROF_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "gorc/format.h"
#include "prof-bpf.h"

/* The last byte is the layout's version: a file of another version is
   another gorc-prof's (version 1 summed a byte at a time, 2 held rows).  */
#define PROF_CACHE_MAGIC "GORCPTC3"
#define PROF_CACHE_MAX_FILES 1024
#define PROF_CACHE_ID_MAX 64

struct prof_cache_header {
  char magic[8];
  uint32_t nstates, nrows;
  uint32_t producer_len;      /* bytes of producer: the build ID of the gorc-prof that wrote it */
  uint8_t producer[PROF_CACHE_ID_MAX];
  uint32_t nleaves;           /* the blocks' shape: prof_bpf_tree */
  uint32_t pad;
};

/* A module's table as the cache holds it.  */
struct prof_cache_table {
  struct gorc_state *states;  /* its own numbering, which its leaves' rows hold */
  uint32_t nstates;
  const struct prof_bpf_block *blocks;  /* in FILE when it was read */
  uint32_t nblocks, nleaves;
  uint32_t nrows;             /* the rows its leaves hold */
  uint8_t *file;
};

/* The file whose build ID is ID (IDLEN bytes) and SIZE bytes: its table
   into T (1; free it with prof_cache_free), or 0 when the cache has none
   (or none usable: a corrupt file is said on stderr).  */
int prof_cache_load(const uint8_t *id, size_t idlen, uint64_t size, struct prof_cache_table *t);
/* T kept as that file's table (nothing when there is no cache; a
   directory that cannot be made or written is said on stderr once).  */
void prof_cache_store(const uint8_t *id, size_t idlen, uint64_t size,
                      const struct prof_cache_table *t);
void prof_cache_free(struct prof_cache_table *t);
/* gorc-prof's own build ID in hex ("" where it has none): what names
   the files it keeps, and its kept walker (prof-keep.h).  */
const char *prof_own_build_id_hex(void);

#endif
