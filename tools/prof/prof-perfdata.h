/* gorc-prof --perf-data: a perf.data file (perf record) read into a
   profile: samples with user registers and stack (--call-graph dwarf)
   are unwound by gorc-prof, frame-pointer callchains (-g) used as they
   are.  */
#ifndef GORC_PROF_PERFDATA_H
#define GORC_PROF_PERFDATA_H

#include "prof-data.h"

/* 0, or 2 after an error message naming PATH (nothing is added to D
   then: a truncated, foreign or other-architecture file yields no
   profile).  */
int prof_perfdata_read(const char *path, struct prof_data *d);

#endif
