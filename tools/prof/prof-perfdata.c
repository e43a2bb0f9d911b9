/* gorc-prof: reading perf.data (see prof-perfdata.h).

   The layout (tools/perf/util/header.h in Linux): a header (magic
   "PERFILE2", the attribute and data sections, a bitmap of the feature
   sections that follow the data), the events' perf_event_attr each
   followed by the file section of its ids, and the records of every
   ring buffer, in rounds.  Records are fed in time order, as when
   recording (prof-record.c).  */

#define _GNU_SOURCE
#include "prof-perfdata.h"
#include "mapped.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof-perf.h"
#include "prof-record.h"
#include "prof-unwind.h"

struct perf_file {
  const char *path;
  int fd;
  const uint8_t *map;
  size_t size;
  struct gorc_perf_file_header h;
  struct gorc_perf_layout layout;
};

__attribute__((format(printf, 2, 3)))
static int fail(const struct perf_file *f, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "gorc-prof: %s: ", f->path);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  return 2;
}

static int section_ok(const struct perf_file *f, const struct gorc_perf_file_section *s)
{
  return s->offset <= f->size && s->size <= f->size - s->offset;
}

static int read_header(struct perf_file *f)
{
  if (f->size < 16 || memcmp(f->map, GORC_PERF_FILE_MAGIC, 8) != 0) {
    if (f->size >= 8 && memcmp(f->map, "2ELIFREP", 8) == 0)
      return fail(f, "a big-endian perf.data (from another architecture): not supported");
    return fail(f, "not a perf.data file (no PERFILE2 magic)");
  }
  memcpy(&f->h, f->map, 16);
  if (f->h.size == 16)
    return fail(f, "a perf.data written to a pipe (perf record -o -): record to a file");
  if (f->h.size < sizeof f->h || f->size < sizeof f->h)
    return fail(f, "truncated: the file ends inside its %zu-byte header", sizeof f->h);
  memcpy(&f->h, f->map, sizeof f->h);
  if (!section_ok(f, &f->h.attrs))
    return fail(f, "truncated: the event attributes at offset %llu (%llu bytes) are past the "
                "end of the file (%zu bytes)", (unsigned long long)f->h.attrs.offset,
                (unsigned long long)f->h.attrs.size, f->size);
  if (!section_ok(f, &f->h.data))
    return fail(f, "truncated: the data section ends at offset %llu but the file has %zu bytes",
                (unsigned long long)(f->h.data.offset + f->h.data.size), f->size);
  return 0;
}

/* The feature section of BIT, if the file has it: 1, 0, or 2 after a
   message.  */
static int feature(const struct perf_file *f, unsigned bit, struct gorc_perf_file_section *s)
{
  if (!(f->h.features[bit / 64] & (1ULL << (bit % 64))))
    return 0;
  uint64_t at = f->h.data.offset + f->h.data.size;
  for (unsigned b = 0; b < bit; b++)
    if (f->h.features[b / 64] & (1ULL << (b % 64)))
      at += sizeof(struct gorc_perf_file_section);
  if (at > f->size || f->size - at < sizeof *s)
    return fail(f, "truncated: its feature sections are past the end of the file");
  memcpy(s, f->map + at, sizeof *s);
  if (!section_ok(f, s))
    return fail(f, "truncated: its feature %u is past the end of the file", bit);
  return 1;
}

/* The architecture the file was recorded on (its HEADER_ARCH feature),
   checked against x86-64.  */
static int check_arch(const struct perf_file *f)
{
  struct gorc_perf_file_section s;
  uint32_t len;
  int rc = feature(f, GORC_PERF_FEAT_ARCH, &s);
  if (rc != 1)
    return rc;
  if (s.size < 4)
    return fail(f, "corrupt architecture feature at offset %llu", (unsigned long long)s.offset);
  memcpy(&len, f->map + s.offset, 4);
  if (len > s.size - 4)
    return fail(f, "corrupt architecture feature at offset %llu", (unsigned long long)s.offset);
  const char *arch = (const char *)f->map + s.offset + 4;
  size_t n = strnlen(arch, len);
  if (n != 6 || memcmp(arch, "x86_64", 6) != 0)
    return fail(f, "recorded on %.*s: gorc-prof reads x86-64 profiles only", (int)n, arch);
  return 0;
}

/* The build IDs of the files profiled (HEADER_BUILD_ID: a build_id_event
   each, header, pid, 24 bytes of ID, the file name): a file on disk
   that is another build is then not used.  */
static int read_build_ids(const struct perf_file *f)
{
  struct gorc_perf_file_section s;
  int rc = feature(f, GORC_PERF_FEAT_BUILD_ID, &s);
  if (rc != 1)
    return rc;
  const size_t fixed = sizeof(struct perf_event_header) + 4 + 24;
  for (uint64_t at = s.offset; at < s.offset + s.size;) {
    struct perf_event_header h;
    uint64_t left = s.offset + s.size - at;
    if (left < sizeof h)
      break;
    memcpy(&h, f->map + at, sizeof h);
    if (h.size < fixed || h.size > left)
      return fail(f, "corrupt build ID record at offset %llu", (unsigned long long)at);
    const uint8_t *id = f->map + at + sizeof h + 4;
    size_t len = (h.misc & GORC_PERF_MISC_BUILD_ID_SIZE) && id[20] <= 20 ? id[20] : 20;
    const char *name = (const char *)f->map + at + fixed;
    size_t n = strnlen(name, h.size - fixed);
    if (n > 0 && n < h.size - fixed && name[0] == '/')
      prof_modules_expect_build_id(name, id, len);
    at += h.size;
  }
  return 0;
}

/* A "dummy" event: no samples, only the records of mappings, commands
   and tasks (perf 6.6 and later add one, dummy:u, to perf record -a).  */
static int is_dummy(const struct perf_event_attr *a)
{
  return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

/* Do the non-sample records of events of layouts A and B carry the
   same trailer?  */
static int same_id_trailer(const struct gorc_perf_layout *a, const struct gorc_perf_layout *b)
{
  return a->sample_id_all == b->sample_id_all
         && (a->sample_type & GORC_PERF_ID_BITS) == (b->sample_type & GORC_PERF_ID_BITS);
}

/* The events: every one that samples must lay out its samples alike;
   the records of every one, dummy events included, must carry the same
   trailer, so that one layout reads them all.  */
static int read_attrs(struct perf_file *f)
{
  uint64_t esize = f->h.attr_size;
  struct gorc_perf_layout dummy = { 0 };
  int sampling = 0, dummies = 0;
  if (esize < PERF_ATTR_SIZE_VER0 + sizeof(struct gorc_perf_file_section) || f->h.attrs.size % esize
      || f->h.attrs.size == 0)
    return fail(f, "corrupt event attributes (%llu bytes of %llu-byte entries)",
                (unsigned long long)f->h.attrs.size, (unsigned long long)esize);
  for (uint64_t at = 0; at < f->h.attrs.size; at += esize) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    size_t n = esize - sizeof(struct gorc_perf_file_section);
    memcpy(&a, f->map + f->h.attrs.offset + at, n < sizeof a ? n : sizeof a);
    struct gorc_perf_layout l = { a.sample_type, a.sample_regs_user, a.sample_id_all };
    const char *why;
    if (is_dummy(&a)) {
      if (dummies++ > 0 && !same_id_trailer(&l, &dummy))
        return fail(f, "dummy events whose records carry different ids");
      dummy = l;
      continue;
    }
    if (!gorc_perf_layout_usable(&l, &why))
      return fail(f, "event %llu: %s", (unsigned long long)(at / esize), why);
    if (sampling > 0 && (l.sample_type != f->layout.sample_type || l.regs_mask != f->layout.regs_mask
                         || l.sample_id_all != f->layout.sample_id_all))
      return fail(f, "events with different sample layouts: record one event (-e cpu-clock)");
    f->layout = l;
    sampling++;
  }
  if (sampling == 0)
    return fail(f, "no event that samples (only dummy events)");
  if (dummies > 0 && !same_id_trailer(&dummy, &f->layout))
    return fail(f, "a dummy event whose records carry other ids than the samples' event's: "
                "record one event (-e cpu-clock)");
  if (!(f->layout.sample_type & PERF_SAMPLE_TID))
    return fail(f, "samples without thread ids (PERF_SAMPLE_TID): cannot map addresses");
  return 0;
}

/* The data section, most of the file, is read with pread into one
   buffer that is reused, not through the mapping: every byte of it is
   looked at once, and the first touch of each page of a fresh mapping
   costs more than the kernel's copy into pages touched already (about
   1 µs a page where page tables are shadowed, as on the VM of this
   project's figures: 16 ms for a 56 MB perf.data, against 7 ms to read
   it).  The header, the event attributes and the feature sections are
   read through the mapping.

   Records are fed in time order (then file order), as when recording
   (prof-record.c); those prof_feed_record would only count (mappings
   of data: most of the mmap records) are counted as read, not queued.
   perf record writes its ring buffers in rounds, each ended by a
   PERF_RECORD_FINISHED_ROUND, and a record is never older
   than the newest of the round before the last (perf's own reader
   relies on that): at the end of a round, the records queued up to the
   newest time of the round before are sorted and fed, and only about two
   rounds are held.  A file where a record is older than one fed already
   is read again with every record held and sorted at once.  */

#define DATA_CHUNK (256 * 1024)       /* bytes per read: stays in the caches */
#define DATA_BUFFER GORC_HUGE_PAGE    /* the buffer's first size: several rounds */

struct rec_ref {
  uint64_t time, offset;
  uint32_t len;
};

static int ref_cmp(const void *a, const void *b)
{
  const struct rec_ref *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static uint64_t ref_time(const struct perf_file *f, const uint8_t *rec, size_t len)
{
  const struct perf_event_header *h = (const void *)rec;
  if (h->type == PERF_RECORD_SAMPLE)
    return gorc_perf_sample_time(&f->layout, rec, len);
  struct gorc_perf_id id;
  return gorc_perf_decode_id(&f->layout, rec, len, &id) == 0 ? id.time : 0;
}

/* The records read and not fed yet, and the file bytes that hold them.  */
struct data_reader {
  uint8_t *buf;               /* the file's bytes [base, base + len) */
  size_t cap, len;
  uint64_t base;
  struct rec_ref *queue;      /* records not fed yet */
  size_t nqueue, capqueue;
  uint64_t fed_time;          /* the time of the last record fed */
};

/* Room for a read at the buffer's end: the bytes before AT that no
   queued record needs are dropped, the buffer grows when that is not
   enough.  */
static void data_room(struct data_reader *r, uint64_t at)
{
  uint64_t keep = at;
  for (size_t i = 0; i < r->nqueue; i++)
    if (r->queue[i].offset < keep)
      keep = r->queue[i].offset;
  if (keep > r->base) {
    memmove(r->buf, r->buf + (keep - r->base), r->base + r->len - keep);
    r->len -= keep - r->base;
    r->base = keep;
  }
  if (r->cap - r->len < DATA_CHUNK)
    r->buf = prof_xgrow(r->buf, &r->cap, r->len + DATA_CHUNK, 1, DATA_BUFFER, 0);
}

/* The file's bytes [AT, AT + N), inside the data section and starting
   at or before the end of what was read; NULL after a message.  */
static const uint8_t *data_bytes(const struct perf_file *f, struct data_reader *r, uint64_t at,
                                 size_t n)
{
  uint64_t end = f->h.data.offset + f->h.data.size;
  while (at + n > r->base + r->len) {
    if (r->cap - r->len < DATA_CHUNK)
      data_room(r, at);
    uint64_t from = r->base + r->len, want = end - from < DATA_CHUNK ? end - from : DATA_CHUNK;
    ssize_t got = pread(f->fd, r->buf + r->len, want, (off_t)from);
    if (got <= 0) {
      fail(f, "%s at offset %llu", got < 0 ? strerror(errno)
           : "the file shrank while it was being read (changed on disk?)",
           (unsigned long long)from);
      return NULL;
    }
    r->len += (size_t)got;
  }
  return r->buf + (at - r->base);
}

/* The queued records up to time LIMIT fed, in order.  */
static void feed_queued(const struct perf_file *f, struct data_reader *r, struct prof_data *d,
                        uint64_t limit)
{
  size_t k;
  prof_sort(r->queue, r->nqueue, sizeof *r->queue, ref_cmp);
  for (k = 0; k < r->nqueue && r->queue[k].time <= limit; k++) {
    const struct rec_ref *q = &r->queue[k];
    prof_feed_record(d, &f->layout, r->buf + (q->offset - r->base), q->len, q->time);
    r->fed_time = q->time;
  }
  if (k == 0)
    return;           /* (the queue may be NULL: no offset of it taken) */
  memmove(r->queue, r->queue + k, (r->nqueue - k) * sizeof *r->queue);
  r->nqueue -= k;
}

static void queue_push(struct data_reader *r, struct rec_ref ref)
{
  r->queue = prof_xgrow(r->queue, &r->capqueue, r->nqueue + 1, sizeof *r->queue, 1024, SIZE_MAX);
  r->queue[r->nqueue++] = ref;
}

/* The record at AT, checked, in *P and *H; 0 or 2 after a message.  */
static int data_record(const struct perf_file *f, struct data_reader *r, uint64_t at,
                       const uint8_t **p, struct perf_event_header *h)
{
  uint64_t end = f->h.data.offset + f->h.data.size;
  if (end - at < sizeof *h)
    return fail(f, "truncated record header at offset %llu", (unsigned long long)at);
  if (!(*p = data_bytes(f, r, at, sizeof *h)))
    return 2;
  memcpy(h, *p, sizeof *h);
  if (h->size < sizeof *h || h->size > end - at)
    return fail(f, "truncated or corrupt record at offset %llu (type %u, %u bytes)",
                (unsigned long long)at, h->type, h->size);
  /* perf writes every record in whole 8-byte words, as the kernel makes
     them; the decoders read the records in place, aligned so.  */
  if (h->size % 8 != 0)
    return fail(f, "corrupt record at offset %llu (type %u, %u bytes: not a multiple of 8)",
                (unsigned long long)at, h->type, h->size);
  if (h->type == GORC_PERF_RECORD_COMPRESSED)
    return fail(f, "compressed records (perf record -z): record without -z");
  return (*p = data_bytes(f, r, at, h->size)) ? 0 : 2;
}

/* Every record of the data section, checked, fed in time order: by
   rounds when ROUNDS, else all at the end.  0, 2 after a message, or 1
   when a record is older than one fed already.  */
static int read_data(const struct perf_file *f, struct prof_data *d, int rounds)
{
  struct data_reader r = { .base = f->h.data.offset };
  uint64_t newest = 0, round_newest = 0;
  int rc = 0;
  for (uint64_t at = f->h.data.offset; rc == 0 && at < f->h.data.offset + f->h.data.size;) {
    const uint8_t *p = NULL;
    struct perf_event_header h;
    if ((rc = data_record(f, &r, at, &p, &h)) != 0)
      break;
    if (h.type == GORC_PERF_RECORD_FINISHED_ROUND && rounds) {
      feed_queued(f, &r, d, round_newest);
      round_newest = newest;
    } else if (h.type < GORC_PERF_USER_TYPE_START && !prof_feed_uses(p, h.size)) {
      d->record_bytes += h.size;    /* counted, not ordered: a data mapping */
    } else if (h.type < GORC_PERF_USER_TYPE_START) {
      struct rec_ref ref = { ref_time(f, p, h.size), at, h.size };
      if (ref.time < r.fed_time)
        rc = 1;
      queue_push(&r, ref);
      newest = ref.time > newest ? ref.time : newest;
    }
    at += h.size;
  }
  if (rc == 0)
    feed_queued(f, &r, d, UINT64_MAX);
  free(r.buf);
  free(r.queue);
  return rc;
}

static int read_file(struct perf_file *f, struct prof_data *d)
{
  int rc;
  if ((rc = read_header(f)) || (rc = check_arch(f)) || (rc = read_attrs(f))
      || (rc = read_build_ids(f)))
    return rc;
  rc = read_data(f, d, 1);
  if (rc == 1) {
    prof_data_free(d);
    rc = read_data(f, d, 0);
  }
  if (rc != 0)
    prof_data_free(d);
  return rc;
}

int prof_perfdata_read(const char *path, struct prof_data *d)
{
  struct perf_file f = { .path = path };
  d->ends_by_threads = 1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    fprintf(stderr, "gorc-prof: %s: %s\n", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return 2;
  }
  f.size = (size_t)st.st_size;
  if (f.size == 0) {
    close(fd);
    return fail(&f, "empty file, not a perf.data file");
  }
  void *m = gorc_map_file(fd, f.size, 0, 0, path);
  if (m == MAP_FAILED) {
    fprintf(stderr, "gorc-prof: %s: cannot map: %s\n", path, strerror(errno));
    close(fd);
    return 2;
  }
  f.map = m;
  f.fd = fd;
  int rc = read_file(&f, d);
  gorc_unmap_file(m, f.size);
  close(fd);
  return rc;
}
