/* gorc-prof: decoding perf_event records (see prof-perf.h).  */

#include "prof-perf.h"

#include <linux/perf_event.h>
#include <string.h>

/* Fields before the user registers that gorc-prof skips or reads:
   each is one u64 (TID is two u32, CPU a u32 and padding).  */
#define FIXED_FIELDS                                                           \
  (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |  \
   PERF_SAMPLE_PERIOD)
#define KNOWN_FIELDS                                                           \
  (FIXED_FIELDS | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | \
   PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |         \
   PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |       \
   PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_WEIGHT_STRUCT)

int gorc_perf_layout_usable(const struct gorc_perf_layout *l, const char **why)
{
  if (l->sample_type & ~(uint64_t)KNOWN_FIELDS) {
    *why = "its samples carry fields gorc-prof cannot skip (read values, branch stacks "
           "or interrupt registers)";
    return 0;
  }
  return 1;
}

/* A bounded reader over one record.  */
struct cursor {
  const uint8_t *p, *end;
};

static int get64(struct cursor *c, uint64_t *v)
{
  if (c->end - c->p < 8)
    return -1;
  memcpy(v, c->p, 8);
  c->p += 8;
  return 0;
}

static int skip(struct cursor *c, uint64_t n)
{
  if ((uint64_t)(c->end - c->p) < n)
    return -1;
  c->p += n;
  return 0;
}

static int popcount(uint64_t v)
{
  return __builtin_popcountll(v);
}

/* The registers of MASK in the order the kernel writes them (by bit).  */
static int get_regs(struct cursor *c, uint64_t mask, struct gorc_perf_regs *r)
{
  memset(r, 0, sizeof *r);
  for (unsigned bit = 0; bit < 64; bit++) {
    if (!(mask & (1ULL << bit)))
      continue;
    uint64_t v;
    if (get64(c, &v))
      return -1;
    switch (bit) {
    case GORC_PERF_REG_IP: r->ip = v; break;
    case GORC_PERF_REG_SP: r->sp = v; break;
    case GORC_PERF_REG_BP: r->bp = v; break;
    case GORC_PERF_REG_BX: r->bx = v; break;
    default: continue;
    }
    r->have |= 1u << bit;
  }
  return 0;
}

/* The fields up to PERIOD.  */
static int get_fixed(const struct gorc_perf_layout *l, struct cursor *c,
                     struct gorc_perf_sample *s)
{
  uint64_t v, t = l->sample_type;
  if ((t & PERF_SAMPLE_IDENTIFIER) && get64(c, &v))
    return -1;
  if ((t & PERF_SAMPLE_IP) && get64(c, &s->ip))
    return -1;
  if (t & PERF_SAMPLE_TID) {
    if (get64(c, &v))
      return -1;
    s->pid = (uint32_t)v;
    s->tid = (uint32_t)(v >> 32);
  }
  if ((t & PERF_SAMPLE_TIME) && get64(c, &s->time))
    return -1;
  int more = popcount(t & (PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                           PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD));
  return skip(c, 8 * (uint64_t)more);
}

static int get_callchain(const struct gorc_perf_layout *l, struct cursor *c,
                         struct gorc_perf_sample *s)
{
  if (!(l->sample_type & PERF_SAMPLE_CALLCHAIN))
    return 0;
  if (get64(c, &s->ncallchain) || s->ncallchain > (uint64_t)(c->end - c->p) / 8)
    return -1;
  s->callchain = (const uint64_t *)(const void *)c->p;
  return skip(c, s->ncallchain * 8);
}

static int get_raw(const struct gorc_perf_layout *l, struct cursor *c)
{
  uint32_t size;
  if (!(l->sample_type & PERF_SAMPLE_RAW))
    return 0;
  if (c->end - c->p < 4)
    return -1;
  memcpy(&size, c->p, 4);
  /* u32 size, then size bytes, padded to 8 with the size field */
  return skip(c, ((uint64_t)size + 4 + 7) / 8 * 8);
}

static int get_user(const struct gorc_perf_layout *l, struct cursor *c,
                    struct gorc_perf_sample *s)
{
  uint64_t abi;
  if (l->sample_type & PERF_SAMPLE_REGS_USER) {
    if (get64(c, &abi))
      return -1;
    s->user_regs = abi != PERF_SAMPLE_REGS_ABI_NONE;
    if (s->user_regs && get_regs(c, l->regs_mask, &s->regs))
      return -1;
  }
  if (l->sample_type & PERF_SAMPLE_STACK_USER) {
    if (get64(c, &s->stack_asked))
      return -1;
    if (s->stack_asked) {
      s->stack = c->p;
      if (skip(c, s->stack_asked) || get64(c, &s->stack_size) || s->stack_size > s->stack_asked)
        return -1;
    }
  }
  return 0;
}

int gorc_perf_decode_sample(const struct gorc_perf_layout *l, const uint8_t *rec, size_t len,
                            struct gorc_perf_sample *s)
{
  struct cursor c = { rec + sizeof(struct perf_event_header), rec + len };
  memset(s, 0, sizeof *s);
  if (len < sizeof(struct perf_event_header))
    return -1;
  if (get_fixed(l, &c, s) || get_callchain(l, &c, s) || get_raw(l, &c) || get_user(l, &c, s))
    return -1;
  return 0;
}

uint64_t gorc_perf_sample_time(const struct gorc_perf_layout *l, const uint8_t *rec, size_t len)
{
  uint64_t t = l->sample_type, time = 0;
  if (!(t & PERF_SAMPLE_TIME))
    return 0;
  /* IDENTIFIER, IP and TID come before TIME, a u64 each */
  size_t at = sizeof(struct perf_event_header) +
              8 * (size_t)popcount(t & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID));
  if (len >= at + 8)
    memcpy(&time, rec + at, 8);
  return time;
}

size_t gorc_perf_id_size(const struct gorc_perf_layout *l)
{
  if (!l->sample_id_all)
    return 0;
  return 8 * (size_t)popcount(l->sample_type & GORC_PERF_ID_BITS);
}

int gorc_perf_decode_id(const struct gorc_perf_layout *l, const uint8_t *rec, size_t len,
                        struct gorc_perf_id *id)
{
  size_t n = gorc_perf_id_size(l);
  uint64_t v = 0;
  memset(id, 0, sizeof *id);
  if (n == 0)
    return 0;
  if (len < sizeof(struct perf_event_header) + n)
    return -1;
  struct cursor c = { rec + len - n, rec + len };
  if (l->sample_type & PERF_SAMPLE_TID) {
    get64(&c, &v);
    id->pid = (uint32_t)v;
    id->tid = (uint32_t)(v >> 32);
  }
  if (l->sample_type & PERF_SAMPLE_TIME)
    get64(&c, &id->time);
  return 0;
}
