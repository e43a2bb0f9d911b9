/* gorc-prof: what it reads out of perf_event records (from its own ring
   buffers or a perf.data file), decoded into plain structs.

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

#endif
