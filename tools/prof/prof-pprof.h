/* gorc-prof: the profile as pprof's profile.proto, gzipped (PREFIX.pb.gz),
   encoded with protobuf-c from pprof's own .proto.  */
#ifndef GORC_PROF_PPROF_H
#define GORC_PROF_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include "prof-fold.h"

/* Write the folded stacks LIST to PATH: samples (count) and cpu
   (nanoseconds, PERIOD_NS per sample), one function and one location per
   frame name, each sample labelled with its pid, thread (numbers) and
   comm (a string).  Kernel frames (PROF_KERNEL_SUFFIX) are named
   without the suffix, their locations in the mapping "[kernel.kallsyms]";
   the other frames' in a mapping named MAIN (the program: pprof shows it
   as the profile's file).  START: the profile's start (seconds since
   the epoch), DURATION its length in seconds.  Written aside and
   renamed: PATH is complete or absent.  0, or -1 with a message
   printed.  */
int prof_pprof_write(const char *path, const char *main, const struct prof_folded *list,
                     size_t n, uint64_t period_ns, double start, double duration);

#endif
