/* gorc-prof --unwind=bpf: the user stack walked in the kernel, at the
   sample.  A perf_event program on each CPU's cpu-clock event: the
   kernel stack from bpf_get_stack, the user registers from the task's
   user pt_regs (bpf_task_pt_regs: the sample may have hit the kernel),
   then one step per frame in bpf_loop, each frame's state found down
   its module's table, a tree of blocks (prof-bpf.h), the step
   itself by the one set of step rules (gorc/step.h), reading the stack
   in chunks.  The sample goes out through a ring buffer, and the
   program returns 0 so that perf writes no sample of its own.  A frame
   in a mapping gorc-prof has not told the walker of yet (a new
   process, a new library) is looked up in the kernel (kernel_map),
   its file's table by the files map.  A sample that met a module
   without a table yet copies the stack from the frame its walk stopped
   at; prof_rewalk walks on from there by the same steps once gorc-prof
   has loaded the tables.

   Built by clang -target bpf with CO-RE: the few kernel types it reads
   are declared below with preserve_access_index and relocated by libbpf
   against the running kernel's BTF (no vmlinux.h).  */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <stdint.h>

#include "gorc/step-x86_64.h"
#include "prof-bpf.h"

/* The kernel types read, only the fields read (CO-RE).  */
struct pt_regs {
  unsigned long bp, bx, ip, sp;
} __attribute__((preserve_access_index));

struct mm_struct;
struct task_struct {
  struct mm_struct *mm;
  uint64_t self_exec_id;      /* counts the task's execs (and its parent's before the fork) */
} __attribute__((preserve_access_index));

/* For the mappings the walker finds itself (kernel_map).  */
struct file;
struct mm_struct {
  unsigned long start_code, end_code;   /* the executable's text */
  struct file *exe_file;
} __attribute__((preserve_access_index));

struct vm_area_struct {
  unsigned long vm_start, vm_end, vm_flags, vm_pgoff;
  struct file *vm_file;
} __attribute__((preserve_access_index));

struct inode;
struct file {
  struct inode *f_inode;
} __attribute__((preserve_access_index));

struct super_block;
struct inode {
  unsigned long i_ino;
  struct super_block *i_sb;
  int64_t i_ctime_sec;
  uint32_t i_ctime_nsec;
} __attribute__((preserve_access_index));

struct super_block {
  uint32_t s_dev;
} __attribute__((preserve_access_index));

#define VM_EXEC 0x4ul      /* (include/linux/mm.h) */
#define PAGE_SHIFT 12      /* x86-64's */

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load.  */
const volatile int kernel_frames = 1;   /* 0: --user-only */
/* gorc-prof reads the ring every DRAIN_MS (prof-record.c), unwoken: a
   sample that finds this much in it wakes gorc-prof (deep stacks, stack
   copies, a high rate fill it faster than that).  */
const volatile uint32_t wake_bytes = 1;
/* Set by the loader: the kernel has the fields kernel_map reads.  */
const volatile int vma_files = 0;
/* Set by the loader: keep the mappings found in the kernel for the
   process's next samples (found_maps); 0 for a test hook only.  */
const volatile int keep_found_maps = 1;

struct inner_table {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_INNER_MAP);
  __uint(max_entries, 1);
  __type(key, uint32_t);
  __type(value, uint32_t[PROF_BPF_BLOCK_SLOTS]);   /* a struct prof_bpf_block (prof-bpf.h) */
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __uint(max_entries, PROF_BPF_MAX_MODULES);
  __type(key, uint32_t);
  __array(values, struct inner_table);
} tables SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, PROF_BPF_MAX_STATES);
  __type(key, uint32_t);
  __type(value, struct gorc_state);
} states SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 8192);
  __type(key, uint32_t);
  __type(value, struct prof_bpf_proc);
} procs SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4 << 20);
} samples SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, PROF_BPF_STAT_COUNT);
  __type(key, uint32_t);
  __type(value, uint64_t);
} stats SEC(".maps");

/* The files of the tables loaded (prof-bpf.h).  */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, PROF_BPF_MAX_FILES);
  __type(key, struct prof_bpf_file_key);
  __type(value, struct prof_bpf_file);
} files SEC(".maps");

/* The states find_state found last, per CPU (prof-bpf.h): one element,
   as one allocation per CPU is made for each element of a per-CPU
   array (1,024 of them were 0.4 ms of the start).  */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, uint32_t);
  __type(value, struct prof_bpf_state_cache);
} state_cache SEC(".maps");

/* The mappings kernel_map found of a process the walker was not told
   of, kept (per CPU) for the process's next samples: a sample may ask
   bpf_find_vma once, so a walk through two such libraries found one
   and was copied at the other, sample after sample; now each sample
   finds one more.  By pid, for the image they were found in (its mm
   and exec count).  gorc-prof deletes a process's at its exit; a
   mapping replaced later (dlclose, then dlopen there) is told to the
   walker, whose procs entry a walk asks first, and the samples before
   are cut at it (cut_remapped in prof-bpf.c).  */
#define FOUND_MAPS 8
struct found_maps {
  uint64_t image_mm, image_exec;
  uint32_t n, next;                 /* maps held; the one the next goes to */
  struct prof_bpf_map maps[FOUND_MAPS];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 1024);
  __type(key, uint32_t);
  __type(value, struct found_maps);
} found_maps SEC(".maps");

/* A held sample, walked again by prof_rewalk (prof-bpf.h).  */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, uint32_t);
  __type(value, struct prof_bpf_held);
} held SEC(".maps");

/* Global functions: the verifier checks each once, for any arguments
   of its types (a pointer among them may be NULL), not again on every
   path into it as it does a static function: stack_read, step and
   block_count_at_most took 8.9 ms of verifying as static functions,
   4.9 ms as global ones.  */
#define GLOBAL __attribute__((noinline))

struct walk;
GLOBAL int stack_read(struct walk *w, uint64_t a, uint64_t *out);
#define GORC_STEP_CTX struct walk *
#define GORC_STEP_READ(w, a, out) stack_read(w, a, out)
#define GORC_STEP_STRIP_RA(w, ra) (ra)
#include "gorc/step.h"

/* What vma_found reads of the mapping bpf_find_vma finds.  */
struct vma_found {
  uint64_t start, end, flags, pgoff;
  struct prof_bpf_file_key key;
  int has_file;
};

/* One walk's working memory (per CPU): the sample as it goes out, the
   frame being stepped, the stack chunk last read.  */
struct walk {
  struct prof_bpf_sample s;
  /* the addresses (kernel, then user); in a copy, then the stack's
     bytes and a struct prof_bpf_copy_tail */
  uint64_t ips[PROF_BPF_MAX_KERNEL + PROF_BPF_MAX_FRAMES + PROF_BPF_COPY / 8
               + sizeof(struct prof_bpf_copy_tail) / 8];
  uint32_t nkernel;           /* kernel addresses in ips */
  uint32_t stack_bytes;       /* of a stack copy (end PROF_BPF_END_COPIED) */
  struct gorc_frame_regs f;
  struct prof_bpf_regs first;  /* the user registers at the sample */
  uint64_t chunk_base;        /* chunk holds [chunk_base, chunk_base + PROF_BPF_CHUNK) */
  uint8_t chunk[PROF_BPF_CHUNK + 8];
  uint32_t nuser;
  int32_t end;
  uint32_t from_held;         /* the stack is the held sample's copy, not the task's */
  struct prof_bpf_map map;    /* the frame's mapping (find_map's, or kernel_map's) */
  struct prof_bpf_map vma;    /* the mapping kernel_map found last this sample, by bpf_find_vma
                                 or in found_maps (empty: none) */
  struct vma_found found;     /* what vma_found read of it */
  uint32_t vma_asked;         /* kernel_map asked bpf_find_vma this sample */
  struct mm_struct *mm;       /* the task's (its executable's text, for kernel_map) */
  uint64_t exec;              /* the task's exec count (its image, with mm) */
  struct found_maps found_new;  /* a process's first found_maps entry, made here */
  uint64_t exe_start, exe_end;  /* the executable's text, from the mm (0: none) */
  struct prof_bpf_map exe;    /* the executable's text with its table (empty: none) */
  uint32_t exe_asked;         /* exe_found ran this sample */
  uint32_t exe_used;          /* kernel_map found a frame in it this sample */
};

/* The sample's walks, and prof_rewalk's (apart: a sample may interrupt
   it on its CPU).  */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, uint32_t);
  __type(value, struct walk);
} walks SEC(".maps"), rewalks SEC(".maps");

/* The 8 bytes at A of the held sample's stack copy.  */
static int held_read(uint64_t a, uint64_t *out)
{
  uint32_t zero = 0;
  const struct prof_bpf_held *h = bpf_map_lookup_elem(&held, &zero);
  if (!h || a < h->regs.sp)
    return GORC_STEP_ETRUNCATED;
  uint64_t off = a - h->regs.sp;
  if (off + 8 > h->stack_bytes || off > PROF_BPF_COPY - 8)
    return GORC_STEP_ETRUNCATED;
  __builtin_memcpy(out, h->stack + (off & (PROF_BPF_COPY - 1)), 8);
  return 0;
}


/* The 8 bytes of user stack at A: from the chunk when it holds them,
   else the chunk is read anew from PROF_BPF_CHUNK_BELOW bytes below A
   (one word where a whole chunk cannot be read: the stack's top).  A
   step reads the return address first, then the slots of fp and the
   other saved registers just under it: a chunk that began at the
   return address was read again for them (in cc1, 0.89 reads a frame;
   0.35 from below).  */
GLOBAL int stack_read(struct walk *w, uint64_t a, uint64_t *out)
{
  if (!w || !out)
    return GORC_STEP_EREAD;
  uint64_t off = a - w->chunk_base;
  if (w->from_held)
    return held_read(a, out);
  if (a < w->chunk_base || off > PROF_BPF_CHUNK - 8) {
    uint64_t base = a - PROF_BPF_CHUNK_BELOW;
    if (bpf_probe_read_user(w->chunk, PROF_BPF_CHUNK, (const void *)base) != 0) {
      w->chunk_base = 0;      /* nothing held */
      return bpf_probe_read_user(out, 8, (const void *)a) == 0 ? 0 : GORC_STEP_EREAD;
    }
    w->chunk_base = base;
    off = PROF_BPF_CHUNK_BELOW;
  }
  off &= PROF_BPF_CHUNK - 1;  /* (it is at most PROF_BPF_CHUNK - 8: for the verifier) */
  __builtin_memcpy(out, w->chunk + off, 8);
  return 0;
}

/* Global: one lookup for the verifier to inline and check, not one at
   each of the eight counts (a load of prof_sample 0.3 ms cheaper; two
   calls a sample).  */
GLOBAL int count(uint32_t stat, uint64_t n)
{
  uint64_t *v = bpf_map_lookup_elem(&stats, &stat);
  if (v)
    *v += n;
  return 0;
}

/* 1 when A is at most B, without a branch: the sign of B - A in 64
   bits (both below 2^63: counts, a table's 32-bit file addresses).  */
static uint32_t at_most(uint64_t a, uint64_t b)
{
  uint64_t diff = b - a;
  /* (kept from clang, which would make it a compare and a branch) */
  asm volatile("" : "+r"(diff));
  return (uint32_t)(diff >> 63) ^ 1;
}

/* at_most for any 64-bit addresses: the borrow out of B - A.  A
   process's mappings include [vsyscall], at 0xffffffffff600000: the
   sign alone counted it below every pc, and a pc in the highest
   mapping under it was found in it, a frame without a table.  */
static uint32_t address_at_most(uint64_t a, uint64_t b)
{
  uint64_t diff = b - a;
  asm volatile("" : "+r"(diff));
  return (uint32_t)(((~b & a) | (~(b ^ a) & diff)) >> 63) ^ 1;
}

/* How many of PROC's mappings (NULL: a process not told yet) start at
   or below PC, counted by halving without branches, as a block's slots
   are below: a search that branched was 2^7 paths for the verifier,
   most of its work on the whole program.  Global, so that its seven
   rounds are checked once, not at each of its two callers.  */
GLOBAL uint32_t maps_at_most(const struct prof_bpf_proc *proc, uint64_t pc)
{
  if (!proc)
    return 0;
  uint32_t n = proc->n, below = 0;
  _Static_assert(PROF_BPF_MAX_MAPS == 64, "the halving starts at 64");
  for (uint32_t step = PROF_BPF_MAX_MAPS; step > 0; step /= 2) {
    uint32_t probe = below + step;
    uint64_t start = proc->maps[(probe - 1) & (PROF_BPF_MAX_MAPS - 1)].start;
    below += step * (at_most(probe, n) & address_at_most(start, pc));
  }
  return below;
}

/* The mapping of PROC (NULL: a process not told yet) holding address
   PC, or NULL.  */
static const struct prof_bpf_map *find_map(const struct prof_bpf_proc *proc, uint64_t pc)
{
  uint32_t below = maps_at_most(proc, pc);
  if (!proc || below == 0)
    return NULL;
  const struct prof_bpf_map *m = &proc->maps[(below - 1) & (PROF_BPF_MAX_MAPS - 1)];
  return pc < m->end ? m : NULL;
}

/* 1 when SLOT (its value above SHIFT bits) is at most KEY, else 0,
   without a branch: the sign of KEY - SLOT in 64 bits.  */
static uint32_t slot_at_most(uint32_t slot, uint32_t key, uint32_t shift)
{
  return at_most(slot >> shift, key);
}

/* How many of BLOCK's slots, ascending by their value above SHIFT bits,
   are at most KEY (0..32), by halving without branches: the verifier
   follows one path (a search that branched was 33 paths to verify, 5 a
   frame).  */
GLOBAL uint32_t block_count_at_most(const struct prof_bpf_block *block, uint32_t key,
                                    uint32_t shift)
{
  uint32_t n = 0;
  if (!block)
    return 0;
  for (uint32_t step = PROF_BPF_BLOCK_SLOTS / 2; step > 0; step /= 2)
    n += step * slot_at_most(block->slot[(n + step - 1) & (PROF_BPF_BLOCK_SLOTS - 1)], key, shift);
  return n + slot_at_most(block->slot[n & (PROF_BPF_BLOCK_SLOTS - 1)], key, shift);
}

/* Row I of a dense leaf, clamped to its last (the rows past the last
   repeat it); masked first, so that the verifier knows it is at most
   63.  */
static uint32_t dense_row(uint32_t i)
{
  i &= 63;
  return i < PROF_BPF_DENSE_ROWS ? i : PROF_BPF_DENSE_ROWS - 1;
}

/* Dense row I's word of LEAF.  */
static uint32_t dense_hi(const struct prof_bpf_block *leaf, uint32_t i)
{
  uint16_t hi;
  i = dense_row(i);
  __builtin_memcpy(&hi, (const uint8_t *)leaf + PROF_BPF_DENSE_HI_AT + 2 * i, 2);
  return hi;
}

/* Dense row I's low state byte of LEAF.  */
static uint32_t dense_lo(const struct prof_bpf_block *leaf, uint32_t i)
{
  i = dense_row(i);
  return *((const uint8_t *)leaf + PROF_BPF_DENSE_LO_AT(i));
}

/* The state id at DELTA past a dense leaf's lowest pc (prof-bpf.h): the
   last row at or below it, by halving over 64 rows without branches on
   the rows, as block_count_at_most.  */
static uint32_t dense_leaf_state(const struct prof_bpf_block *leaf, uint32_t delta)
{
  uint32_t key = delta < PROF_BPF_DENSE_MAX_DELTA ? delta : PROF_BPF_DENSE_MAX_DELTA, n = 0;
  for (uint32_t step = 32; step > 0; step /= 2)
    n += step * slot_at_most(dense_hi(leaf, n + step - 1), key, PROF_BPF_DENSE_HI_SHIFT);
  if (n == 0)                 /* (a leaf's first row is at its lowest pc) */
    return PROF_BPF_STATE_NONE;
  return prof_bpf_dense_state(dense_hi(leaf, n - 1), dense_lo(leaf, n - 1));
}

/* The states map's id of MODULE's own state LOCAL, from its table's
   blocks of ids, the first at block AT (prof-bpf.h);
   PROF_BPF_STATE_NONE and PROF_BPF_STATE_SIGRETURN as they are.
   Global, so that it is checked once, not on each way out of a leaf.  */
GLOBAL uint32_t global_state(uint32_t module, uint32_t at, uint32_t local)
{
  uint16_t id;
  if (local >= PROF_BPF_STATE_SIGRETURN)
    return local;
  void *table = bpf_map_lookup_elem(&tables, &module);
  if (!table)
    return PROF_BPF_STATE_NONE;
  at += local / PROF_BPF_STATE_IDS;
  const struct prof_bpf_block *ids = bpf_map_lookup_elem(table, &at);
  if (!ids)
    return PROF_BPF_STATE_NONE;
  __builtin_memcpy(&id, (const uint8_t *)ids + 2 * (local % PROF_BPF_STATE_IDS), 2);
  return id;
}

/* The state id of file address PC in the table of MODULE (NLEAVES
   leaves, prof-bpf.h): from the root's index down to a leaf, then the
   last row at or below PC, then its id in the states map;
   PROF_BPF_STATE_NONE below the first.

   Every table is searched as if PROF_BPF_MAX_LEVELS deep, without a
   branch on its depth: the levels missing above its root are the root
   searched again, its answer not taken (the verifier follows one path
   down, where a loop that ended at the depth was a path for each depth
   to check, 9% of the walker's instructions to check).  */
GLOBAL uint32_t find_state(uint32_t module, uint32_t nleaves, uint32_t pc)
{
  uint32_t block = 0, pos = 0, leaf_pc = 0;
  void *table = bpf_map_lookup_elem(&tables, &module);
  /* no leaves: the process's entry was written before its table was built */
  if (!table || nleaves == 0 || nleaves > PROF_BPF_MAX_LEAVES)
    return PROF_BPF_STATE_NO_TABLE;
  /* prof_bpf_tree's depth: the levels whose blocks number more than 1 */
  uint32_t depth = 1;
  for (uint32_t k = 1; k < PROF_BPF_MAX_LEVELS; k++)
    depth += at_most(2, prof_bpf_level_blocks(nleaves, k));
  /* the next level's first block: one more for each missing level,
     which starts it below 0 */
  uint32_t first = depth - PROF_BPF_MAX_LEVELS;
  for (uint32_t l = 0; l < PROF_BPF_MAX_LEVELS; l++) {
    const struct prof_bpf_block *index = bpf_map_lookup_elem(table, &block);
    if (!index)
      return PROF_BPF_STATE_NONE;
    uint32_t n = block_count_at_most(index, pc, 0);
    if (n == 0)
      return PROF_BPF_STATE_NONE;
    leaf_pc = index->slot[(n - 1) & (PROF_BPF_BLOCK_SLOTS - 1)];
    /* all ones at a level of the table, 0 at one missing above it */
    uint32_t real = 0u - at_most(PROF_BPF_MAX_LEVELS - depth, l);
    first += prof_bpf_level_blocks(nleaves, PROF_BPF_MAX_LEVELS - l);
    pos = ((pos << PROF_BPF_BLOCK_BITS) + n - 1) & real;
    block = (first + pos) & real;
  }
  const struct prof_bpf_block *leaf = bpf_map_lookup_elem(table, &block);
  if (!leaf)
    return PROF_BPF_STATE_NONE;
  uint32_t delta = pc - leaf_pc, local = PROF_BPF_STATE_NONE;
  if (((const uint8_t *)leaf)[PROF_BPF_DENSE_MARK_AT] == PROF_BPF_DENSE_MARK) {
    local = dense_leaf_state(leaf, delta);
  } else {
    uint32_t n = block_count_at_most(leaf, delta < 0xffff ? delta : 0xffff, 16);
    if (n > 0)                /* (a leaf's first row is at its lowest pc) */
      local = PROF_BPF_LEAF_STATE(leaf->slot[(n - 1) & (PROF_BPF_BLOCK_SLOTS - 1)]);
  }
  /* (first: the first leaf, the descent's last level) */
  return global_state(module, first + nleaves, local);
}

/* 8 bytes of kernel memory at P into OUT (bpf_probe_read_kernel: a
   field read through the kernel's BTF would have the verifier look its
   type up by name, see walk_user).  */
static void kread(void *out, const void *p)
{
  bpf_probe_read_kernel(out, 8, p);
}

/* FILE's key in the files map into KEY: 1, or 0 for no file.  Without
   a branch: a read through a NULL pointer (an anonymous mapping's file)
   fails, and leaves its zeros.  */
static int file_key(struct file *file, struct prof_bpf_file_key *key)
{
  struct inode *inode = NULL;
  struct super_block *sb = NULL;
  kread(&inode, __builtin_preserve_access_index(&file->f_inode));
  kread(&key->ino, __builtin_preserve_access_index(&inode->i_ino));
  kread(&sb, __builtin_preserve_access_index(&inode->i_sb));
  kread(&key->ctime_sec, __builtin_preserve_access_index(&inode->i_ctime_sec));
  bpf_probe_read_kernel(&key->ctime_nsec, 4, __builtin_preserve_access_index(&inode->i_ctime_nsec));
  bpf_probe_read_kernel(&key->dev, 4, __builtin_preserve_access_index(&sb->s_dev));
  /* its top bit is a flag (I_CTIME_QUERIED, Linux 6.13's multigrain
     times), not of the time: inode_get_ctime_nsec's mask */
  key->ctime_nsec &= ~(1u << 31);
  return sb != NULL;
}

/* bpf_find_vma's callback, without a branch (the verifier checks it as
   a loop's body, each branch's paths again: 442 instructions checked,
   380 without).  ARG: the walk, its found filled.  It writes to no
   stack of its caller's, so the verifier finds its second pass the
   same as its first (a struct vma_found on the caller's stack, zeros
   before, unknown after, was four passes).  */
static long vma_found(struct task_struct *task, struct vm_area_struct *vma, void *arg)
{
  struct walk *w = *(struct walk **)arg;
  struct file *file = NULL;
  (void)task;
  if (!w)
    return 1;
  struct vma_found *v = &w->found;
  kread(&v->start, __builtin_preserve_access_index(&vma->vm_start));
  kread(&v->end, __builtin_preserve_access_index(&vma->vm_end));
  kread(&v->flags, __builtin_preserve_access_index(&vma->vm_flags));
  kread(&v->pgoff, __builtin_preserve_access_index(&vma->vm_pgoff));
  kread(&file, __builtin_preserve_access_index(&vma->vm_file));
  v->has_file = file_key(file, &v->key);
  return 0;
}

/* M: [START, END) of the process, whose file's executable segment
   (with table F) starts at TEXT_START.  */
static void map_of_file(struct prof_bpf_map *m, uint64_t start, uint64_t end,
                        uint64_t text_start, const struct prof_bpf_file *f)
{
  m->start = start;
  m->end = end;
  m->bias = text_start - f->text_vaddr;
  m->module = f->module;
  m->nleaves = f->nleaves;
}

/* The executable's text from the task's mm (start_code and end_code,
   the executable segment as the kernel loaded it; exe_file) into
   W->exe_start and exe_end, and into W->exe when its file's table is
   loaded: without bpf_find_vma's lock, so that a walk through the
   program and one library asks the kernel for the library alone.  Once
   a sample (W->exe_asked).  */
static void exe_found(struct walk *w)
{
  struct prof_bpf_file_key key;
  struct mm_struct *mm = w->mm;
  struct file *file = NULL;
  uint64_t start = 0, end = 0;
  if (w->exe_asked)
    return;
  w->exe_asked = 1;
  __builtin_memset(&key, 0, sizeof key);
  kread(&start, __builtin_preserve_access_index(&mm->start_code));
  kread(&end, __builtin_preserve_access_index(&mm->end_code));
  kread(&file, __builtin_preserve_access_index(&mm->exe_file));
  w->exe_start = start;
  w->exe_end = end;
  if (!file_key(file, &key))
    return;
  const struct prof_bpf_file *f = bpf_map_lookup_elem(&files, &key);
  if (!f || end <= start || end - start > f->text_size)
    return;
  map_of_file(&w->exe, start, end, start, f);
}

/* The mapping of PC from bpf_find_vma into W->vma, when it is
   executable and its file's table is loaded: 1, or 0.  (Global: its
   callback is checked once, for any caller.)  */
GLOBAL int vma_lookup(struct walk *w, uint64_t pc)
{
  if (!w)
    return 0;
  struct vma_found *v = &w->found;
  v->has_file = 0;
  if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_found, &w, 0) != 0 || !v->has_file
      || !(v->flags & VM_EXEC))
    return 0;
  const struct prof_bpf_file *f = bpf_map_lookup_elem(&files, &v->key);
  uint64_t off = pc - v->start + (v->pgoff << PAGE_SHIFT);
  if (!f || off - f->text_offset >= f->text_size)
    return 0;
  /* the part of the mapping that is the file's executable segment */
  uint64_t text_start = pc - (off - f->text_offset);
  map_of_file(&w->vma, v->start > text_start ? v->start : text_start,
              v->end < text_start + f->text_size ? v->end : text_start + f->text_size, text_start, f);
  count(PROF_BPF_STAT_VMA, 1);
  return 1;
}

/* The mapping of PC among those earlier samples of W's process found
   in the kernel (found_maps) into W->vma: 1, or 0.  */
static int found_before(struct walk *w, uint64_t pc)
{
  uint32_t pid = w->s.pid;
  const struct found_maps *f = bpf_map_lookup_elem(&found_maps, &pid);
  if (!f || f->image_mm != (uint64_t)w->mm || f->image_exec != w->exec)
    return 0;
  for (uint32_t i = 0; i < FOUND_MAPS; i++) {
    const struct prof_bpf_map *m = &f->maps[i];
    if (i < f->n && pc - m->start < m->end - m->start) {
      w->vma = *m;
      return 1;
    }
  }
  return 0;
}

/* W->vma, found in the kernel, kept for the next samples of W's
   process (found_maps): over the oldest where 8 are held.  */
static void keep_found(struct walk *w)
{
  uint32_t pid = w->s.pid;
  struct found_maps *f = bpf_map_lookup_elem(&found_maps, &pid);
  if (!f || f->image_mm != (uint64_t)w->mm || f->image_exec != w->exec) {
    w->found_new.image_mm = (uint64_t)w->mm;
    w->found_new.image_exec = w->exec;
    w->found_new.n = w->found_new.next = 0;
    bpf_map_update_elem(&found_maps, &pid, &w->found_new, BPF_ANY);
    f = bpf_map_lookup_elem(&found_maps, &pid);
    if (!f)
      return;
  }
  f->maps[f->next & (FOUND_MAPS - 1)] = w->vma;
  f->next++;
  if (f->n < FOUND_MAPS)
    f->n++;
}

/* The mapping of PC as the kernel has it into W->map, when its file's
   table is loaded (files), for a process or a mapping gorc-prof has not
   told the walker of yet: 1, or 0 when there is none, or none
   executable.  The executable's own text from the task's mm
   (exe_found, once a sample); another mapping's from
   bpf_find_vma (vma_lookup), asked once a sample: in an interrupt, it
   leaves the mmap lock to an irq_work that runs after it, and says
   EBUSY until then.  Both kept in W for the walk's next frames.
   (Global: checked once, not on each of step's paths: 390 fewer
   instructions.)  */
GLOBAL int kernel_map(struct walk *w, uint64_t pc)
{
  if (!w || !vma_files || w->from_held)
    return 0;
  exe_found(w);
  if (pc - w->exe.start < w->exe.end - w->exe.start) {
    if (!w->exe_used)
      count(PROF_BPF_STAT_VMA, 1);
    w->exe_used = 1;
    w->map = w->exe;
    return 1;
  }
  if (pc - w->vma.start >= w->vma.end - w->vma.start
      && !(keep_found_maps && found_before(w, pc))) {
    if (w->vma_asked)
      return 0;
    w->vma_asked = 1;
    if (!vma_lookup(w, pc))
      return 0;
    if (keep_found_maps)
      keep_found(w);
  }
  w->map = w->vma;
  return 1;
}

/* find_state through the CPU's cache of the states it found: a frame's
   return address is most often one an earlier sample met (a hot path's
   callers), and a search of a table three levels deep is four lookups
   in blocks that may not be in the CPU's cache.  */
static uint32_t cached_state(uint32_t module, uint32_t nleaves, uint32_t pc)
{
  uint64_t tag = PROF_BPF_CACHE_TAG(module, pc);
  uint32_t zero = 0;
  struct prof_bpf_state_cache *cache = bpf_map_lookup_elem(&state_cache, &zero);
  uint64_t *cached = cache ? &cache->word[PROF_BPF_CACHE_SLOT(module, pc)] : NULL;
  if (cached && (*cached & ~0xffffull) == tag)
    return (uint32_t)(*cached & 0xffff);
  uint32_t id = find_state(module, nleaves, pc);
  /* (a table not published yet may be there at the next sample) */
  if (cached && id != PROF_BPF_STATE_NO_TABLE)
    *cached = tag | id;
  return id;
}

static int32_t walk_end(int rc)
{
  switch (rc) {
  case GORC_STEP_OUTERMOST:
    return PROF_BPF_END_COMPLETE;
  case GORC_STEP_ETRUNCATED:
    return PROF_BPF_END_TRUNCATED;
  case GORC_STEP_EREAD:
  case GORC_STEP_EDIRECTION:
    return PROF_BPF_END_BAD;
  default:
    return PROF_BPF_END_NO_INFO;
  }
}

struct loop_ctx {
  struct walk *w;
  const struct prof_bpf_proc *proc;
};

/* One frame: its state, the step to its caller (gorc/step.h).  0: go
   on, 1: the walk ended (w->end says how).  */
GLOBAL int step(struct walk *w, const struct prof_bpf_proc *proc)
{
  if (!w)
    return 1;
  struct gorc_frame_regs *f = &w->f;
  uint64_t pc = gorc_step_lookup_pc(f);
  const struct prof_bpf_map *m = &w->map;
  int rc;
  /* the last frame's mapping, most often this one's too: the search of
     the process's mappings (seven rounds, a third of a frame's
     instructions) only where the walk leaves it */
  if (pc - m->start >= m->end - m->start) {
    const struct prof_bpf_map *found = find_map(proc, pc);
    if (found) {
      w->map = *found;
    } else if (!kernel_map(w, pc)) {  /* not code, or a mapping not reported yet */
      w->end = PROF_BPF_END_NO_MAPPING;
      return 1;
    }
  }
  if (m->module == PROF_BPF_NO_MODULE || pc - m->bias > 0xffffffffu) {
    w->end = PROF_BPF_END_NO_INFO;
    return 1;
  }
  uint32_t id = cached_state(m->module, m->nleaves, (uint32_t)(pc - m->bias));
  if (id == PROF_BPF_STATE_NO_TABLE) {
    w->end = PROF_BPF_END_NO_TABLE;
    return 1;
  }
  if (id == PROF_BPF_STATE_SIGRETURN && !(f->known & GORC_FRAME_INTERRUPTED)) {
    struct gorc_frame_regs to;
    if ((rc = gorc_step_signal_frame(w, f, &to)) != 0) {
      w->end = walk_end(rc);
      return 1;
    }
    *f = to;
    return 0;
  }
  const struct gorc_state *st = bpf_map_lookup_elem(&states, &id);
  if (!st) {                  /* NONE, SIGRETURN interrupted, or out of range */
    w->end = PROF_BPF_END_NO_INFO;
    return 1;
  }
  rc = gorc_step_by_state(w, f, st);
  if (rc != GORC_STEP_NEXT) {
    w->end = walk_end(rc);
    return 1;
  }
  return 0;
}

static long loop_frame(uint32_t i, void *arg)
{
  struct loop_ctx *c = arg;
  struct walk *w = c->w;
  (void)i;
  if (step(w, c->proc))
    return 1;
  uint32_t at = w->nkernel + w->nuser;
  if (at >= PROF_BPF_MAX_KERNEL + PROF_BPF_MAX_FRAMES || w->nuser >= PROF_BPF_MAX_FRAMES) {
    w->end = PROF_BPF_END_DEPTH;
    return 1;
  }
  w->ips[at] = w->f.ip;
  w->nuser++;
  return 0;
}

/* The walk from the user registers R (KNOWN: GORC_FRAME_*; the
   sample's, the first frame, interrupted; or where a copied sample's
   walk stopped) through PROC's tables: w->nuser addresses after the
   kernel's.  */
static void walk_from(struct walk *w, const struct prof_bpf_regs *r, uint32_t known,
                      const struct prof_bpf_proc *proc)
{
  w->f.ip = r->ip;
  w->f.sp = r->sp;
  w->f.fp = r->bp;
  w->f.aux = r->bx;
  w->f.uc = 0;
  w->f.known = known;
  w->first = *r;
  w->chunk_base = 0;
  w->map.start = w->map.end = 0;
  w->vma.start = w->vma.end = 0;
  w->vma_asked = 0;
  uint32_t at = w->nkernel;
  if (at >= PROF_BPF_MAX_KERNEL)
    at = PROF_BPF_MAX_KERNEL;
  w->ips[at] = w->f.ip;
  w->nuser = 1;
  w->end = PROF_BPF_END_DEPTH;
  struct loop_ctx c = { w, proc };
  bpf_loop(PROF_BPF_MAX_FRAMES, loop_frame, &c, 0);
}

#define PAGE_SIZE (1ul << PAGE_SHIFT)

/* PROC, the entry gorc-prof wrote for the task's process, if it holds
   the task's image (W->mm, W->exec: its mm and exec count), else NULL: an exec
   (or a pid used again) that gorc-prof has not read yet left the old
   image's mappings there, and where the new image's code lies at the
   same addresses (no address randomization) the old tables would walk
   it, wrong and complete.  The image's mark: the entry maps the
   executable's text (the task's mm, exe_found), to the executable's
   table and load address where the files map has its file; else (no
   table loaded for it yet, or a file the kernel names otherwise than
   gorc-prof found it: overlayfs) to a mapping with no table, or one
   whose pages are the text's.  Checked once an image and entry: the
   entry keeps the image it holds (an exec makes a new mm and counts
   one more; gorc-prof's next write clears it).  Without the file keys
   (vma_files) it is taken as it is.  */
static struct prof_bpf_proc *proc_of_image(struct walk *w, struct prof_bpf_proc *proc)
{
  uint64_t mm = (uint64_t)w->mm, exec = w->exec;
  if (!proc || !vma_files || (proc->image_mm == mm && proc->image_exec == exec))
    return proc;
  exe_found(w);
  const struct prof_bpf_map *m = find_map(proc, w->exe_start);
  /* (kept from clang, which would test pc < m->end for it: the verifier
     knows m's NULL by the test of m) */
  asm volatile("" : "+r"(m));
  if (m
      && (w->exe.end ? m->module == w->exe.module && m->bias == w->exe.bias
                     : m->nleaves == 0
                           || (m->start == (w->exe_start & ~(PAGE_SIZE - 1))
                               && m->end == ((w->exe_end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))))) {
    proc->image_mm = mm;
    proc->image_exec = exec;
    return proc;
  }
  count(PROF_BPF_STAT_STALE, 1);
  return NULL;
}

/* The user part of the sample of TASK: its registers at the kernel
   entry (or the interrupt), then the walk through its process's entry
   if that holds its image.  */
static void walk_user(struct walk *w, struct task_struct *task, uint32_t pid)
{
  struct prof_bpf_proc *proc = bpf_map_lookup_elem(&procs, &pid);
  struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
  w->nuser = 0;
  /* read, not dereferenced: the verifier's check of a trusted pointer's
     field looks its type up by name through the kernel's BTF, 1.1 ms */
  struct mm_struct *mm = NULL;
  uint64_t exec = 0;
  bpf_probe_read_kernel(&mm, sizeof mm, __builtin_preserve_access_index(&task->mm));
  bpf_probe_read_kernel(&exec, sizeof exec, __builtin_preserve_access_index(&task->self_exec_id));
  if (!regs || !mm) {
    w->end = PROF_BPF_END_KERNEL;
    return;
  }
  w->mm = mm;
  w->exec = exec;
  w->exe_start = w->exe_end = w->exe.start = w->exe.end = 0;
  w->exe_asked = w->exe_used = 0;
  struct prof_bpf_regs r = { regs->ip, regs->sp, regs->bp, regs->bx };
  walk_from(w, &r, GORC_FRAME_INTERRUPTED | GORC_FRAME_FP | GORC_FRAME_AUX,
            proc_of_image(w, proc));
  count(PROF_BPF_STAT_FRAMES, w->nuser);
}

/* The walk met a module (or process) without a table yet: as much of
   the stack as can be read from the frame it stopped at, up to
   PROF_BPF_COPY bytes (the readable length found by halving, to 256
   bytes: a read that crosses the stack's top fails whole), after the
   user addresses, then the tail (struct prof_bpf_copy_tail).  A frame
   a signal interrupted has registers in its ucontext, below its sp: the
   copy is then the sample's, from the first frame.  Global, so that it
   is checked once, not on each of the ways into it.  */
GLOBAL int copy_stack(struct walk *w)
{
  if (!w)
    return 0;
  /* all ones where the copy is the sample's: no branch, which would
     have the verifier check the copy's rounds twice */
  uint64_t first = 0 - ((w->f.uc | (0 - w->f.uc)) >> 63);
  struct prof_bpf_copy_tail tail = {
    { (w->first.ip & first) | (w->f.ip & ~first), (w->first.sp & first) | (w->f.sp & ~first),
      (w->first.bp & first) | (w->f.fp & ~first), (w->first.bx & first) | (w->f.aux & ~first) },
    (uint32_t)(((GORC_FRAME_INTERRUPTED | GORC_FRAME_FP | GORC_FRAME_AUX) & first)
               | (w->f.known & ~first)),
    (uint32_t)((1 & first) | (w->nuser & ~first)), 0, 0
  };
  if (tail.nwalked >= PROF_BPF_MAX_FRAMES)
    return 0;                 /* as deep as a stack goes: nothing to copy */
  /* (bounded for the verifier: the kernel's, then at most the walk's) */
  uint32_t at = (w->nkernel & 127) + (tail.nwalked & (PROF_BPF_MAX_FRAMES - 1));
  void *dst = &w->ips[at];
  const void *sp = (const void *)tail.regs.sp;
  uint32_t good = 0, bad = PROF_BPF_COPY + 1;
  if (bpf_probe_read_user(dst, PROF_BPF_COPY, sp) == 0)
    good = PROF_BPF_COPY;
  for (int i = 0; i < 5 && good < PROF_BPF_COPY; i++) {
    /* (masked for the verifier: good is 256 or more below PROF_BPF_COPY) */
    uint32_t mid = ((good + bad) / 2) & ~255u & (PROF_BPF_COPY - 1);
    if (mid <= good)
      break;
    /* no branch on the read's result: 5 such branches were 32 paths
       for the verifier, 1,400 of the 4,650 instructions it checked */
    uint32_t failed = 0 - (uint32_t)((uint64_t)bpf_probe_read_user(dst, mid, sp) >> 63);
    good = (good & failed) | (mid & ~failed);
    bad = (mid & failed) | (bad & ~failed);
  }
  /* the buffer holds the last read: the good one again when that failed */
  if (good > 0 && good < PROF_BPF_COPY
      && bpf_probe_read_user(dst, good & (PROF_BPF_COPY - 1), sp) != 0)
    good = 0;
  if (!good)                  /* the sample goes out walked as far as it went */
    return 0;
  tail.stack_bytes = good;
  /* (good is a multiple of 256: the tail lies in whole words) */
  uint32_t end = at + good / 8;
  if (end > PROF_BPF_MAX_KERNEL + PROF_BPF_MAX_FRAMES + PROF_BPF_COPY / 8)
    return 0;                 /* (it is not: for the verifier) */
  __builtin_memcpy(&w->ips[end], &tail, sizeof tail);
  w->nuser = tail.nwalked;
  w->stack_bytes = good;
  w->end = PROF_BPF_END_COPIED;
  count(PROF_BPF_STAT_COPIED, 1);
  return 1;
}

/* May this sample carry its stack's copy?  While the ring buffer stays
   at most half full with it.  Copies filled the ring while gorc-prof
   was busy (building a compiler's table at its first run) and whole
   samples were dropped; past half, the sample goes out walked as far as
   the tables go and marked (no table yet), a few hundred bytes, and the
   other half holds thousands of those.  */
static int copy_fits(struct walk *w)
{
  uint64_t ring = bpf_ringbuf_query(&samples, BPF_RB_RING_SIZE);
  uint64_t unread = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA);
  return unread + sizeof w->s + sizeof w->ips <= ring / 2;
}

SEC("perf_event")
int prof_sample(void *ctx)
{
  uint32_t zero = 0;
  struct walk *w = bpf_map_lookup_elem(&walks, &zero);
  if (!w)
    return 0;
  uint64_t id = bpf_get_current_pid_tgid();
  uint32_t pid = (uint32_t)(id >> 32);
  w->s.time = bpf_ktime_get_ns();
  w->s.pid = pid;
  w->nkernel = 0;
  w->stack_bytes = 0;
  w->from_held = 0;
  count(PROF_BPF_STAT_SAMPLES, 1);
  if (kernel_frames) {
    long n = bpf_get_stack(ctx, w->ips, PROF_BPF_MAX_KERNEL * 8, 0);
    if (n > 0)
      w->nkernel = (uint32_t)(n / 8);
  }
  if (pid == 0)
    w->end = PROF_BPF_END_KERNEL, w->nuser = 0;
  else
    walk_user(w, bpf_get_current_task_btf(), pid);
  if (w->end == PROF_BPF_END_NO_TABLE || w->end == PROF_BPF_END_NO_MAPPING) {
    if (copy_fits(w))
      copy_stack(w);
    else
      count(PROF_BPF_STAT_NOT_COPIED, 1);
  }
  w->s.tid_end = PROF_BPF_TID_END((uint32_t)id, w->end);
  uint64_t size = sizeof w->s + 8 * (uint64_t)(w->nkernel + w->nuser);
  if (w->stack_bytes)
    size += w->stack_bytes + sizeof(struct prof_bpf_copy_tail);
  if (size > sizeof w->s + sizeof w->ips)
    size = sizeof w->s + sizeof w->ips;
  uint64_t wake = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >= wake_bytes
                      ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
  if (bpf_ringbuf_output(&samples, &w->s, size, wake) != 0)
    count(PROF_BPF_STAT_LOST, 1);
  return 0;
}

/* The held sample (struct prof_bpf_held, written by gorc-prof once the
   tables of its process's modules are loaded) walked by the same steps
   as at the sample, over its stack's copy: run by BPF_PROG_TEST_RUN.  */
SEC("syscall")
int prof_rewalk(void *ctx)
{
  uint32_t zero = 0;
  struct walk *w = bpf_map_lookup_elem(&rewalks, &zero);
  struct prof_bpf_held *h = bpf_map_lookup_elem(&held, &zero);
  (void)ctx;
  if (!w || !h)
    return -1;
  w->from_held = 1;
  w->nkernel = 0;
  struct prof_bpf_regs r = h->regs;
  walk_from(w, &r, h->known, &h->proc);
  h->nuser = (uint16_t)w->nuser;
  h->end = (int8_t)w->end;
  bpf_probe_read_kernel(h->ips, sizeof h->ips, w->ips);
  return 0;
}
