/* gorc-prof --unwind=bpf: what the BPF walker (prof-bpf.bpf.c) and its
   loader (prof-bpf.c) share: the maps' values and the ring buffer's
   sample.  Included by both, so fixed-width types only.

   Maps (prof-bpf.bpf.c declares them):
     procs   hash, pid -> struct prof_bpf_proc: the process's executable
             mappings, sorted by start;
     tables  array of maps, module id -> the module's table, an array
             of blocks (struct prof_bpf_block), one map per module sized
             to it, loaded once for every process that maps it;
     states  array, state id -> struct gorc_state (gorc/format.h): the
             distinct states of every table (the run's numbering: a
             table's leaves hold its own, and its last blocks the
             states map's id of each);
     samples the ring buffer of struct prof_bpf_sample;
     held    array, one struct prof_bpf_held: a copied sample walked
             again (prof_rewalk);
     stats   per-CPU counters (enum prof_bpf_stat).  */

#ifndef GORC_PROF_BPF_H
#define GORC_PROF_BPF_H

#include <stdint.h>

/* Executable mappings per process the walker knows (more: the walk of a
   frame in the ones left out ends as "no table").  */
#define PROF_BPF_MAX_MAPS 64
/* bpf_loop iterations of one walk: user frames at most.  */
#define PROF_BPF_MAX_FRAMES 512     /* = GORC_PROF_MAX_DEPTH (gorc/prof.h), checked in prof-bpf.c */
/* Kernel frames: the kernel's perf_event_max_stack default.  */
#define PROF_BPF_MAX_KERNEL 127
/* Modules with a table at once, and distinct states over all tables.  */
#define PROF_BPF_MAX_MODULES 1024
#define PROF_BPF_MAX_STATES 16384
/* Bytes of user stack read at once (a read costs ~100 ns + 0.5 ns/byte
   on the VM of the project's figures: chunks, not words).  */
#define PROF_BPF_CHUNK 256
/* ... starting this far below the word that was missing: the saved
   registers' slots under a frame's return address (six of them).  */
#define PROF_BPF_CHUNK_BELOW 48
/* find_state's cache, per CPU: a slot's word is a tag (bit 63 set, the
   module id and the pc) and the state id, written at once, so that a
   sample that interrupts prof_rewalk on its CPU never reads a tag with
   another's state.  */
#define PROF_BPF_STATE_CACHE 1024
#define PROF_BPF_CACHE_TAG(module, pc) \
  (1ull << 63 | (uint64_t)(module) << 48 | (uint64_t)(pc) << 16)
#define PROF_BPF_CACHE_SLOT(module, pc) \
  (((pc) ^ (pc) >> 10 ^ (module) * 0x9e3779b1u) & (PROF_BPF_STATE_CACHE - 1))
struct prof_bpf_state_cache {
  uint64_t word[PROF_BPF_STATE_CACHE];
};

/* A table: a module's rows (from file address PC, the module's own
   numbering, up to the next row's PC, the state of id STATE), in blocks
   of PROF_BPF_BLOCK_SLOTS 32-bit slots, a tree searched from its root,
   block 0, down to a leaf: one map lookup and a binary search in memory
   a level (a lookup in an inner map is a helper call).
   - An index block: each child's lowest PC, ascending; the slots left
     over PROF_BPF_INDEX_PAD (above every PC).
   - A leaf: rows, PROF_BPF_LEAF_ROW(PC - the leaf's lowest PC, STATE),
     ascending; the slots left over repeat the last row.  A leaf's
     rows span at most 64 KiB from its first.  4 bytes a row.
   - A dense leaf, where rows lie close (code with gorc records: a row
     every few bytes): byte 3 PROF_BPF_DENSE_MARK (in a leaf of 4-byte
     rows, the top byte of the first row's delta, 0), and 42 rows of 3
     bytes: from byte 4 a 16-bit word each, PROF_BPF_DENSE_HI(delta,
     state), ascending; the state's low byte each at
     PROF_BPF_DENSE_LO_AT(row) (bytes 0-2, then 88-126).  Deltas below
     2 KiB, state ids in 13 bits (NONE and SIGRETURN as the two highest);
     the rows left over repeat the last.  The table builder makes a leaf
     dense where it holds more rows so (and its states fit).
   The blocks are stored level by level from the root, each level from
   left to right with every block but its last full: the tree's shape
   follows from its number of leaves (prof_bpf_tree), and the J-th child
   of the P-th block of level L is block FIRST[L + 1] + P * 32 + J.
   - The ids: a leaf's rows number states the module's own way (from 0,
     as the table's builder met them: a table kept in the table cache,
     prof-cache.h, is loaded as it is); after the leaves, blocks of
     PROF_BPF_STATE_IDS 16-bit words, the states map's id of the
     module's state K at word K % PROF_BPF_STATE_IDS of block
     FIRST[DEPTH] + NLEAVES + K / PROF_BPF_STATE_IDS (the words left
     over PROF_BPF_STATE_NONE).  PROF_BPF_STATE_NONE and
     PROF_BPF_STATE_SIGRETURN in a row are themselves.  */
#define PROF_BPF_BLOCK_SLOTS 32
#define PROF_BPF_BLOCK_BITS 5       /* log2(PROF_BPF_BLOCK_SLOTS) */
/* Index levels above the leaves: up to 32^4 leaves, 33 million rows.  */
#define PROF_BPF_MAX_LEVELS 4
#define PROF_BPF_INDEX_PAD 0xffffffffu
#define PROF_BPF_LEAF_ROW(delta, state) ((uint32_t)(delta) << 16 | (uint16_t)(state))
#define PROF_BPF_LEAF_STATE(row) ((row) & 0xffffu)
#define PROF_BPF_DENSE_MARK 0xffu
#define PROF_BPF_DENSE_MARK_AT 3
#define PROF_BPF_DENSE_ROWS 42
#define PROF_BPF_DENSE_HI_AT 4
#define PROF_BPF_DENSE_LO_AT(row) \
  ((row) < 3 ? (row) : PROF_BPF_DENSE_HI_AT + 2 * PROF_BPF_DENSE_ROWS + (row) - 3)
/* A dense row: DELTA_BITS of delta, the rest of 24 bits the state id;
   the two highest ids stand for SIGRETURN and NONE.  */
#define PROF_BPF_DENSE_DELTA_BITS 11
#define PROF_BPF_DENSE_STATE_BITS (24 - PROF_BPF_DENSE_DELTA_BITS)
#define PROF_BPF_DENSE_MAX_DELTA ((1u << PROF_BPF_DENSE_DELTA_BITS) - 1)
#define PROF_BPF_DENSE_STATE_MASK ((1u << PROF_BPF_DENSE_STATE_BITS) - 1)
#define PROF_BPF_DENSE_HI_SHIFT (PROF_BPF_DENSE_STATE_BITS - 8)
#define PROF_BPF_DENSE_HI(delta, state) \
  ((uint16_t)((delta) << PROF_BPF_DENSE_HI_SHIFT | ((state) & PROF_BPF_DENSE_STATE_MASK) >> 8))

struct prof_bpf_block {
  uint32_t slot[PROF_BPF_BLOCK_SLOTS];
};
#define PROF_BPF_STATE_IDS 64       /* a block's 16-bit state ids */
_Static_assert(PROF_BPF_DENSE_LO_AT(PROF_BPF_DENSE_ROWS - 1) < sizeof(struct prof_bpf_block),
               "a dense leaf's rows fit its block");

/* A row's state id that is no state: no unwind information from here
   up to the next row's pc.  The states map's ids are below
   PROF_BPF_MAX_STATES, a table's own below PROF_BPF_STATE_NO_TABLE.  */
#define PROF_BPF_STATE_NONE 0xffffu
/* ... the byte before a signal trampoline (__restore_rt): a return
   address at the next byte is a signal frame's.  */
#define PROF_BPF_STATE_SIGRETURN 0xfffeu
/* (find_state's answer, never in a table: the module has no table.)  */
#define PROF_BPF_STATE_NO_TABLE 0xfffdu

/* Can a dense row hold state id STATE?  */
#define PROF_BPF_DENSE_HOLDS(state) \
  ((state) < (PROF_BPF_STATE_SIGRETURN & PROF_BPF_DENSE_STATE_MASK) \
   || (state) == PROF_BPF_STATE_SIGRETURN || (state) == PROF_BPF_STATE_NONE)

/* The state id of a dense row from its word HI and low byte LO.  */
static inline uint32_t prof_bpf_dense_state(uint32_t hi, uint32_t lo)
{
  uint32_t s = (hi & (PROF_BPF_DENSE_STATE_MASK >> 8)) << 8 | lo;
  return s >= (PROF_BPF_STATE_SIGRETURN & PROF_BPF_DENSE_STATE_MASK)
             ? s | (0xffffu & ~PROF_BPF_DENSE_STATE_MASK) : s;
}

/* The shape of a table of NLEAVES leaves.  Level K above the leaves
   (K = 0: the leaves) has ceil(NLEAVES / 32^K) blocks; the root, at
   level DEPTH, is the lowest level of one block, and at least level 1
   (the root is an index).  */
#define PROF_BPF_MAX_LEAVES (1u << (PROF_BPF_BLOCK_BITS * PROF_BPF_MAX_LEVELS))
static inline uint32_t prof_bpf_level_blocks(uint32_t nleaves, uint32_t k)
{
  uint32_t shift = PROF_BPF_BLOCK_BITS * k;
  return (nleaves + (1u << shift) - 1) >> shift;
}

/* The shape into *DEPTH (index levels) and FIRST (the first block of
   each level from the root, FIRST[0] = 0; FIRST[*DEPTH]: the first
   leaf), so that the table has FIRST[*DEPTH] + NLEAVES blocks: 0; -1
   when NLEAVES is 0 or above PROF_BPF_MAX_LEAVES.  The walker finds its
   way down the same levels without this, branch-free (find_state).  */
static inline int prof_bpf_tree(uint32_t nleaves, uint32_t *depth,
                                uint32_t first[PROF_BPF_MAX_LEVELS + 1])
{
  uint32_t d = 1;
  if (nleaves == 0 || nleaves > PROF_BPF_MAX_LEAVES)
    return -1;
  while (prof_bpf_level_blocks(nleaves, d) > 1)
    d++;
  first[0] = 0;
  for (uint32_t l = 0; l < d; l++)
    first[l + 1] = first[l] + prof_bpf_level_blocks(nleaves, d - l);
  *depth = d;
  return 0;
}

struct prof_bpf_map {
  uint64_t start, end;        /* [start, end) in the process */
  uint64_t bias;              /* process address - file address */
  uint32_t module;            /* its table in "tables"; PROF_BPF_NO_MODULE: none */
  uint32_t nleaves;           /* its table's leaves (prof_bpf_tree); 0: not built yet */
};
#define PROF_BPF_NO_MODULE 0xffffffffu

struct prof_bpf_proc {
  uint32_t n;
  uint32_t pad;
  /* The walker's, 0 as gorc-prof writes an entry: the task image (its
     mm's address, its exec count) the walker last found the entry to
     hold (proc_of_image), so that it checks once an image, not every
     sample.  */
  uint64_t image_mm, image_exec;
  struct prof_bpf_map maps[PROF_BPF_MAX_MAPS];
};

/* A file whose table is loaded, as the kernel names it: the key of the
   "files" map.  For a pc in a mapping the procs map does not hold (a
   process or a library met before gorc-prof has its mappings), the
   walker finds the mapping in the kernel (bpf_find_vma) and its file
   here, so that a short process is walked from its first sample on, not
   copied.  The inode's change time tells a file written after its table
   was built, or a new file given a freed inode's number, from it.  */
struct prof_bpf_file_key {
  uint64_t ino;
  int64_t ctime_sec;
  uint32_t ctime_nsec;
  uint32_t dev;               /* the kernel's dev_t: major << 20 | minor */
};
#define PROF_BPF_DEV(major, minor) ((uint32_t)(major) << 20 | (uint32_t)(minor))

/* Its table, and its executable segment (the one a table covers): a
   pc at file offset O in [text_offset, text_offset + text_size) is at
   file address O - text_offset + text_vaddr.  */
struct prof_bpf_file {
  uint32_t module, nleaves;   /* as in struct prof_bpf_map */
  uint64_t text_offset, text_size, text_vaddr;
};
/* The files map's room: a file a table (prof-bpf.c keeps at most one
   table per file).  */
#define PROF_BPF_MAX_FILES PROF_BPF_MAX_MODULES

/* How a user walk ended: enum prof_walk_end (prof-unwind.h) plus
   what only the BPF walker meets.  */
enum prof_bpf_end {
  PROF_BPF_END_COMPLETE = 0,
  PROF_BPF_END_TRUNCATED = -1,   /* a held sample's stack copy ended */
  PROF_BPF_END_DEPTH = 1,        /* PROF_BPF_MAX_FRAMES frames, not the end */
  PROF_BPF_END_KERNEL = 3,       /* no user part (a kernel thread, idle) */
  PROF_BPF_END_NO_INFO = -2,     /* code without a state (or no file) */
  PROF_BPF_END_BAD = -3,         /* a wild stack: an unreadable word, wrong direction */
  PROF_BPF_END_NO_TABLE = -4,    /* a module whose table is not loaded (yet) */
  PROF_BPF_END_NO_MAPPING = -5,  /* an address in no mapping the walker has: a process or
                                    mapping not reported yet, or not code (gorc-prof decides
                                    from the stack's copy) */
  PROF_BPF_END_COPIED = -6       /* (a sample's only) NO_TABLE or NO_MAPPING, the stack
                                    copied from there: walked on once the tables are there */
};

/* Bytes of user stack a sample copies at most, from the frame where its
   walk met a module (or process) whose table is not loaded yet:
   gorc-prof has it walked on in the kernel (struct prof_bpf_held) once
   the mapping is known and its tables loaded, instead of a stack cut
   short.  */
#define PROF_BPF_COPY 8192

/* One sample in the ring buffer: the 16-byte header, then the kernel
   addresses, innermost first, then the user addresses, innermost first,
   and (end PROF_BPF_END_COPIED) the stack's copy from the frame the
   walk stopped at, and last a struct prof_bpf_copy_tail.  The record's
   length says the rest: kernel addresses are the leading ones in the
   kernel's half of the address space (PROF_BPF_KERNEL_ADDR; no user
   address is), the user addresses fill what follows, or, in a copy,
   the tail says how many there are and how many stack bytes follow
   them.  Every byte counts: the ring buffer adds its own 8-byte header,
   so a sample costs 24 bytes and 8 per frame.  */
struct prof_bpf_sample {
  uint64_t time;                 /* CLOCK_MONOTONIC ns, as perf's clockid */
  uint32_t pid;
  uint32_t tid_end;              /* PROF_BPF_TID_END: the tid, how the user walk ended */
  /* then the addresses */
};
/* pid_max is at most 2^22 (the kernel's PID_MAX_LIMIT): a tid fits 24
   bits, and enum prof_bpf_end the 8 above them.  */
#define PROF_BPF_TID_END(tid, end) ((uint32_t)(tid) | (uint32_t)(uint8_t)(end) << 24)
#define PROF_BPF_TID(tid_end) ((tid_end) & 0xffffffu)
#define PROF_BPF_END(tid_end) ((int8_t)((tid_end) >> 24))
#define PROF_BPF_KERNEL_ADDR(a) ((int64_t)(a) < 0)

struct prof_bpf_regs {
  uint64_t ip, sp, bp, bx;
};

/* The end of a copied sample: the walk went as far as the tables did,
   NWALKED user addresses (the last, the frame it stopped at: a module
   whose table is not loaded yet, or a mapping the walker has not been
   told of), and the stack is copied from that frame's sp, where it
   goes on, not from the sample's: a deep stack's copy spans its
   unwalked frames only.  REGS and KNOWN (GORC_FRAME_*) are that
   frame's.  */
struct prof_bpf_copy_tail {
  struct prof_bpf_regs regs;
  uint32_t known;
  uint32_t nwalked;
  uint32_t stack_bytes;
  uint32_t pad;
};

/* A sample copied because its process's tables were not loaded: once
   they are, gorc-prof writes it here with the process's mappings as
   they were at the sample, and runs prof_rewalk, which walks the copy
   from the frame the walk stopped at (REGS, KNOWN) with the sample's
   own steps and writes NUSER addresses and END (the "held" map's one
   value).  */
struct prof_bpf_held {
  struct prof_bpf_proc proc;
  struct prof_bpf_regs regs;
  uint32_t known;             /* GORC_FRAME_* of REGS */
  uint32_t stack_bytes;
  uint16_t nuser;
  int8_t end;
  uint8_t pad;
  uint64_t ips[PROF_BPF_MAX_FRAMES];
  uint8_t stack[PROF_BPF_COPY + 8];    /* (8: a word read at the end, for the verifier) */
};

enum prof_bpf_stat {
  PROF_BPF_STAT_SAMPLES,         /* the program ran */
  PROF_BPF_STAT_LOST,            /* the ring buffer was full */
  PROF_BPF_STAT_FRAMES,          /* user frames walked */
  PROF_BPF_STAT_COPIED,          /* stacks copied: a table not loaded yet */
  PROF_BPF_STAT_NOT_COPIED,      /* ... not copied: the ring buffer half full */
  PROF_BPF_STAT_VMA,             /* mappings found in the kernel with a table (files) */
  PROF_BPF_STAT_STALE,           /* samples whose process's entry was another image's */
  PROF_BPF_STAT_COUNT
};


#ifndef __bpf__
/* ---- the loader's interface (prof-bpf.c), user space only ---- */
#include <stddef.h>
#include <stdio.h>
#include "prof-data.h"

struct prof_bpf;

/* How the walker is loaded.  */
struct prof_bpf_opts {
  int kernel_frames;          /* ask for the kernel stack */
  int rewalk_now;             /* load the walk of held samples now too (else at the
                                 first held sample) */
  uint32_t ring_bytes;        /* the ring buffer's size (a power of two of pages), or 0
                                 for the walker's own, 4 MB; a sample wakes gorc-prof
                                 when it is a quarter full */
  /* keep the kernel's BPF run-time statistics on while the walker runs,
     for prof_bpf_report's run time: they cost every BPF program on the
     machine a clock read a run, and patch code on every CPU on and off */
  int run_time_stats;
  const char *keep_dir;       /* --keep-walker: kept in this BPF file system directory
                                 between runs (prof-keep.h), or NULL */
};

/* The walker loaded (not attached): NULL with a one-line reason in WHY
   when BPF cannot load (not built, no CAP_BPF/CAP_PERFMON, an old kernel,
   the verifier's refusal).  */
struct prof_bpf *prof_bpf_open(const struct prof_bpf_opts *o, char *why, size_t whylen);
int prof_bpf_prog_fd(const struct prof_bpf *b);
/* The epoll descriptor that says the ring buffer has samples.  */
int prof_bpf_ring_fd(const struct prof_bpf *b);
/* Give the walker P's executable mappings as they are now (p->space),
   with BUILD loading the table of each module met for the first time;
   without, a module's table is built when the first sample that needs
   it arrives (its stack copied, then walked again: -a, where building
   every module of every process up front would take seconds).  */
void prof_bpf_sync(struct prof_bpf *b, const struct prof_proc *p, int build);
/* prof_bpf_sync with BUILD, returning once P's tables are in the
   walker's map and P told with them: its next sample is walked in the
   kernel (gorc-prof's own process under -a).  */
void prof_bpf_sync_now(struct prof_bpf *b, const struct prof_proc *p);
/* Tables built since the last call (for samples that needed them): the
   processes of VIEW that map their modules get their mappings again,
   with them.  */
void prof_bpf_refresh(struct prof_bpf *b, const struct prof_data *view);
/* A descriptor readable when tables the walker got since (prof-publish.h)
   wait for prof_bpf_collect; -1 without the walker.  */
int prof_bpf_published_fd(const struct prof_bpf *b);
/* Those tables taken in: the processes of VIEW that map their modules
   get their mappings again (prof_bpf_refresh).  */
void prof_bpf_collect(struct prof_bpf *b, const struct prof_data *view);
/* Before the program CMD runs: the tables of the files it will map as
   it starts (prof_program_files) and of the vdso, so that its first
   samples find them.  */
void prof_bpf_prepare(struct prof_bpf *b, const char *cmd);
/* Process PID exec'd (its COMM record, before the sync that tells the
   walker): under the test hook GORC_PROF_TEST_BPF=stale-exec, the
   walker, told of its mappings before, is told nothing more of it.  */
void prof_bpf_exec(struct prof_bpf *b, pid_t pid);
/* Process PID maps a file over another's code (before the walker is
   told: the test hook GORC_PROF_TEST_BPF=stale-mmap tells it nothing
   more of PID).  */
void prof_bpf_remapping(struct prof_bpf *b, pid_t pid);
/* ... over [LO, HI), at FROM (its record's time); the walker was told
   at NOW (a sample's clock).  Until then its walks through that span
   used the old file's table: prof_bpf_feed cuts them there, "no table
   yet", never a stack walked with another file's rules.  */
void prof_bpf_remapped(struct prof_bpf *b, pid_t pid, uint64_t lo, uint64_t hi, uint64_t from,
                       uint64_t now);
/* Process PID exited.  */
void prof_bpf_forget(struct prof_bpf *b, pid_t pid);
/* Each sample in the ring buffer to FN (a struct prof_bpf_sample and its
   addresses, LEN bytes).  */
typedef void prof_bpf_sample_fn(void *arg, const void *rec, size_t len, uint64_t time);
void prof_bpf_drain(struct prof_bpf *b, prof_bpf_sample_fn *fn, void *arg);
/* The samples the walker dropped (its ring buffer full) since the last
   call.  */
uint64_t prof_bpf_lost_since(struct prof_bpf *b);
/* Add the sample REC (LEN bytes, from prof_bpf_drain) to D, in time
   order (a copied stack is walked again with the mappings D has for its
   process then).  */
void prof_bpf_feed(struct prof_bpf *b, struct prof_data *d, const void *rec, size_t len);
/* The walker's figures: its maps' memory against the records' and
   .eh_frame's bytes, the kernel's run time per sample and frame.  */
void prof_bpf_report(const struct prof_bpf *b, FILE *f);
void prof_bpf_close(struct prof_bpf *b);
#endif

#endif
