/* gorc-prof: the samples of a profile, whichever way they were taken
   (perf events, a perf.data file, the LD_PRELOAD sampler), per process,
   and the modules that name their addresses.  */

#ifndef GORC_PROF_DATA_H
#define GORC_PROF_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "prof-unwind.h"

/* An address span of a process that a file maps: address A is A - BASE
   in the file, from TIME on (the mapping's record's; 0: mapped before
   the recording, or no time known).  */
struct prof_span {
  uint64_t base, lo, hi;
  uint64_t time;
  char *name;                /* the file's path */
  const struct prof_module *mod;  /* its module (the file read), or NULL: NAME names it */
};

/* One sample: its N frames, innermost first, are proc.ips[AT ..] (the
   same frames once for every sample of them: proc.stacks): the
   first NKERNEL are kernel addresses (the kernel's callchain: where the
   kernel was interrupted, then its return addresses up to the system
   call's or the interrupt's entry), the other N - NKERNEL the user stack
   that was running (the user registers' ip, then return addresses), so
   that a system call's kernel frames sit on the user frames that made
   it.  A sample taken in user space has NKERNEL 0; one of a kernel
   thread (or the idle task) has only kernel frames.  How the user part
   ended: END, an enum prof_walk_end, or (LD_PRELOAD mode) -GORC_E* of
   libgorc's walk, shown as truncated.  Kernel frames are named from
   /proc/kallsyms (prof-kernel.h).  */
struct prof_sample {
  uint64_t time;             /* perf modes: the kernel's timestamp */
  uint32_t tid;
  int32_t end;
  uint32_t n;                /* frames, innermost first */
  uint32_t nkernel;          /* the first NKERNEL of them are the kernel's */
  size_t at;                 /* index of its first ip in proc.ips */
};

/* A distinct stack of a process: its frames at proc.ips[AT_PLUS_ONE - 1
   ..] (0: an empty slot).  */
struct prof_stack_slot {
  uint64_t hash;
  size_t at_plus_one;
  uint32_t n, nkernel;
};

struct prof_proc {
  pid_t pid;
  char comm[32];
  /* in the order they were mapped: an address is the last one's mapped
     by the sample's time (prof_span_of) */
  struct prof_span *spans;
  size_t nspans;
  /* a span was mapped over another file's (an exec, or a library
     mapped where another was): an address names other code at other
     times */
  int spans_overlap;
  struct prof_sample *samples;
  size_t nsamples, cap_samples;
  uint64_t *ips;
  size_t nips, cap_ips;
  /* the distinct stacks in IPS, hashed (open addressing, a power of two
     of slots, at most half used): a long run repeats a few thousand
     stacks, and a sample costs its 32 bytes, not 8 more a frame */
  struct prof_stack_slot *stacks;
  size_t nstacks, cap_stacks;
  uint32_t *tids;
  size_t ntids;
  int ended;                 /* it exited while profiled */
  /* prof_data.ends_by_threads: its threads started (FORK records) and
     not exited yet, its first thread not counted; has that one exited? */
  uint32_t threads_alive;
  int first_exited;
  struct prof_space space;   /* perf modes: its executable mappings now */
  /* LD_PRELOAD mode: its data file and how far it was read */
  char *path;
  off_t offset;
  int magic_ok;
};

/* Everything recorded or read.  */
struct prof_data {
  struct prof_proc *procs;
  size_t nprocs, cap_procs;
  uint64_t lost;             /* samples the kernel (or the sampler) dropped */
  uint64_t lost_records;     /* perf: PERF_RECORD_LOST events */
  uint64_t hz;
  uint64_t stack_bytes;      /* perf: bytes of stack copied, over all samples */
  uint64_t record_bytes;     /* perf: bytes of every record read */
  /* A process ends at its last thread's exit record, its threads counted
     from FORK and EXIT records (perf.data, where perf records a FORK for
     every thread, those already running included); else at its first
     thread's (recording live, whose records of a first thread that
     exits early say so only once /proc shows the process gone:
     prof-record.c).  */
  int ends_by_threads;
  /* Recording live: a mapped file is checked to be the one the kernel
     names, and looked for under the process's root (prof_proc_file).  A
     perf.data is read with the paths it names (and the build IDs it
     has).  */
  int live;
};

/* A mapped file as the kernel names it: its device and inode.  */
struct prof_file_id {
  uint32_t major, minor;
  uint64_t ino;
};

void *prof_xmalloc(size_t n);
/* The whole of FD, LEN bytes from its start, in a new buffer: NULL when
   it cannot be read (exits when out of memory, as prof_xmalloc).  */
uint8_t *prof_read_whole(int fd, size_t len);
void *prof_xrealloc(void *p, size_t n);
char *prof_xstrdup(const char *s);
/* PATH opened for writing as a new file (fopen "w"): an existing
   regular file is unlinked first, not truncated.  ext4 writes a file
   truncated (or renamed over) out at its close (auto_da_alloc), so the
   next run's truncation frees its blocks; mounted with discard, as on
   the VM of this project's figures, that waits for the disk (a few ms an
   output, seen in gorc-prof's sched_switch stacks: blkdev_issue_discard
   under do_truncate).  A new file stays in the page cache until written
   back, and unlinking it then frees nothing.  */
FILE *prof_create(const char *path);
/* qsort of N elements at V, which may be NULL when N is 0 (qsort itself
   wants an array even for none); none when they are in order already.  */
void prof_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* gorc_grow_array (mapped.h), exiting when out of memory.  */
void *prof_xgrow(void *v, size_t *cap, size_t min, size_t size, size_t first, size_t huge);

/* Text made in memory and written at once: fprintf and fputc per piece
   were most of the flame graph's and the stacks file's cost.  */
struct prof_text {
  char *buf;
  size_t len, cap;
};
void prof_text_put(struct prof_text *t, const char *s, size_t n);
/* V as printf's %llu (BASE 10) or %llx (BASE 16) writes it.  */
void prof_text_uint(struct prof_text *t, unsigned long long v, unsigned base);

/* The process PID that has not ended: found (NULL when none), or got
   (made, empty, when none).  */
struct prof_proc *prof_proc_find(struct prof_data *d, pid_t pid);
struct prof_proc *prof_proc_get(struct prof_data *d, pid_t pid);
/* The process PID whose thread TID's sample this is: the last one of
   that pid, ended or not, where TID is not its first thread (made when
   none).  A process ends at its first thread's exit record where its
   other threads are not counted (recording live), but exit_group's
   other threads die after that thread, and a sample of their dying is
   still the process's.  A new process of that pid starts with its fork
   record, which makes it, and in its first thread, pid = tid.  */
struct prof_proc *prof_proc_of_sample(struct prof_data *d, pid_t pid, pid_t tid);
void prof_proc_add_tid(struct prof_proc *p, uint32_t tid);
/* The file gorc-prof reads for the file PATH that process P maps, whose
   inode the kernel gives in ID (D live, ID known; else PATH): PATH when
   the file there is that inode (PATH's module retired where it was read
   from another file or before a write: prof_modules_path_changed);
   else a copy of the file P sees at PATH
   (through /proc/PID/root: a chroot's or a container's file, which the
   same path here names another of, or none), when it is that inode or
   P's root is not gorc-prof's (overlayfs: the kernel names the layer's
   inode); else NULL, not read: the file at PATH was replaced since, or
   P is gone.  Rather no table and no names than another file's.  */
const char *prof_proc_file(const struct prof_data *d, const struct prof_proc *p,
                           const char *path, const struct prof_file_id *id);
/* P maps file NAME (read as module MOD, or NULL) at [LO, HI) from TIME
   on, address A at A - BASE in it.  */
void prof_proc_add_span(struct prof_proc *p, uint64_t base, uint64_t lo, uint64_t hi,
                        const char *name, const struct prof_module *mod, uint64_t time);
/* The span of P that holds PC at TIME: the last one mapped by then;
   else the first one mapped after (a mapping's time a little late, as
   a /proc/PID/maps read's); NULL: none.  */
const struct prof_span *prof_span_of(const struct prof_proc *p, uint64_t pc, uint64_t time);
/* A sample of thread TID of P: its NKERNEL kernel addresses KIPS
   (innermost first), then its NUSER user addresses UIPS (innermost
   first), the user walk ended as END.  Every way of taking samples
   (perf events, perf.data, the preloaded sampler, a BPF walker) adds
   them through this.  */
void prof_proc_add_sample(struct prof_proc *p, uint64_t time, uint32_t tid, int32_t end,
                          const uint64_t *kips, uint32_t nkernel, const uint64_t *uips,
                          uint32_t nuser);
/* Drop the samples of D (the processes, their mappings and threads
   stay): what --every does after each interval's profile is written;
   processes that ended are dropped too.  */
void prof_data_clear_samples(struct prof_data *d);
void prof_data_totals(const struct prof_data *d, size_t *samples, size_t *threads);
void prof_data_free(struct prof_data *d);

#endif
