/* gorc-prof: the profile stream, the data file written by the sampler in libgorc-preload.so
   (runtime/src/prof.c) and read by tools/prof/gorc-prof.c.

   One file per profiled process image, GORC_PROF_OUT.PID (GORC_PROF_OUT.PID.N
   after an exec): the 8-byte magic, then
   records, each a header and a body, LEN (header included) a multiple of 8.
   Addresses are absolute; MODULE records map them to files.  */

#ifndef GORC_PROF_H
#define GORC_PROF_H

#include <stdint.h>

#define GORC_PROF_MAGIC "GORCPRF1"

enum {
  GORC_PROF_SAMPLE = 1,   /* u32 tid, i32 status, u64 ips[] (innermost first) */
  GORC_PROF_MODULE = 2,   /* u64 base, lo, hi (executable span), char name[] */
  GORC_PROF_END = 3       /* u64 samples, dropped, hz: the process ended cleanly */
};

struct gorc_prof_rec {
  uint32_t type, len;
};

struct gorc_prof_sample {
  struct gorc_prof_rec h;
  uint32_t tid;
  int32_t status;      /* 0: outermost frame reached; 1: depth limit; <0: -GORC_E* */
  uint64_t ips[];
};

struct gorc_prof_module {
  struct gorc_prof_rec h;
  uint64_t base, lo, hi;
  char name[];         /* NUL-terminated, zero-padded */
};

struct gorc_prof_end {
  struct gorc_prof_rec h;
  uint64_t samples, dropped, hz;
};

#define GORC_PROF_MAX_DEPTH 512

#endif
