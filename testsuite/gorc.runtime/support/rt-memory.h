/* The process's memory as the dlclose tests measure it, from /proc
   (normal context only: stdio).  */
#ifndef RT_MEMORY_H
#define RT_MEMORY_H
#include <stdio.h>
#include <unistd.h>
#include "rt-test.h"

/* The process's virtual size and resident set, in bytes (statm).  */
static inline void
rt_statm (long *vsz, long *rss)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  CHECK (f && fscanf (f, "%ld %ld", vsz, rss) == 2, 0);
  fclose (f);
  *vsz *= sysconf (_SC_PAGESIZE);
  *rss *= sysconf (_SC_PAGESIZE);
}

/* How many mappings the process has (lines of /proc/self/maps).  */
static inline int
rt_maps_lines (void)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  int c, n = 0;
  CHECK (f != NULL, 0);
  while ((c = getc (f)) != EOF)
    n += c == '\n';
  fclose (f);
  return n;
}
#endif
