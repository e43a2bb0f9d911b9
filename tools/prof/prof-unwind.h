/* gorc-prof: unwinding a copied user stack outside the process.

   A sample is the user registers (rip, rsp, rbp, rbx) and a copy of the
   stack from rsp (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER).  Each
   frame's state comes from its module's gorc records, read from the file
   on disk with the tools' decoder (common.c), else from the module's
   .eh_frame, else its .debug_frame, interpreted by the reader libgorc
   uses (include/gorc/eh_frame.h) over the file's bytes, else a Go
   program's .gopclntab (tools/lib/gopclntab.h); a signal frame (glibc's
   __restore_rt) is crossed through the ucontext on the stack.  Every stack read is
   checked against the copy: a walk that needs a byte beyond it stops as
   PROF_WALK_TRUNCATED, never guesses.  */

#ifndef GORC_PROF_UNWIND_H
#define GORC_PROF_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "gorc/perf-sample.h"
#include "gorc/format.h"

/* How a walk ended.  */
enum prof_walk_end {
  PROF_WALK_COMPLETE = 0,   /* the outermost frame (_start, the thread start) */
  PROF_WALK_DEEPER = 1,     /* more frames than the caller's room */
  PROF_WALK_CALLCHAIN = 2,  /* not unwound: a frame-pointer callchain (perf record -g) */
  PROF_WALK_KERNEL = 3,     /* no user part: a kernel thread's or the idle task's sample */
  PROF_WALK_TRUNCATED = -1, /* the stack copy ended */
  PROF_WALK_NO_INFO = -2,   /* code without records or .eh_frame (or no file) */
  PROF_WALK_BAD = -3,       /* the stack did not make sense (not code, wrong direction) */
  PROF_WALK_NO_TABLE = -4,  /* --unwind=bpf: a module (or process) whose table the walker
                               did not have yet (loaded as the mapping is reported) */
  PROF_WALK_EXEC = -5       /* in an exec that had replaced the program's mappings: the
                               registers the old program's, its stack gone (prof-fold.c) */
};

/* One ELF file, loaded once for every process that maps it.  */
struct prof_module;

/* One executable mapping of a process: [start, end) at file offset
   PGOFF; an address A of it is A - BIAS in the file's numbering.  */
struct prof_map {
  uint64_t start, end, pgoff, bias;
  struct prof_module *mod;   /* NULL: not an ELF file gorc-prof can read */
  const char *path;          /* the file's path (owned by the module cache) */
};

/* A process's executable mappings, sorted by start, not overlapping.  */
struct prof_space {
  struct prof_map *maps;
  size_t n, cap;
};

/* An executable mapping of PATH (a later one replaces what it overlaps).  */
void prof_space_map(struct prof_space *sp, uint64_t start, uint64_t len, uint64_t pgoff,
                    const char *path);
/* Forget every mapping (an exec: munmap is not reported).  */
void prof_space_clear(struct prof_space *sp);
void prof_space_copy(struct prof_space *dst, const struct prof_space *src);
const struct prof_map *prof_space_find(const struct prof_space *sp, uint64_t addr);

/* The unwind table of module M for a walker elsewhere (the BPF walker's
   maps): FN gets each of its executable segments' rows in address order,
   a file address PC and the state from there up to the next row (NULL:
   none), then the address of each signal trampoline (glibc's
   __restore_rt; ST is PROF_ROW_SIGRETURN): a return address there is a
   signal frame's.  Records first, .eh_frame where they say nothing.  */
typedef void prof_row_fn(void *arg, uint64_t pc, const struct gorc_state *st);
#define PROF_ROW_SIGRETURN ((const struct gorc_state *)1)
void prof_module_rows(const struct prof_module *m, prof_row_fn *fn, void *arg);
/* The build ID of M's file into *ID (its length; 0: none) and the
   file's size into *SIZE: what names its table in the cache
   (prof-cache.h).  */
size_t prof_module_identity(const struct prof_module *m, const uint8_t **id, uint64_t *size);
/* The file M was read from as the kernel names it, and its executable
   segment: what a walker that meets the file's mapping in the kernel,
   not in its process's mappings, needs to use M's table there.  */
struct prof_module_text {
  unsigned dev_major, dev_minor;
  uint64_t ino;
  int64_t ctime_sec;          /* its inode's change time: a file written later, or */
  uint32_t ctime_nsec;        /* another file given the inode number, differs */
  uint64_t offset, filesz;    /* the segment's bytes in the file */
  uint64_t vaddr;             /* its file address */
};
/* 0 and *T; -1 for a module not read from a file (the vdso) or whose
   file has no executable segment, or more than one.  */
int prof_module_text(const struct prof_module *m, struct prof_module_text *t);
/* The entry of the function of M at file address ADDR, as its CFI
   says (the first address of the FDE covering ADDR), into *ENTRY: 1, or
   0 where none covers it.  What names a function no symbol names.  */
int prof_module_function(const struct prof_module *m, uint64_t addr, uint64_t *entry);
/* The bytes of M's gorc records (sections and index: 0 without them)
   and of its .eh_frame and .eh_frame_hdr (and .debug_frame, where it is
   read; a Go program's .gopclntab where it has no .debug_frame).  */
void prof_module_sizes(const struct prof_module *m, uint64_t *record_bytes, uint64_t *eh_bytes);

/* Walk the sample: IPS[0] is regs->ip, then one return address per
   frame, at most MAX.  *N gets the count.  */
enum prof_walk_end prof_unwind(const struct prof_space *sp, const struct gorc_perf_regs *regs,
                               const uint8_t *stack, uint64_t stack_size, uint64_t *ips,
                               unsigned max, unsigned *n);
/* The same from a frame a walk elsewhere stopped at: REGS its registers
   (REGS->have not read), KNOWN which of them hold values and whether
   its ip is an interrupted instruction (GORC_FRAME_*, gorc/step.h),
   STACK the stack from its sp: IPS[0] is its ip.  */
enum prof_walk_end prof_unwind_from(const struct prof_space *sp, const struct gorc_perf_regs *regs,
                                    uint32_t known, const uint8_t *stack, uint64_t stack_size,
                                    uint64_t *ips, unsigned max, unsigned *n);

/* The file PATH must have build ID ID (LEN bytes) (a perf.data's record
   of the files it profiled): a file on disk with another one is not
   read (a warning says so), so that no frame is unwound or named with a
   file that was not the one profiled.  */
void prof_modules_expect_build_id(const char *path, const uint8_t *id, size_t len);

/* The file that holds the bytes of the module NAME: NAME, or for
   "[vdso]" a copy of the vdso (written at the first ask, removed by
   prof_modules_end).  */
const char *prof_module_file(const char *name);

/* A copy of the ELF file FROM (a process's /proc/PID/map_files/ entry of
   a file deleted since it was mapped; a file under another root, through
   /proc/PID/root), kept until prof_modules_end as NAME in a scratch
   directory: its path, the same for the same KEY, or NULL when it cannot
   be read or written.  The module read from it has FROM's identity
   (device, inode, times: the file the kernel maps), not the copy's.  */
const char *prof_modules_save(const char *from, const char *key, const char *name);

/* The module of the file at PATH (read at the first ask; NULL when out
   of memory): what a mapping of PATH gets.  */
struct prof_module *prof_module_of(const char *path);
/* PATH is the file stat describes as NOW (a mapping of it was just
   reported).  Where PATH's module was read from another file (a program
   built again and run again: a new inode), or from this one before it
   changed (its change time: written, or its attributes), the module is
   retired: PATH's next module is read anew (and the walker's files map
   gets the new change time), and the retired one keeps its tables and
   takes its frames' names from a copy of the bytes it read (none where
   the file was written in place, its modification time or size
   changed: its old bytes are gone).  */
struct stat;
void prof_modules_path_changed(const char *path, const struct stat *now);
/* Did A and B read the same file (device, inode, change time; not the
   vdso, nor a file not read)?  */
int prof_module_same_file(const struct prof_module *a, const struct prof_module *b);
/* The file that names M's frames: its path (prof_module_file), or, once
   retired, its copy (NULL: none).  */
const char *prof_module_names_file(const struct prof_module *m);
/* FN with the real path of each file the program CMD (found as execvp
   finds it) maps as it starts: the program, its interpreter and the
   libraries it names (DT_NEEDED, not theirs).  Guessed from the files,
   before the program runs.  */
typedef void prof_path_fn(void *arg, const char *path);
void prof_program_files(const char *cmd, prof_path_fn *fn, void *arg);

/* The end of a run: the scratch files (prof_modules_save, the vdso's
   copy) removed.  The module cache, every file read once, stays until
   the process exits, which unmaps the files at once: unmapping them one
   by one (a TLB flush each where page tables are shadowed, as on the VM
   of this project's figures) was 0.6 ms of a small profile's 8.  */
void prof_modules_end(void);

#endif
