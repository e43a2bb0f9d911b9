/* gorc-prof: perf records into a profile (see prof-record.h).  */

#define _GNU_SOURCE
#include "prof-record.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>

#include "gorc/prof.h"
#include "prof-perf.h"

static void map_file(struct prof_data *d, uint32_t pid, uint64_t addr, uint64_t len,
                     uint64_t pgoff, const char *name, const struct prof_file_id *id,
                     uint64_t time)
{
  struct prof_proc *p = prof_proc_get(d, (pid_t)pid);
  if (!(name = prof_proc_file(d, p, name, id)))
    return;
  prof_space_map(&p->space, addr, len, pgoff, name);
  const struct prof_map *m = prof_space_find(&p->space, addr);
  if (m && m->mod)
    prof_proc_add_span(p, m->bias, addr, addr + len, m->path, m->mod, time);
}

/* The file name that follows a body of SIZE bytes, cut at the record's
   end (the kernel pads it with NULs).  */
static int record_name(const uint8_t *rec, size_t len, size_t body, char *name, size_t cap)
{
  size_t at = sizeof(struct perf_event_header) + body;
  if (len <= at)
    return -1;
  size_t n = strnlen((const char *)rec + at, len - at);
  if (n >= cap)
    n = cap - 1;
  memcpy(name, rec + at, n);
  name[n] = 0;
  return 0;
}

static void feed_mmap2(struct prof_data *d, const uint8_t *rec, size_t len, int v2,
                       uint64_t time)
{
  char name[4096];
  if (v2) {
    struct gorc_perf_mmap2_body b;
    if (len < sizeof(struct perf_event_header) + sizeof b)
      return;
    memcpy(&b, rec + sizeof(struct perf_event_header), sizeof b);
    if (!(b.prot & PROT_EXEC) || record_name(rec, len, sizeof b, name, sizeof name))
      return;
    const struct perf_event_header *h = (const void *)rec;
    int by_build_id = (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0;
    struct prof_file_id id = { b.inode.maj, b.inode.min, b.inode.ino };
    if (by_build_id && b.build_id.size <= sizeof b.build_id.id)
      prof_modules_expect_build_id(name, b.build_id.id, b.build_id.size);
    map_file(d, b.pid, b.addr, b.len, b.pgoff, name, by_build_id ? NULL : &id, time);
  } else {
    struct gorc_perf_mmap_body b;
    const struct perf_event_header *h = (const void *)rec;
    if (len < sizeof *h + sizeof b || (h->misc & PERF_RECORD_MISC_MMAP_DATA))
      return;
    memcpy(&b, rec + sizeof *h, sizeof b);
    if (record_name(rec, len, sizeof b, name, sizeof name) == 0)
      map_file(d, b.pid, b.addr, b.len, b.pgoff, name, NULL, time);
  }
}

static void feed_comm(struct prof_data *d, const uint8_t *rec, size_t len)
{
  const struct perf_event_header *h = (const void *)rec;
  uint32_t ids[2];
  if (len < sizeof *h + sizeof ids)
    return;
  memcpy(ids, rec + sizeof *h, sizeof ids);
  struct prof_proc *p = prof_proc_get(d, (pid_t)ids[0]);
  /* an exec: the old image's mappings are gone */
  if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
    prof_space_clear(&p->space);
  if (ids[0] == ids[1])
    record_name(rec, len, sizeof ids, p->comm, sizeof p->comm);
}

static void feed_task(struct prof_data *d, const uint8_t *rec, size_t len, int fork)
{
  struct gorc_perf_task_body b;
  if (len < sizeof(struct perf_event_header) + sizeof b)
    return;
  memcpy(&b, rec + sizeof(struct perf_event_header), sizeof b);
  if (fork && b.pid != b.ppid) {
    /* the second get may move the array: the parent by its index */
    size_t parent_at = (size_t)(prof_proc_get(d, (pid_t)b.ppid) - d->procs);
    struct prof_proc *child = prof_proc_get(d, (pid_t)b.pid);
    struct prof_proc *parent = &d->procs[parent_at];
    prof_space_copy(&child->space, &parent->space);
    memcpy(child->comm, parent->comm, sizeof child->comm);
    for (size_t i = 0; i < parent->nspans; i++)
      prof_proc_add_span(child, parent->spans[i].base, parent->spans[i].lo,
                         parent->spans[i].hi, parent->spans[i].name, parent->spans[i].mod,
                         parent->spans[i].time);
  } else if (fork) {
    if (b.tid != b.pid && d->ends_by_threads)
      prof_proc_get(d, (pid_t)b.pid)->threads_alive++;
  } else if (b.pid == b.tid) {
    struct prof_proc *p = prof_proc_get(d, (pid_t)b.pid);
    /* (pthread_exit in main: the process lives on in its other threads) */
    p->first_exited = 1;
    p->ended = !d->ends_by_threads || p->threads_alive == 0;
  } else if (d->ends_by_threads) {
    struct prof_proc *p = prof_proc_find(d, (pid_t)b.pid);
    if (p && p->threads_alive > 0 && --p->threads_alive == 0)
      p->ended = p->first_exited;
  }
}

/* The addresses of CALLCHAIN (N entries) in the context CONTEXT
   (PERF_CONTEXT_KERNEL or PERF_CONTEXT_USER), innermost first, into IPS
   (at most MAX).  Their number.  */
static unsigned callchain_part(const uint64_t *callchain, uint64_t n, uint64_t context,
                               uint64_t *ips, unsigned max)
{
  unsigned got = 0;
  int in = 0;
  for (uint64_t i = 0; i < n && got < max; i++) {
    uint64_t ip;
    memcpy(&ip, &callchain[i], 8);
    if (ip >= PERF_CONTEXT_MAX)
      in = ip == context;
    else if (in)
      ips[got++] = ip;
  }
  return got;
}

static void feed_sample(struct prof_data *d, const struct gorc_perf_layout *l,
                        const uint8_t *rec, size_t len)
{
  static uint64_t kips[GORC_PROF_MAX_DEPTH], uips[GORC_PROF_MAX_DEPTH];
  struct gorc_perf_sample s;
  unsigned nuser = 0, nkernel;
  enum prof_walk_end end;

  if (gorc_perf_decode_sample(l, rec, len, &s) != 0)
    return;
  struct prof_proc *p = prof_proc_of_sample(d, (pid_t)s.pid, (pid_t)s.tid);
  /* the kernel part of the callchain (with exclude_callchain_user, the
     whole of it) */
  nkernel = callchain_part(s.callchain, s.ncallchain, PERF_CONTEXT_KERNEL, kips,
                           GORC_PROF_MAX_DEPTH);
  if (s.user_regs && (s.regs.have & (1u << GORC_PERF_REG_IP))) {
    end = prof_unwind(&p->space, &s.regs, s.stack, s.stack_size, uips, GORC_PROF_MAX_DEPTH,
                      &nuser);
    d->stack_bytes += s.stack_size;
  } else {
    /* frame-pointer callchains (perf record -g) are used as they are:
       their user part, which follows PERF_CONTEXT_USER; a kernel
       thread's or the idle task's sample has none */
    nuser = callchain_part(s.callchain, s.ncallchain, PERF_CONTEXT_USER, uips,
                           GORC_PROF_MAX_DEPTH);
    end = nuser ? PROF_WALK_CALLCHAIN : PROF_WALK_KERNEL;
  }
  if (nkernel + nuser > 0)
    prof_proc_add_sample(p, s.time, s.tid, end, kips, nkernel, uips, nuser);
}

int prof_feed_uses(const uint8_t *rec, size_t len)
{
  const struct perf_event_header *h = (const void *)rec;
  struct gorc_perf_mmap2_body b;
  switch (h->type) {
  case PERF_RECORD_MMAP2:
    if (len < sizeof *h + sizeof b)
      return 0;
    memcpy(&b, rec + sizeof *h, sizeof b);
    return (b.prot & PROT_EXEC) != 0;
  case PERF_RECORD_MMAP:
    return !(h->misc & PERF_RECORD_MISC_MMAP_DATA);
  case PERF_RECORD_SAMPLE:
  case PERF_RECORD_COMM:
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
  case PERF_RECORD_LOST:
    return 1;
  default:
    return 0;
  }
}

int prof_feed_code_mapping(const uint8_t *rec, size_t len, pid_t *pid, uint64_t *addr,
                           uint64_t *size)
{
  const struct perf_event_header *h = (const void *)rec;
  struct gorc_perf_mmap_body b;   /* (the head of either record's body) */
  if (!prof_feed_uses(rec, len) || (h->type != PERF_RECORD_MMAP2 && h->type != PERF_RECORD_MMAP)
      || len < sizeof *h + sizeof b)
    return 0;
  memcpy(&b, rec + sizeof *h, sizeof b);
  *pid = (pid_t)b.pid;
  *addr = b.addr;
  *size = b.len;
  return 1;
}

void prof_feed_record(struct prof_data *d, const struct gorc_perf_layout *l, const uint8_t *rec,
                      size_t len, uint64_t time)
{
  const struct perf_event_header *h = (const void *)rec;
  uint64_t lost[2];
  d->record_bytes += len;
  switch (h->type) {
  case PERF_RECORD_SAMPLE:
    feed_sample(d, l, rec, len);
    break;
  case PERF_RECORD_MMAP2:
  case PERF_RECORD_MMAP:
    feed_mmap2(d, rec, len, h->type == PERF_RECORD_MMAP2, time);
    break;
  case PERF_RECORD_COMM:
    feed_comm(d, rec, len);
    break;
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
    feed_task(d, rec, len, h->type == PERF_RECORD_FORK);
    break;
  case PERF_RECORD_LOST:
    if (len >= sizeof *h + sizeof lost) {
      memcpy(lost, rec + sizeof *h, sizeof lost);
      d->lost += lost[1];
      d->lost_records++;
    }
    break;
  default:
    break;
  }
}
