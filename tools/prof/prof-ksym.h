/* gorc-prof: kernel addresses named by the kernel's own symbol lookup,
   what the naming program (prof-ksym.bpf.c) and its loader (prof-ksym.c)
   share.  Included by both, so fixed-width types only.

   A BPF program of type syscall, run on demand (BPF_PROG_RUN), formats
   each address of a batch with bpf_snprintf's "%ps": the kernel's
   kallsyms_lookup, as its own oopses name frames.  That names a profile's
   few hundred kernel addresses in well under a millisecond, where
   reading /proc/kallsyms (120,000 lines printed by the kernel) takes
   tens: most of gorc-prof's own CPU in a short profile.  */
#ifndef GORC_PROF_KSYM_H
#define GORC_PROF_KSYM_H

#include <stdint.h>

/* Addresses named by one run of the program.  */
#define PROF_KSYM_SLOTS 512
/* A name's bytes, its terminating 0 included: longer ones are not named
   here (kallsyms names them).  */
#define PROF_KSYM_NAME 240

/* The map slots, array of PROF_KSYM_SLOTS, mapped by the loader: PC in,
   NAME and LEN out.  */
struct prof_ksym_slot {
  uint64_t pc;
  int64_t len;           /* bpf_snprintf's: the bytes it needed, 0 included; < 0: an error */
  char name[PROF_KSYM_NAME];
};

/* The program's context: how many slots to name.  */
struct prof_ksym_args {
  uint32_t count;
};

#ifndef __bpf__
#include <stddef.h>

/* Names the N addresses PCS through the kernel: calls NAMED(ARG, I,
   NAME, LEN) for each address PCS[I] the kernel has a symbol for (LEN
   bytes, not terminated; a module's symbol without its module).  Those
   it has none for (an ftrace trampoline, a gap), or whose name is too
   long, are left to the caller.  Returns -1 when BPF is refused or was
   not built (then nothing is named), else how many were named.  The
   program is loaded at the first call and kept until prof_ksym_end.  */
long prof_ksym_name(const uint64_t *pcs, size_t n,
                    void (*named)(void *arg, size_t i, const char *name, size_t len), void *arg);

void prof_ksym_end(void);
#endif

#endif
