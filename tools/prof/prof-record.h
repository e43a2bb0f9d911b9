/* gorc-prof: recording with perf events (perf_event_open), each sample
   unwound as it is read (prof-unwind.h), and the perf records that
   both this and a perf.data file feed into a profile.  */

#ifndef GORC_PROF_RECORD_H
#define GORC_PROF_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "gorc/perf-sample.h"
#include "prof-data.h"

/* --every: called by a recorder at each interval's end with D holding
   every sample taken before it; it writes them out and clears them
   (prof_data_clear_samples).  */
typedef void prof_interval_fn(void *arg, struct prof_data *d);

/* --unwind: where the user stack is walked.  */
enum prof_unwind_mode {
  PROF_UNWIND_AUTO = 0,      /* in the kernel where the BPF walker loads, else a copy */
  PROF_UNWIND_BPF,           /* in the kernel (prof-bpf.h), or fail */
  PROF_UNWIND_COPY           /* gorc-prof unwinds a copy of each sample's stack */
};

struct prof_record_opts {
  const pid_t *pids;         /* -p: processes to attach to ... */
  size_t npids;
  char **cmd;                /* ... or the program to start ... */
  int all;                   /* ... or -a: every process, every CPU */
  long hz;
  double duration;           /* -d: seconds, 0: until the end */
  unsigned stack_size;       /* bytes of user stack per sample (--unwind=copy) */
  int unwind;                /* enum prof_unwind_mode */
  int children;              /* follow child processes too */
  int progress;              /* 1: a progress line on stderr (terminal), 2: every 5 s */
  int user_only;             /* --user-only: no kernel frames (else where allowed) */
  double every;              /* --every: seconds per interval, 0: one profile */
  const char *keep_walker;   /* --keep-walker: the BPF walker's directory, or NULL */
  prof_interval_fn *interval;
  void *interval_arg;
};

/* Record into D.  Returns 0, or 2 after an error message.  *STATUS gets
   the started program's wait status (0 with -p).  */
int prof_record(const struct prof_record_opts *o, struct prof_data *d, int *status);

/* Feed one perf record (header included, LEN bytes) written with layout L
   at TIME (0: not known) into D: mappings, processes, threads, lost
   counts, and samples, each unwound (user registers and stack) or taken
   from its callchain.  */
void prof_feed_record(struct prof_data *d, const struct gorc_perf_layout *l, const uint8_t *rec,
                      size_t len, uint64_t time);

/* Does prof_feed_record use the record REC (LEN bytes, at least its
   header) for more than its byte count (d->record_bytes)?  Not a mapping
   of data (most of a perf.data's mmap records), nor a type it ignores:
   a reader can count those and leave them out of its time order.  */
int prof_feed_uses(const uint8_t *rec, size_t len);
/* Is REC (LEN bytes) a mapping of a file's code (MMAP2 with PROT_EXEC,
   or MMAP not of data)?  Then 1, its process and span into *PID, *ADDR,
   *SIZE; else 0.  */
int prof_feed_code_mapping(const uint8_t *rec, size_t len, pid_t *pid, uint64_t *addr,
                           uint64_t *size);

#endif
