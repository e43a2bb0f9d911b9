/* gorc-prof: the profile as pprof's profile.proto, gzipped (PREFIX.pb.gz),
   encoded with protobuf-c from pprof's own .proto.  */
#ifndef GORC_PROF_PPROF_H
#define GORC_PROF_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include "prof-fold.h"

/* Write the folded stacks LIST to PATH: samples (count) and cpu
   (nanoseconds, PERIOD_NS per sample), one function and one location per
   frame name.  Written aside and renamed: PATH is complete or absent.
   0, or -1 with a message printed.  */
int prof_pprof_write(const char *path, const struct prof_folded *list, size_t n,
                     uint64_t period_ns, double duration);

#endif
