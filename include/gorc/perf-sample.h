/* gorc-prof: what it reads out of perf_event records (from its own ring
   buffers or a perf.data file), decoded into plain structs; the bodies
   of the records it reads; the layout of a perf.data file.

   The records themselves are the kernel's (linux/perf_event.h): their
   fields follow the sample_type and sample_regs_user of the event that
   wrote them, so they are decoded here with those two values, every
   read checked against the record's length.  */

#ifndef GORC_PERF_SAMPLE_H
#define GORC_PERF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* x86-64 register bits of sample_regs_user (asm/perf_regs.h).  */
#define GORC_PERF_REG_BX 1
#define GORC_PERF_REG_BP 6
#define GORC_PERF_REG_SP 7
#define GORC_PERF_REG_IP 8
/* The registers an unwind needs: rip, rsp, rbp and rbx (glibc's
   lazy-binding resolver keeps its CFA in rbx).  */
#define GORC_PERF_REGS_MASK                                                    \
  ((1ULL << GORC_PERF_REG_BX) | (1ULL << GORC_PERF_REG_BP) |                   \
   (1ULL << GORC_PERF_REG_SP) | (1ULL << GORC_PERF_REG_IP))

/* The user registers of a sample; a register the mask did not ask for
   reads as absent (its bit clear in HAVE).  */
struct gorc_perf_regs {
  uint64_t ip, sp, bp, bx;
  unsigned have;            /* 1 << GORC_PERF_REG_* of the registers read */
};

/* One PERF_RECORD_SAMPLE.  */
struct gorc_perf_sample {
  uint32_t pid, tid;
  uint64_t time;
  uint64_t ip;              /* PERF_SAMPLE_IP (or 0) */
  const uint64_t *callchain;/* PERF_SAMPLE_CALLCHAIN entries (in the record) */
  uint64_t ncallchain;
  int user_regs;            /* the sample has user registers (abi != NONE) */
  struct gorc_perf_regs regs;
  const uint8_t *stack;     /* the copy of the user stack from regs.sp */
  uint64_t stack_size;      /* bytes of it that are valid (dyn_size) */
  uint64_t stack_asked;     /* bytes the event asked for (size) */
};

/* How an event's records are laid out.  */
struct gorc_perf_layout {
  uint64_t sample_type;
  uint64_t regs_mask;       /* sample_regs_user */
  int sample_id_all;
};

/* The pid, tid and time that sample_id_all appends to other records.  */
struct gorc_perf_id {
  uint32_t pid, tid;
  uint64_t time;
};

/* ---- the record bodies gorc-prof reads (linux/perf_event.h describes
   them in comments only) ---- */

/* PERF_RECORD_MMAP2's body up to the file name.  The file is named by
   device and inode, or, when the header's misc has
   PERF_RECORD_MISC_MMAP_BUILD_ID (perf record --buildid-mmap, perf 7's
   default), by its build ID.  */
struct gorc_perf_mmap2_body {
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
  union {
    struct {
      uint32_t maj, min;
      uint64_t ino, ino_generation;
    } inode;
    struct {
      uint8_t size, reserved1;
      uint16_t reserved2;
      uint8_t id[20];
    } build_id;
  };
  uint32_t prot, flags;
};

struct gorc_perf_mmap_body {
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
};

struct gorc_perf_task_body {           /* FORK, EXIT */
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
};

/* ---- perf.data (Linux tools/perf/util/header.h) ---- */

#define GORC_PERF_FILE_MAGIC "PERFILE2"
#define GORC_PERF_FEAT_BUILD_ID 2             /* HEADER_BUILD_ID */
#define GORC_PERF_FEAT_ARCH 6                 /* HEADER_ARCH */
#define GORC_PERF_MISC_BUILD_ID_SIZE (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define GORC_PERF_FEAT_BITS 256
#define GORC_PERF_USER_TYPE_START 64          /* perf's own record types: skipped */
#define GORC_PERF_RECORD_FINISHED_ROUND 68    /* PERF_RECORD_FINISHED_ROUND */
#define GORC_PERF_RECORD_COMPRESSED 81        /* PERF_RECORD_COMPRESSED (perf record -z) */

struct gorc_perf_file_section {
  uint64_t offset, size;
};

struct gorc_perf_file_header {
  char magic[8];
  uint64_t size;
  uint64_t attr_size;
  struct gorc_perf_file_section attrs, data, event_types;
  uint64_t features[GORC_PERF_FEAT_BITS / 64];
};

#endif
