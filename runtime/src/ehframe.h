/* libgorc: a module's .eh_frame, as the walk reads it in place (lookup.c).

   For code without gorc records (libc, ld.so, hand-written assembly,
   anything not built with the plugin).  The FDE is found through
   .eh_frame_hdr's sorted search table (PT_GNU_EH_FRAME) by bisection, and
   its CIE's and its own call frame instructions are interpreted up to the
   address at walk time: async-signal-safe, no allocation, no lock, every
   read checked against the bounds the caller gives.  */

#ifndef GORC_RT_EHFRAME_H
#define GORC_RT_EHFRAME_H

#include <stdint.h>
#include "gorc/format.h"

/* One module's .eh_frame as the walk sees it (run-time addresses).  */
struct gorc_rt_ehframe {
  uint64_t hdr;           /* .eh_frame_hdr: the PT_GNU_EH_FRAME segment */
  uint64_t hdr_size;      /* its p_memsz */
  uint64_t lo, hi;        /* every CIE/FDE byte read lies in [lo, hi): the
                             module's loaded, readable segment(s) holding
                             .eh_frame */
  uint64_t entry;         /* its entry point, 0 for none (gorc_eh_in_entry) */
};


#endif
