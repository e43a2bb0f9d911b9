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

/* The events: every one must lay out its samples alike.  */
static int read_attrs(struct perf_file *f)
{
  uint64_t esize = f->h.attr_size;
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
    if (!gorc_perf_layout_usable(&l, &why))
      return fail(f, "event %llu: %s", (unsigned long long)(at / esize), why);
    if (at > 0 && (l.sample_type != f->layout.sample_type || l.regs_mask != f->layout.regs_mask
                   || l.sample_id_all != f->layout.sample_id_all))
      return fail(f, "events with different sample layouts: record one event (-e cpu-clock)");
    f->layout = l;
  }
  if (!(f->layout.sample_type & PERF_SAMPLE_TID))
    return fail(f, "samples without thread ids (PERF_SAMPLE_TID): cannot map addresses");
  return 0;
}

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

/* Every record of the data section, checked, in time order.  */
static int collect_records(const struct perf_file *f, struct rec_ref **out, size_t *nout)
{
  struct rec_ref *v = NULL;
  size_t n = 0, cap = 0;
  uint64_t end = f->h.data.offset + f->h.data.size;
  for (uint64_t at = f->h.data.offset; at < end;) {
    struct perf_event_header h;
    if (end - at < sizeof h) {
      free(v);
      return fail(f, "truncated record header at offset %llu", (unsigned long long)at);
    }
    memcpy(&h, f->map + at, sizeof h);
    if (h.size < sizeof h || h.size > end - at) {
      free(v);
      return fail(f, "truncated or corrupt record at offset %llu (type %u, %u bytes)",
                  (unsigned long long)at, h.type, h.size);
    }
    if (h.type == GORC_PERF_RECORD_COMPRESSED) {
      free(v);
      return fail(f, "compressed records (perf record -z): record without -z");
    }
    if (h.type < GORC_PERF_USER_TYPE_START) {
      if (n == cap) {
        cap = cap ? cap * 2 : 4096;
        v = prof_xrealloc(v, cap * sizeof *v);
      }
      v[n++] = (struct rec_ref){ ref_time(f, f->map + at, h.size), at, h.size };
    }
    at += h.size;
  }
  qsort(v, n, sizeof *v, ref_cmp);
  *out = v;
  *nout = n;
  return 0;
}

static int read_mapped(struct perf_file *f, struct prof_data *d)
{
  struct rec_ref *refs = NULL;
  size_t n = 0;
  int rc;
  if ((rc = read_header(f)) || (rc = check_arch(f)) || (rc = read_attrs(f))
      || (rc = read_build_ids(f)) || (rc = collect_records(f, &refs, &n)))
    return rc;
  for (size_t i = 0; i < n; i++)
    prof_feed_record(d, &f->layout, f->map + refs[i].offset, refs[i].len);
  free(refs);
  return 0;
}

int prof_perfdata_read(const char *path, struct prof_data *d)
{
  struct perf_file f = { .path = path };
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
  /* every page is read: fault them in at once */
  void *m = gorc_map_file(fd, f.size, 0, MAP_POPULATE, path);
  close(fd);
  if (m == MAP_FAILED) {
    fprintf(stderr, "gorc-prof: %s: cannot map: %s\n", path, strerror(errno));
    return 2;
  }
  f.map = m;
  int rc = read_mapped(&f, d);
  gorc_unmap_file(m, f.size);
  return rc;
}
