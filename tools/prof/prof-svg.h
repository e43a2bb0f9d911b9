/* gorc-prof: a self-contained SVG flame graph from folded stacks.  */
#ifndef GORC_PROF_SVG_H
#define GORC_PROF_SVG_H

#include <stddef.h>
#include <stdint.h>

struct svg_stack {
  const char *stack;   /* "root;...;leaf" */
  uint64_t count;
};

/* Write the flame graph of STACKS to PATH.  0, or -1 with errno.  */
int svg_write(const char *path, const char *title, const struct svg_stack *stacks, size_t n);

#endif
