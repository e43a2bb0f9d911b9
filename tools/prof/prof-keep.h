/* gorc-prof --keep-walker[=DIR]: the BPF walker kept loaded between
   runs, pinned in the BPF file system.

   Loading the walker is most of what a short run costs: the kernel's
   verifier checks its programs (~2.6 ms of CPU) and the kernel makes
   its maps, at every start.  Kept, a run finds the verified programs
   and their maps in DIR (/sys/fs/bpf/gorc-prof unless given), pinned
   by the run before, and only clears what that run left in the maps.

   DIR/KEY holds one walker: its programs and every map, pinned under
   their names.  KEY names what the loaded walker depends on: the
   gorc-prof that built it (its build ID), whether it takes kernel
   frames, its ring buffer's size.  A run locks DIR (flock) for its
   whole length: a second gorc-prof at the same time loads a walker of
   its own, not kept.  A run removes the other keys' walkers in DIR (an
   older gorc-prof's, another ring size's; nothing else there): one
   walker stays, about 1.5 MB of kernel memory (states 770 KB, a
   started program's ring buffer 512 KB, processes 130 KB) and its last
   run's tables.  `rm -r DIR` removes it.  */
#ifndef GORC_PROF_KEEP_H
#define GORC_PROF_KEEP_H

#include <limits.h>
#include <stddef.h>

#define PROF_KEEP_DIR "/sys/fs/bpf/gorc-prof"

struct bpf_object;
struct bpf_program;

struct prof_keep {
  int dir_fd;                 /* DIR, locked for the run; -1: nothing kept */
  char path[PATH_MAX];        /* DIR/KEY */
  int reused;                 /* the walker was there: its programs are not loaded */
};

/* Keep the walker named KEY in DIR for this run: DIR made (in a BPF
   file system), locked, the other keys' walkers removed.  0; or -1 with
   why not in WHY (K then keeps nothing).  */
int prof_keep_begin(struct prof_keep *k, const char *dir, const char *key, char *why,
                    size_t whylen);
/* OBJ's maps named to their pins in K: libbpf reuses a pinned one at
   load, and pins one it makes.  */
int prof_keep_maps(const struct prof_keep *k, struct bpf_object *obj);
/* The kept program NAME: a descriptor, or -1 when it is not kept.  */
int prof_keep_prog(const struct prof_keep *k, const char *name);
/* PROG kept as NAME.  0 or -1.  */
int prof_keep_pin(const struct prof_keep *k, struct bpf_program *prog, const char *name);
/* The kept walker removed (a load over it failed); K keeps nothing.  */
void prof_keep_drop(struct prof_keep *k);
/* The run's end: DIR unlocked.  */
void prof_keep_end(struct prof_keep *k);

#endif
