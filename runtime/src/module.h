/* libgorc: the module of an address, found at walk time.

   No registry and no work at load: the first walk that meets an address
   asks glibc's _dl_find_object (lock-free and async-signal-safe) for its
   module, reads the module's program headers in place (its gorc note,
   .eh_frame_hdr, executable segments) and keeps what it found in one of
   GORC_RT_MODULE_SLOTS slots, so later walks through the module read
   nothing of it but the tables they look up.

   There are GORC_RT_MODULE_SLOTS slots: a program with more modules than
   that has its walks' modules take slots in turn (round robin, never the
   main program's).  A slot's sequence number changes with every rewrite
   (odd while it is being written); the PC cache forgets a rewritten
   slot's entries, and a cache writer that raced the rewrite sees the new
   number and takes its entry back, so no entry outlives its module's
   slot.  Whether the module a slot describes is still loaded is asked of
   _dl_find_object again, once per walk and slot
   (gorc_rt_module_slot_current): dlclose tells nobody, and another module
   may be loaded at the same address.  The main program's slot needs no
   such check: it is never unloaded.  */

#ifndef GORC_RT_MODULE_H
#define GORC_RT_MODULE_H

#include <stdint.h>
#include "ehframe.h"

#define GORC_HIDDEN __attribute__((visibility("hidden")))

#define GORC_RT_MODULE_SLOTS 256
#define GORC_RT_MAX_EXEC 8         /* executable PT_LOADs kept per module */

/* What a module's gorc records are, as far as the walk is concerned.  */
enum gorc_rt_records {
  GORC_RT_RECORDS_NONE = 0,        /* no gorc note: .eh_frame only */
  GORC_RT_RECORDS_SORTED = 1,      /* usable, index sorted: bisection */
  GORC_RT_RECORDS_UNSORTED = 2,    /* usable, index not sorted (ld -r): a scan */
  GORC_RT_RECORDS_BAD = 3          /* a version or note we cannot use: ignored */
};

/* One module as a walk sees it: a copy of a slot.  */
struct gorc_rt_module {
  /* identity: what _dl_find_object says of the module, and a hash of its
     file name (glibc reuses link_maps and addresses) */
  uint64_t map_lo, map_hi;
  const void *link_map;
  uint64_t eh_hdr;
  uint64_t fingerprint;
  /* where its code is: a return address outside these is not code */
  uint64_t bias;
  unsigned nexec;
  uint64_t exec_lo[GORC_RT_MAX_EXEC], exec_hi[GORC_RT_MAX_EXEC];
  /* gorc records (gorc_unwind_index, gorc_unwind), read in place */
  unsigned records;                /* enum gorc_rt_records */
  unsigned machine;
  uint64_t index_lo, index_hi;
  uint64_t bodies_lo, bodies_hi;
  int index_bad_starts;            /* an index entry starts outside the code */
  /* .eh_frame, read in place */
  struct gorc_rt_ehframe eh;
  /* the slot this copy came from, and its sequence number then; a slot
     of GORC_RT_MODULE_SLOTS means the copy is in no slot */
  unsigned slot;
  uint32_t seq;
  int permanent;                   /* never unloaded: the main program, the
                                      modules it needs, libc and the dynamic
                                      linker (permanent.c) */
};

/* The main program's slot, once a walk has met it (GORC_RT_MODULE_SLOTS
   until then).  */
GORC_HIDDEN extern _Atomic unsigned gorc_rt_main_slot;

/* The slots of permanent modules, a bit per slot: never rewritten, so
   every walk may take them as checked.  */
GORC_HIDDEN extern _Atomic uint64_t gorc_rt_permanent_slots[GORC_RT_MODULE_SLOTS / 64];

/* Does slot SLOT (GORC_RT_MODULE_SLOTS: none) hold a permanent module?  */
static inline int gorc_rt_slot_permanent(unsigned slot)
{
  return slot < GORC_RT_MODULE_SLOTS
         && (__atomic_load_n(&gorc_rt_permanent_slots[slot / 64], __ATOMIC_ACQUIRE)
             >> (slot % 64) & 1);
}

/* Does slot SLOT still hold what it held at sequence number SEQ?  */
GORC_HIDDEN int gorc_rt_module_slot_holds(unsigned slot, uint32_t seq);

/* Is the module of LINK_MAP one that is never unloaded (permanent.c)?  */
GORC_HIDDEN int gorc_rt_module_is_permanent(const void *link_map);

/* Find the module holding PC into *M.  Returns 0, or -1 when PC is in no
   loaded module.  Async-signal-safe; the first time for a module it
   reads the module's ELF and program headers.  */
GORC_HIDDEN int gorc_rt_module_find(uint64_t pc, struct gorc_rt_module *m);

/* Is the module slot SLOT holds (a slot the PC cache named for PC) still
   the one loaded where PC is (PC asks _dl_find_object)?  Reads only the
   slot's identity, in place: the check a walk makes once per module.  */
GORC_HIDDEN int gorc_rt_module_slot_current(unsigned slot, uint64_t pc);

/* Is [addr, addr + len) inside one executable segment of M?  */
GORC_HIDDEN int gorc_rt_module_has_code(const struct gorc_rt_module *m, uint64_t addr,
                                        uint64_t len);

/* A module's file: NAME (its link_map's), or for the main program (NULL
   or empty NAME) the executable's through /proc/self/exe, into BUF.
   Returns it, or NULL when it cannot be had.  Async-signal-safe.  */
GORC_HIDDEN const char *gorc_rt_module_file(const char *name, char *buf, size_t bufsize);

/* For the profiler's module list (normal context): the span [*LO, *HI)
   of INFO's executable segments and its file (gorc_rt_module_file).
   Returns the file, or NULL when the module has no code or no name.  */
struct dl_phdr_info;
GORC_HIDDEN const char *gorc_rt_module_span_and_path(const struct dl_phdr_info *info,
                                                     uint64_t *lo, uint64_t *hi,
                                                     char *buf, size_t bufsize);

#endif
