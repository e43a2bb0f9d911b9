/* gorc-prof: the names of kernel addresses, by the kernel's own lookup
   (prof-ksym.h) else from /proc/kallsyms.  */
#ifndef GORC_PROF_KERNEL_H
#define GORC_PROF_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* The suffix that marks a kernel frame in the folded stacks, as perf's
   and FlameGraph's stackcollapse-perf.pl --kernel write it: the flame
   graph colours such frames apart and the pprof puts them in the
   kernel's mapping.  No C or C++ symbol ends in it.  */
#define PROF_KERNEL_SUFFIX "_[k]"
/* A kernel frame whose name is not known.  */
#define PROF_KERNEL_UNNAMED "[kernel]" PROF_KERNEL_SUFFIX

/* Kernel address PC will be named: every address met before the first
   prof_kernel_name is named with it, at once.  */
void prof_kernel_meet(uint64_t pc);

/* The display name of kernel address PC, with PROF_KERNEL_SUFFIX: the
   text symbol at or below it (the kernel's lookup where BPF may run,
   else the first listed in /proc/kallsyms at the highest address at or
   below it: the same symbol, unless that is the end of the kernel's
   text: code gone since), else PROF_KERNEL_UNNAMED.  An address not
   named yet is named with every other address met and not named.  Where
   the kernel's lookup cannot run or name some, and kallsyms is read:
   without the privilege to see kernel addresses (kernel.kptr_restrict,
   CAP_SYSLOG) it lists every one as 0: then every kernel frame is
   PROF_KERNEL_UNNAMED, said once on stderr.  */
const char *prof_kernel_name(uint64_t pc);

/* Is NAME (a folded frame) a kernel frame?  */
int prof_kernel_frame(const char *name, size_t len);

/* The names given, freed.  */
void prof_kernel_end(void);

#endif
