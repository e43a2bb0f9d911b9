/* gorc-prof: samples to folded stacks ("root;...;leaf COUNT"), each
   address named by its file's symbols.  */
#ifndef GORC_PROF_FOLD_H
#define GORC_PROF_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include "prof-data.h"

/* The samples of one thread with one stack: STACK is "root;...;leaf",
   kernel frames (the innermost ones) ending in PROF_KERNEL_SUFFIX
   (prof-kernel.h).  COMM is the process's, in D.  */
struct prof_folded {
  char *stack;
  uint64_t count;
  pid_t pid;
  uint32_t tid;
  const char *comm;
};

/* How the samples' stacks ended; KERNEL_FRAMES: samples with kernel
   frames.  */
struct prof_fold_counts {
  uint64_t complete, truncated, incomplete, deeper, callchain, kernel_only;
  uint64_t no_table;          /* --unwind=bpf: a module's table not loaded yet */
  uint64_t exec;              /* in an exec, the old program's stack gone */
  uint64_t kernel_frames;
};

/* Every sample of D folded by stack and thread, sorted by stack, then
   pid and tid; *N of them.  */
struct prof_folded *prof_fold(const struct prof_data *d, size_t *n, struct prof_fold_counts *c);
void prof_folded_free(struct prof_folded *f, size_t n);

/* The display name of address PC of process P at TIME (a function,
   else "[file]", else "[unknown]"); TMP holds it when it is made up.  */
const char *prof_frame_name(const struct prof_proc *p, uint64_t pc, uint64_t time, char *tmp,
                            size_t tmplen);

/* Every sample of D to PATH, a line each: "TIME TID END FRAME;FRAME..."
   innermost first, END the enum prof_walk_end, each FRAME FILE+ADDR
   (the file's base name and the address in its numbering, hex; of a
   caller the return address - 1, its call, as perf script prints it;
   a frame-pointer callchain's addresses as they are, as perf prints them),
   "?" outside every file.  The user frames only (perf-compare.awk leaves
   perf's kernel frames out too), and samples that have some.  For
   comparisons with other unwinders (perf script).
   0, or -1 with errno.  */
int prof_write_stacks(const char *path, const struct prof_data *d);

/* 64-bit FNV-1a of S: the one string hash of gorc-prof.  */
uint64_t prof_hash(const char *s);

#endif
