/* gorc-prof: pprof output (see prof-pprof.h).  */

#define _GNU_SOURCE
#include "prof-pprof.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "prof-kernel.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;

/* The frame names met, each with its string index; id = position + 1.  */
struct names {
  char **v;                  /* by id - 1 */
  size_t n, cap;
  size_t *slots;             /* open addressing: id, 0 empty */
  size_t nslots;
};

static uint64_t name_id(struct names *t, const char *name, size_t len)
{
  if (t->n * 2 >= t->nslots) {
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    size_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
      abort();
    for (size_t i = 0; i < t->n; i++) {
      size_t j = prof_hash(t->v[i]) & (ns - 1);
      while (slots[j])
        j = (j + 1) & (ns - 1);
      slots[j] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
  }
  char *key = strndup(name, len);
  if (!key)
    abort();
  size_t j = prof_hash(key) & (t->nslots - 1);
  while (t->slots[j] && strcmp(t->v[t->slots[j] - 1], key) != 0)
    j = (j + 1) & (t->nslots - 1);
  if (t->slots[j]) {
    free(key);
    return t->slots[j];
  }
  t->v = prof_xgrow(t->v, &t->cap, t->n + 1, sizeof *t->v, 256, SIZE_MAX);
  t->v[t->n++] = key;
  t->slots[j] = t->n;
  return t->n;
}

/* Fixed strings first: string_table[0] must be "".  Then the frame
   names (a function and a location each), then the commands.  */
enum { STR_EMPTY, STR_SAMPLES, STR_COUNT, STR_CPU, STR_NANOSECONDS, STR_PID, STR_THREAD,
       STR_COMM, STR_KERNEL, STR_FIXED };
static const char *const fixed_strings[STR_FIXED] = { "", "samples", "count", "cpu",
                                                       "nanoseconds", "pid", "thread", "comm",
                                                       "[kernel.kallsyms]" };
/* Mapping 1 is the profile's (pprof shows the first one's name as the
   profile's "File"), of every user frame; mapping 2 the kernel's.  */
#define USER_MAPPING_ID 1
#define KERNEL_MAPPING_ID 2

enum { LABEL_PID, LABEL_THREAD, LABEL_COMM, NLABELS };

/* The labels of a sample: pid and thread (numbers), comm (a string:
   COMM_ID, its id in the commands).  */
static void fill_labels(Sample *s, const struct prof_folded *f, uint64_t comm_id)
{
  s->n_label = NLABELS;
  s->label = prof_xmalloc(NLABELS * sizeof *s->label);
  for (int i = 0; i < NLABELS; i++) {
    s->label[i] = prof_xmalloc(sizeof **s->label);
    perftools__profiles__label__init(s->label[i]);
  }
  s->label[LABEL_PID]->key = STR_PID;
  s->label[LABEL_PID]->num = f->pid;
  s->label[LABEL_THREAD]->key = STR_THREAD;
  s->label[LABEL_THREAD]->num = f->tid;
  s->label[LABEL_COMM]->key = STR_COMM;
  s->label[LABEL_COMM]->str = (int64_t)comm_id;   /* made a string index by fill_functions */
}

/* A sample per folded stack and thread, its locations leaf first.  */
static void fill_samples(Profile *p, struct names *names, struct names *comms,
                         const struct prof_folded *list, size_t n, uint64_t period_ns)
{
  p->n_sample = n;
  p->sample = prof_xmalloc((n ? n : 1) * sizeof *p->sample);
  for (size_t i = 0; i < n; i++) {
    Sample *s = prof_xmalloc(sizeof *s);
    perftools__profiles__sample__init(s);
    size_t frames = 1;
    for (const char *c = list[i].stack; *c; c++)
      frames += *c == ';';
    s->location_id = prof_xmalloc(frames * sizeof *s->location_id);
    s->n_location_id = frames;
    const char *start = list[i].stack;
    for (size_t f = frames; f-- > 0;) {
      const char *end = strchr(start, ';');
      size_t len = end ? (size_t)(end - start) : strlen(start);
      s->location_id[f] = name_id(names, start, len);
      start += len + (end ? 1 : 0);
    }
    s->n_value = 2;
    s->value = prof_xmalloc(2 * sizeof *s->value);
    s->value[0] = (int64_t)list[i].count;
    s->value[1] = (int64_t)(list[i].count * period_ns);
    const char *comm = list[i].comm && list[i].comm[0] ? list[i].comm : "[unknown]";
    fill_labels(s, &list[i], name_id(comms, comm, strlen(comm)));
    p->sample[i] = s;
  }
}

/* The mappings: USER, named by the string MAIN_STR, and KERNEL.  */
static void fill_mappings(Profile *p, Mapping *user, int64_t main_str, Mapping *kernel)
{
  perftools__profiles__mapping__init(user);
  user->id = USER_MAPPING_ID;
  user->filename = main_str;
  user->has_functions = 1;
  perftools__profiles__mapping__init(kernel);
  kernel->id = KERNEL_MAPPING_ID;
  kernel->filename = STR_KERNEL;
  kernel->has_functions = 1;
  p->n_mapping = 2;
  p->mapping = prof_xmalloc(2 * sizeof *p->mapping);
  p->mapping[0] = user;
  p->mapping[1] = kernel;
}

/* One function and one location per name (their ids are the name's); a
   kernel frame's in the kernel's mapping, named without
   PROF_KERNEL_SUFFIX.  The strings: the fixed ones, the names, the
   commands (the samples' comm labels made string indexes).  */
static void fill_functions(Profile *p, const struct names *names, const struct names *comms)
{
  p->n_string_table = STR_FIXED + names->n + comms->n;
  p->string_table = prof_xmalloc(p->n_string_table * sizeof *p->string_table);
  for (size_t i = 0; i < STR_FIXED; i++)
    p->string_table[i] = (char *)fixed_strings[i];
  for (size_t i = 0; i < comms->n; i++)
    p->string_table[STR_FIXED + names->n + i] = comms->v[i];
  for (size_t i = 0; i < p->n_sample; i++)
    p->sample[i]->label[LABEL_COMM]->str += (int64_t)(STR_FIXED + names->n) - 1;
  p->n_function = p->n_location = names->n;
  p->function = prof_xmalloc((names->n ? names->n : 1) * sizeof *p->function);
  p->location = prof_xmalloc((names->n ? names->n : 1) * sizeof *p->location);
  for (size_t i = 0; i < names->n; i++) {
    size_t len = strlen(names->v[i]);
    int kernel = prof_kernel_frame(names->v[i], len);
    if (kernel)
      names->v[i][len - (sizeof PROF_KERNEL_SUFFIX - 1)] = 0;
    p->string_table[STR_FIXED + i] = names->v[i];
    Function *fn = prof_xmalloc(sizeof *fn);
    perftools__profiles__function__init(fn);
    fn->id = i + 1;
    fn->name = fn->system_name = (int64_t)(STR_FIXED + i);
    p->function[i] = fn;
    Location *loc = prof_xmalloc(sizeof *loc);
    perftools__profiles__location__init(loc);
    loc->id = i + 1;
    loc->mapping_id = kernel ? KERNEL_MAPPING_ID : USER_MAPPING_ID;
    loc->n_line = 1;
    loc->line = prof_xmalloc(sizeof *loc->line);
    loc->line[0] = prof_xmalloc(sizeof **loc->line);
    perftools__profiles__line__init(loc->line[0]);
    loc->line[0]->function_id = i + 1;
    p->location[i] = loc;
  }
}

static void names_free(struct names *names)
{
  for (size_t i = 0; i < names->n; i++)
    free(names->v[i]);
  free(names->v);
  free(names->slots);
}

static void profile_free(Profile *p, struct names *names, struct names *comms)
{
  for (size_t i = 0; i < p->n_sample; i++) {
    for (size_t k = 0; k < p->sample[i]->n_label; k++)
      free(p->sample[i]->label[k]);
    free(p->sample[i]->label);
    free(p->sample[i]->location_id);
    free(p->sample[i]->value);
    free(p->sample[i]);
  }
  for (size_t i = 0; i < p->n_location; i++) {
    free(p->location[i]->line[0]);
    free(p->location[i]->line);
    free(p->location[i]);
    free(p->function[i]);
  }
  free(p->sample);
  free(p->location);
  free(p->function);
  free(p->string_table);
  free(p->mapping);
  names_free(names);
  names_free(comms);
}

/* The gzip stream of the LEN bytes at BUF, in *OUT (*OUTLEN bytes), or
   -1.  Deflated at zlib's default level in one call, with a window and a
   hash table no larger than LEN needs: the defaults (gzopen's: 256 KB,
   the 64 KB hash table cleared first) were 29 page faults for a 5 KB
   profile, and a window larger than the input finds no other matches.  */
static int gzip_buffer(const uint8_t *buf, size_t len, uint8_t **out, size_t *outlen)
{
  int window_bits = 9;                     /* zlib's smallest for deflate */
  while (window_bits < MAX_WBITS && ((size_t)1 << window_bits) < len)
    window_bits++;
  int mem_level = window_bits - 7;         /* 8 (zlib's default) with a full window */
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits + 16, mem_level,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return -1;
  size_t cap = deflateBound(&z, (uLong)len);
  *out = prof_xmalloc(cap);
  z.next_in = (Bytef *)buf;
  z.avail_in = (uInt)len;
  z.next_out = *out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  *outlen = cap - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(*out);
    return -1;
  }
  return 0;
}

/* BUF gzipped into PATH (through PATH.tmp).  */
static int write_gzip(const char *path, const uint8_t *buf, size_t len)
{
  char tmp[4096];
  uint8_t *gz;
  size_t gzlen;
  if (len > UINT32_MAX || gzip_buffer(buf, len, &gz, &gzlen) != 0) {
    fprintf(stderr, "gorc-prof: cannot compress %s\n", path);
    return -1;
  }
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "gorc-prof: cannot write %s: %s\n", tmp, strerror(errno));
    free(gz);
    return -1;
  }
  int ok = fwrite(gz, 1, gzlen, f) == gzlen;
  free(gz);
  /* the old file unlinked, not renamed over: see prof_create */
  if (fclose(f) != 0 || !ok || (unlink(path) != 0 && errno != ENOENT)
      || rename(tmp, path) != 0) {
    fprintf(stderr, "gorc-prof: cannot write %s\n", path);
    unlink(tmp);
    return -1;
  }
  return 0;
}

int prof_pprof_write(const char *path, const char *main, const struct prof_folded *list,
                     size_t n, uint64_t period_ns, double start, double duration)
{
  Profile p;
  Mapping user, kernel;
  ValueType types[2], period_type;
  ValueType *type_ptrs[2] = { &types[0], &types[1] };
  struct names names = { 0 }, comms = { 0 };
  perftools__profiles__profile__init(&p);
  for (int i = 0; i < 2; i++)
    perftools__profiles__value_type__init(&types[i]);
  perftools__profiles__value_type__init(&period_type);
  types[0].type = STR_SAMPLES;
  types[0].unit = STR_COUNT;
  types[1].type = STR_CPU;
  types[1].unit = STR_NANOSECONDS;
  period_type = types[1];
  p.n_sample_type = 2;
  p.sample_type = type_ptrs;
  p.period_type = &period_type;
  p.period = (int64_t)period_ns;
  p.time_nanos = (int64_t)(start * 1e9);
  p.duration_nanos = (int64_t)(duration * 1e9);
  fill_samples(&p, &names, &comms, list, n, period_ns);
  /* MAIN is a string as the commands are: after the frame names */
  int64_t main_str = (int64_t)(STR_FIXED + names.n + name_id(&comms, main, strlen(main)) - 1);
  fill_functions(&p, &names, &comms);
  fill_mappings(&p, &user, main_str, &kernel);
  size_t len = perftools__profiles__profile__get_packed_size(&p);
  uint8_t *buf = prof_xmalloc(len);
  perftools__profiles__profile__pack(&p, buf);
  p.sample_type = NULL;
  p.period_type = NULL;
  int rc = write_gzip(path, buf, len);
  free(buf);
  profile_free(&p, &names, &comms);
  return rc;
}
