/* gorc-prof --preload: the program sampled from inside by
   libgorc-preload.so (runtime/src/prof.c), each sample walked by libgorc
   and written to a file per process (include/gorc/prof.h).  */
#ifndef GORC_PROF_PRELOAD_H
#define GORC_PROF_PRELOAD_H

#include "prof-data.h"

struct prof_preload_opts {
  char **cmd;
  long hz;
  int progress;              /* 1: terminal progress line, 2: every 5 s */
  int keep;                  /* keep the data directory */
};

/* Run the program and read its samples into D.  0, or 2 after an error
   message; *STATUS is the program's wait status, *CPU its CPU seconds.  */
int prof_preload_run(const struct prof_preload_opts *o, struct prof_data *d, int *status,
                     double *cpu);

#endif
