/* gorc-prof --unwind=bpf: the loader of the BPF walker (prof-bpf.bpf.c,
   embedded through its bpftool skeleton), its tables and its ring
   buffer.  See prof-bpf.h for the maps.

   A module's table is built once, at its first mapping in any process,
   from prof-unwind.c's view of the file (records, else .eh_frame, and
   the signal trampolines): rows of (file address, state id), a row only
   where the state changes, in an array map of its own sized to them,
   put into the "tables" array of maps.  States are shared by every
   table ("states").  */

#define _GNU_SOURCE
#include "prof-bpf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gorc/prof.h"

#ifdef GORC_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

#include "prof-bpf.skel.h"
#include "prof-btf.h"
#include "prof-cache.h"
#include "prof-keep.h"
#include "prof-publish.h"

_Static_assert(PROF_BPF_MAX_FRAMES == GORC_PROF_MAX_DEPTH, "one depth limit for both modes");
_Static_assert(sizeof(struct prof_bpf_sample) == 16, "a sample's header is 16 bytes (docs/PROFILER.md)");

/* A module's table, by the module cache's module (one per file).  */
struct table {
  const struct prof_module *mod;
  uint32_t id;                /* PROF_BPF_NO_MODULE: it could not be loaded */
  uint32_t nleaves;           /* 0: not in the walker's map of tables yet */
  int fresh;                  /* built since prof_bpf_refresh */
  /* built, and waiting for publish_tables, then for the publisher: */
  int fd;                     /* its array map; -1: none waiting */
  int queued;                 /* given to the publisher */
  uint32_t built_leaves, built_rows;
  uint64_t built_bytes;
  int from_cache;             /* its rows read from the table cache */
};

/* A row being built, in order of address, then of arrival.  */
struct build_row {
  uint64_t pc;
  uint32_t state;
  uint32_t seq;
};

/* Distinct states, numbered from 0 as met: the states map's (every
   table's, the run's ids), or one table's own (the ids its rows hold).  */
struct state_set {
  struct gorc_state *v;
  size_t n, cap;
  size_t limit;               /* ids below it; a state past them gets PROF_BPF_STATE_NONE */
  uint32_t *hash;             /* open addressing: id + 1, 0 empty */
  size_t hash_cap;
};

struct prof_bpf {
  struct prof_walker *skel;
  int sample_fd;                 /* prof_sample: the skeleton's, or the kept one's */
  struct prof_walker *rewalker;  /* prof_rewalk loaded later, or NULL (see load_rewalker) */
  int kept_rewalk_fd;            /* ... or the kept one's; else -1 */
  int rewalker_refused;          /* ... and its load failed */
  struct prof_keep keep;         /* --keep-walker (prof-keep.h) */
  uint64_t run_ns0, runs0;       /* a kept prof_sample's run time before this run, else 0 */
  int btf_fd;                    /* the kernel types' minimal BTF (prof-btf.h), or -1 */
  char btf_path[PROF_BTF_PATH_MAX];
  struct ring_buffer *ring;
  struct prof_publisher *publisher;  /* puts tables into the map of tables */
  int stats_fd;               /* BPF_ENABLE_STATS: run time kept while open */
  struct table *tables;
  size_t ntables, cap_tables;
  struct index_entry *table_index;  /* modules' tables (index_slot) */
  size_t index_cap, index_used;
  uint32_t next_id;
  struct state_set states;    /* the states map's contents */
  size_t states_pushed;       /* states.v[0 .. states_pushed) are in the map */
  int many_states;            /* GORC_PROF_TEST_BPF=many-states */
  /* what the tables cost, by where their rows came from */
  uint64_t rows_records, bytes_records, own_records;
  uint64_t rows_eh, bytes_eh, own_eh;
  size_t modules_records, modules_eh, modules_failed;
  size_t modules_cached;      /* of those with a table, read from the cache */
  size_t prepared;            /* tables built before the program ran (prof_bpf_prepare) */
  int tables_grew;            /* tables built since prof_bpf_refresh (marked fresh) */
  prof_bpf_sample_fn *fn;     /* prof_bpf_drain's */
  void *fn_arg;
  int kernel_only;            /* GORC_PROF_TEST_BPF=kernel-only */
  int no_push;                /* GORC_PROF_TEST_BPF=no-push */
  int stale_exec;             /* GORC_PROF_TEST_BPF=stale-exec */
  int stale_mmap;             /* GORC_PROF_TEST_BPF=stale-mmap */
  pid_t *untold;              /* ... the processes that exec'd (mapped): told nothing more */
  size_t nuntold, cap_untold;
  struct remap *remaps;       /* prof_bpf_remapped's */
  size_t nremaps, cap_remaps;
  uint64_t rewalked, rewalk_failed;
  uint64_t held_not_code;     /* held samples whose pc lies in no mapping */
  uint64_t lost_told;         /* the samples dropped prof_bpf_lost_since said */
  unsigned exits;             /* processes forgotten since found_maps was swept */
};

/* ---- loading ---- */

/* libbpf's messages, kept for the reason of a refusal: its first line
   (which map or program failed, how), and the last line of a verifier
   log (what the verifier refused).  */
static char libbpf_first[256], verifier_last[256];
static int in_log;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
  char line[sizeof libbpf_first];
  if (level == LIBBPF_DEBUG)
    return 0;
  vsnprintf(line, sizeof line, fmt, ap);
  line[strcspn(line, "\n")] = 0;
  if (strstr(line, "-- BEGIN PROG LOAD LOG --"))
    in_log = 1;
  else if (strstr(line, "-- END PROG LOAD LOG --"))
    in_log = 0;
  else if (in_log && line[0] && strncmp(line, "processed ", 10) != 0)
    memcpy(verifier_last, line, sizeof line);
  else if (!in_log && line[0] && !libbpf_first[0])
    memcpy(libbpf_first, line, sizeof line);
  return 0;
}

/* WHY for a load that failed with ERR (a negative errno).  */
static void refusal(int err, char *why, size_t whylen)
{
  const char *what = err == -EPERM ? "not permitted: CAP_BPF and CAP_PERFMON (or root) are needed"
                     : err == -EACCES ? "the kernel's verifier refused the walker"
                     : "the kernel refused it";
  snprintf(why, whylen, "%s (%s%s%s%s%s)", what, strerror(-err), libbpf_first[0] ? "; " : "",
           libbpf_first, verifier_last[0] ? "; verifier: " : "", verifier_last);
}

/* GORC_PROF_TEST_BPF=no-map: the tables map asked with no entries,
   which the kernel refuses (a real refusal, as an old kernel's would
   be, for the fallback's tests).  =kernel-only: a copied stack whose
   walk again in the kernel fails is unwound in gorc-prof and marked "no
   table yet", so that a test knows every other stack was walked in the
   kernel, and sees what the marked ones ran through.  =small-ring: the
   walker's ring buffer one page, which a held recording overflows.
   =btf: the offsets of the kernel's fields read (prof_btf_minimal) said
   on stderr; =btf-read the same, the kernel's BTF read as where it
   cannot be mapped.  =many-states: each table built (none read from
   the table cache, none kept) numbers TEST_FILLER_STATES states no row
   names first, so that its rows' states have ids past what a dense
   leaf's row holds (8,190), as a module of that many states would.
   =two-tables: the map of tables holds two, so that the kernel refuses
   the rest of a round's tables (publish_tables: a partial update).
   =no-push: no process's mappings are told to the walker, and a
   copied stack is marked "no table yet" (unwound in gorc-prof), not
   walked again: every other stack was walked through the mappings the
   walker found in the kernel (kernel_map).  =no-push-unkept: the same,
   and the mappings found not kept for the next samples (found_maps): a
   sample finds one.  =stale-exec: a process that execs, its mappings told,
   is told nothing more, so that the walker holds its old image's
   mappings for the new image, as it does from an exec until gorc-prof
   reads its record.  =stale-mmap: the same for a process that maps a
   file over another's (prof_bpf_remapped).  1 for kernel-only.  */
static const char *test_hook(void)
{
  const char *t = getenv("GORC_PROF_TEST_BPF");
  return t ? t : "";
}

#define TEST_FILLER_STATES 8100
static void run_time(const struct prof_bpf *b, uint64_t *ns, uint64_t *runs);
static void clear_kept(struct prof_bpf *b, int rewalk_now);

static int test_hooks(struct prof_walker *skel)
{
  const char *t = test_hook();
  if (strcmp(t, "no-map") == 0)
    bpf_map__set_max_entries(skel->maps.tables, 0);
  if (strcmp(t, "small-ring") == 0)
    bpf_map__set_max_entries(skel->maps.samples, (uint32_t)sysconf(_SC_PAGESIZE));
  if (strcmp(t, "two-tables") == 0)
    bpf_map__set_max_entries(skel->maps.tables, 2);
  if (strcmp(t, "no-push-unkept") == 0)
    skel->rodata->keep_found_maps = 0;
  return strcmp(t, "kernel-only") == 0;
}

/* A new instance of the walker, its kernel types relocated against the
   BTF at BTF_PATH, else (NULL) the kernel's whole.  */
static struct prof_walker *open_walker(const char *btf_path)
{
  LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
  return prof_walker__open_opts(&opts);
}

/* Are the maps the kept program PROG_FD uses among SKEL's (which libbpf
   took from their pins)?  Not when a pin was removed and libbpf made a
   new map in its place: what gorc-prof wrote there the program would
   not see.  */
static int kept_maps_match(const struct prof_walker *skel, int prog_fd)
{
  uint32_t used[32], ours[32], nours = 0;
  struct bpf_prog_info info;
  uint32_t len = sizeof info;
  memset(&info, 0, sizeof info);
  info.nr_map_ids = sizeof used / sizeof *used;
  info.map_ids = (uint64_t)(uintptr_t)used;
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0 || info.nr_map_ids > 32)
    return 0;
  struct bpf_map *map;
  bpf_object__for_each_map(map, skel->obj) {
    struct bpf_map_info mi;
    uint32_t milen = sizeof mi;
    memset(&mi, 0, sizeof mi);
    if (nours < 32 && bpf_obj_get_info_by_fd(bpf_map__fd(map), &mi, &milen) == 0)
      ours[nours++] = mi.id;
  }
  for (uint32_t i = 0; i < info.nr_map_ids; i++) {
    uint32_t j = 0;
    while (j < nours && ours[j] != used[i])
      j++;
    if (j == nours)
      return 0;
  }
  return 1;
}

/* The walker as O asks, loaded; where K keeps one, its maps pinned (or
   the kept ones reused) and its programs pinned, or when K found them
   kept, not loaded again.  NULL with a reason in WHY.  */
static struct prof_walker *load_walker(const struct prof_bpf_opts *o, const char *btf_path,
                                       int vma, const struct prof_keep *k, int *kernel_only,
                                       int *sample_fd, char *why, size_t whylen)
{
  struct prof_walker *skel = open_walker(btf_path);
  if (!skel) {
    snprintf(why, whylen, "libbpf cannot open the walker (%s)", strerror(errno));
    return NULL;
  }
  skel->rodata->kernel_frames = o->kernel_frames;
  skel->rodata->vma_files = vma;
  if (o->ring_bytes)
    bpf_map__set_max_entries(skel->maps.samples, o->ring_bytes);
  *kernel_only = test_hooks(skel);
  skel->rodata->wake_bytes = bpf_map__max_entries(skel->maps.samples) / 4;
  /* the verifier's time for prof_rewalk is half the load's: spent now
     only where held samples are the rule (-a builds tables at a
     module's first sample), else at the first held sample */
  if (!o->rewalk_now || k->reused)
    bpf_program__set_autoload(skel->progs.prof_rewalk, false);
  if (k->reused)
    bpf_program__set_autoload(skel->progs.prof_sample, false);
  int err = k->dir_fd >= 0 && prof_keep_maps(k, skel->obj) != 0 ? -ENAMETOOLONG : 0;
  if (!err)
    err = prof_walker__load(skel);
  if (!err && k->dir_fd >= 0 && !k->reused
      && (prof_keep_pin(k, skel->progs.prof_sample, "prof_sample") != 0
          || (o->rewalk_now && prof_keep_pin(k, skel->progs.prof_rewalk, "prof_rewalk") != 0)))
    err = -errno;
  *sample_fd = k->reused ? prof_keep_prog(k, "prof_sample") : bpf_program__fd(skel->progs.prof_sample);
  if (!err && *sample_fd < 0)
    err = -errno;
  if (!err && k->reused && !kept_maps_match(skel, *sample_fd))
    err = -ESTALE;
  if (err) {
    if (k->reused && *sample_fd >= 0)
      close(*sample_fd);
    if (err == -ESTALE)
      snprintf(why, whylen, "a map of it is not pinned: its program uses another");
    else
      refusal(err, why, whylen);
    prof_walker__destroy(skel);
    return NULL;
  }
  return skel;
}

/* What names the walker O asks for among kept ones: what its load
   depends on (prof-keep.h).  */
static void keep_key(const struct prof_bpf_opts *o, char *key, size_t keylen)
{
  snprintf(key, keylen, "%s-k%d-r%u%s%s", prof_own_build_id_hex(), o->kernel_frames,
           o->ring_bytes, test_hook()[0] ? "-" : "", test_hook());
}

/* --keep-walker: the walker kept in O's directory, or a reason on
   stderr why this run's is not; 0 when kept.  */
static int keep_walker(const struct prof_bpf_opts *o, struct prof_keep *k)
{
  char key[256], why[512];
  memset(k, 0, sizeof *k);
  k->dir_fd = -1;
  if (!o->keep_dir)
    return -1;
  keep_key(o, key, sizeof key);
  if (!prof_own_build_id_hex()[0])
    snprintf(why, sizeof why, "gorc-prof has no build ID to name it by");
  else if (prof_keep_begin(k, o->keep_dir, key, why, sizeof why) == 0)
    return 0;
  fprintf(stderr, "gorc-prof: --keep-walker: %s; this run's walker is not kept\n", why);
  return -1;
}

struct prof_bpf *prof_bpf_open(const struct prof_bpf_opts *o, char *why, size_t whylen)
{
  libbpf_set_print(libbpf_print);
  libbpf_first[0] = verifier_last[0] = 0;
  char btf_path[PROF_BTF_PATH_MAX];
  int btf_test = strncmp(test_hook(), "btf", 3) == 0, kernel_only, vma;
  int btf_fd = prof_btf_minimal(btf_path, sizeof btf_path,
                                strcmp(test_hook(), "btf-read") == 0 ? PROF_BTF_READ : 0,
                                btf_test ? stderr : NULL, &vma);
  const char *btf = btf_fd >= 0 ? btf_path : NULL;
  struct prof_keep keep;
  int sample_fd;
  keep_walker(o, &keep);
  struct prof_walker *skel = load_walker(o, btf, vma, &keep, &kernel_only, &sample_fd, why, whylen);
  if (!skel && keep.dir_fd >= 0) {
    fprintf(stderr, "gorc-prof: --keep-walker: the kept walker cannot be %s (%s); this run's "
            "walker is not kept\n", keep.reused ? "reused" : "kept", why);
    prof_keep_drop(&keep);
    libbpf_first[0] = verifier_last[0] = 0;
    skel = load_walker(o, btf, vma, &keep, &kernel_only, &sample_fd, why, whylen);
  }
  if (!skel) {
    if (btf_fd >= 0)
      close(btf_fd);
    return NULL;
  }
  struct prof_bpf *b = prof_xmalloc(sizeof *b);
  memset(b, 0, sizeof *b);
  b->skel = skel;
  b->keep = keep;
  b->sample_fd = sample_fd;
  b->kept_rewalk_fd = -1;
  b->btf_fd = btf_fd;
  memcpy(b->btf_path, btf_path, sizeof btf_path);
  b->kernel_only = kernel_only;
  b->no_push = strncmp(test_hook(), "no-push", 7) == 0;
  b->stale_exec = strcmp(test_hook(), "stale-exec") == 0;
  b->stale_mmap = strcmp(test_hook(), "stale-mmap") == 0;
  b->many_states = strcmp(test_hook(), "many-states") == 0;
  b->states.limit = PROF_BPF_MAX_STATES;
  b->stats_fd = o->run_time_stats ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
  b->publisher = prof_publisher_new(bpf_map__fd(skel->maps.tables));
  if (!b->publisher) {
    snprintf(why, whylen, "cannot start its tables' publisher (%s)", strerror(errno));
    prof_bpf_close(b);
    return NULL;
  }
  if (keep.reused)
    clear_kept(b, o->rewalk_now);
  return b;
}

int prof_bpf_prog_fd(const struct prof_bpf *b)
{
  return b->sample_fd;
}

static int on_sample(void *arg, void *data, size_t len)
{
  struct prof_bpf *b = arg;
  const struct prof_bpf_sample *s = data;
  if (len >= sizeof *s && b->fn)      /* (none: a kept ring's old samples, dropped) */
    b->fn(b->fn_arg, data, len, s->time);
  return 0;
}

int prof_bpf_ring_fd(const struct prof_bpf *b)
{
  return b->ring ? ring_buffer__epoll_fd(b->ring) : -1;
}

void prof_bpf_drain(struct prof_bpf *b, prof_bpf_sample_fn *fn, void *arg)
{
  b->fn = fn;
  b->fn_arg = arg;
  if (!b->ring)
    b->ring = ring_buffer__new(bpf_map__fd(b->skel->maps.samples), on_sample, b, NULL);
  if (b->ring)
    ring_buffer__consume(b->ring);
}

/* ---- states ---- */

/* A word at a time (a byte at a time was 4% of gorc-prof's start:
   every row of every table comes here), mixed at the end so that the
   low bits, the ones the table uses, depend on every byte.  */
static size_t state_hash(const struct gorc_state *s)
{
  uint64_t words[sizeof *s / 8], h = 0;
  _Static_assert(sizeof *s % 8 == 0, "a state is whole words");
  memcpy(words, s, sizeof words);
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    h = (h ^ words[i]) * 0x9e3779b97f4a7c15u;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93u;
  return h ^ (h >> 32);
}

/* SET's hash made for twice as many ids as it holds at least.  */
static void state_hash_grow(struct state_set *set)
{
  free(set->hash);
  set->hash_cap = set->hash_cap ? 2 * set->hash_cap : 256;
  set->hash = calloc(set->hash_cap, sizeof *set->hash);
  if (!set->hash)
    abort();
  for (size_t id = 0; id < set->n; id++) {
    size_t i = state_hash(&set->v[id]) & (set->hash_cap - 1);
    while (set->hash[i])
      i = (i + 1) & (set->hash_cap - 1);
    set->hash[i] = (uint32_t)id + 1;
  }
}

/* The id of state ST in SET, added when new; PROF_BPF_STATE_NONE when
   SET is full.  */
static uint32_t state_id(struct state_set *set, const struct gorc_state *st)
{
  struct gorc_state s;
  memset(&s, 0, sizeof s);    /* the padding too: states are compared as bytes */
  s.cfa_kind = st->cfa_kind;
  s.cfa_reg = st->cfa_reg;
  s.bp_kind = st->bp_kind;
  s.bp_reg = st->bp_reg;
  s.ra_kind = st->ra_kind;
  s.aux_kind = st->aux_kind;
  s.cfa_off = st->cfa_off;
  s.bp_off = st->bp_off;
  s.ra_off = st->ra_off;
  s.aux_off = st->aux_off;
  s.ra_signed = st->ra_signed;
  if (2 * (set->n + 1) > set->hash_cap)
    state_hash_grow(set);
  size_t i = state_hash(&s) & (set->hash_cap - 1);
  for (; set->hash[i]; i = (i + 1) & (set->hash_cap - 1))
    if (memcmp(&set->v[set->hash[i] - 1], &s, sizeof s) == 0)
      return set->hash[i] - 1;
  if (set->n == set->limit)
    return PROF_BPF_STATE_NONE;
  uint32_t id = (uint32_t)set->n;
  set->v = prof_xgrow(set->v, &set->cap, set->n + 1, sizeof *set->v, 256, SIZE_MAX);
  set->v[set->n++] = s;
  set->hash[i] = id + 1;
  return id;
}

static void state_set_free(struct state_set *set)
{
  free(set->v);
  free(set->hash);
}

/* GORC_PROF_TEST_BPF=many-states (see test_hook): distinct states no
   row names, numbered first in a table's SET.  Past 8,190 of them a
   dense row cannot hold a state's id: a few of the table's own states
   still fit one, the rest do not, and their rows go into 4-byte
   leaves.  */
static void add_filler_states(struct state_set *set)
{
  for (int64_t i = 0; i < TEST_FILLER_STATES; i++) {
    struct gorc_state filler = { .cfa_kind = GORC_CFA_REG, .cfa_reg = 7, .cfa_off = 1000000 + i };
    state_id(set, &filler);
  }
}

/* The states added since the last call into the states map, in one
   batch (a system call a table, not one a state): before any table that
   names them is loaded.  0 or -1.  */
static int push_states(struct prof_bpf *b)
{
  uint32_t count = (uint32_t)(b->states.n - b->states_pushed);
  if (count == 0)
    return 0;
  uint32_t *keys = prof_xmalloc(count * sizeof *keys);
  for (uint32_t i = 0; i < count; i++)
    keys[i] = (uint32_t)b->states_pushed + i;
  int rc = bpf_map_update_batch(bpf_map__fd(b->skel->maps.states), keys,
                                &b->states.v[b->states_pushed], &count, NULL);
  free(keys);
  if (rc != 0)
    return -1;
  b->states_pushed = b->states.n;
  return 0;
}

/* ---- tables ---- */

struct builder {
  struct state_set states;    /* the table's own */
  struct build_row *rows;
  size_t n, cap;
  uint64_t *sigreturns;
  size_t nsig, cap_sig;
};

static void add_row(struct builder *bu, uint64_t pc, uint32_t state)
{
  bu->rows = prof_xgrow(bu->rows, &bu->cap, bu->n + 1, sizeof *bu->rows, 1024, SIZE_MAX);
  bu->rows[bu->n] = (struct build_row){ pc, state, (uint32_t)bu->n };
  bu->n++;
}

static void on_row(void *arg, uint64_t pc, const struct gorc_state *st)
{
  struct builder *bu = arg;
  if (st == PROF_ROW_SIGRETURN) {
    bu->sigreturns = prof_xgrow(bu->sigreturns, &bu->cap_sig, bu->nsig + 1,
                                sizeof *bu->sigreturns, 4, SIZE_MAX);
    bu->sigreturns[bu->nsig++] = pc;
    return;
  }
  add_row(bu, pc, st ? state_id(&bu->states, st) : PROF_BPF_STATE_NONE);
}

static int row_cmp(const void *x, const void *y)
{
  const struct build_row *a = x, *c = y;
  if (a->pc != c->pc)
    return a->pc < c->pc ? -1 : 1;
  return a->seq < c->seq ? -1 : a->seq > c->seq;
}

/* The state id the rows [0, n) (sorted) give address PC.  */
static uint32_t state_at(const struct builder *bu, size_t n, uint64_t pc)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (bu->rows[mid].pc <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? bu->rows[lo - 1].state : PROF_BPF_STATE_NONE;
}

/* The rows from N on (a few), sorted, merged into the sorted rows
   before them: one pass, where a sort of them all was 4% of the CPU of
   gorc-prof -- true.  */
static void merge_rows(struct builder *bu, size_t n)
{
  if (bu->n == n)
    return;
  prof_sort(bu->rows + n, bu->n - n, sizeof *bu->rows, row_cmp);
  struct build_row *merged = prof_xmalloc(bu->n * sizeof *merged);
  size_t i = 0, j = n;
  for (size_t k = 0; k < bu->n; k++)
    merged[k] = j == bu->n || (i < n && row_cmp(&bu->rows[i], &bu->rows[j]) <= 0)
                    ? bu->rows[i++] : bu->rows[j++];
  memcpy(bu->rows, merged, bu->n * sizeof *merged);
  free(merged);
}

/* Signal trampolines: the byte before one (a return address there is
   looked up at it) says "signal frame" where the rows say nothing a
   step can follow, as the copy walker's rule; then the rows go on.  */
static void add_sigreturns(struct builder *bu)
{
  size_t n = bu->n;
  prof_sort(bu->rows, n, sizeof *bu->rows, row_cmp);   /* (they come in order: one pass) */
  for (size_t i = 0; i < bu->nsig; i++) {
    uint64_t x = bu->sigreturns[i];
    uint32_t before = state_at(bu, n, x - 1), at = state_at(bu, n, x);
    if (x == 0 || (before != PROF_BPF_STATE_NONE
                   && bu->states.v[before].cfa_kind != GORC_CFA_UNDEFINED))
      continue;
    add_row(bu, x - 1, PROF_BPF_STATE_SIGRETURN);
    add_row(bu, x, at);
  }
  merge_rows(bu, n);
}

/* The rows as the map holds them: a row only where the state changes
   (of rows at one address, the last holds).  0 when a row's address
   does not fit 32 bits (PROF_BPF_INDEX_PAD is above every one).  */
static size_t packed_rows(const struct builder *bu, struct build_row **out)
{
  struct build_row *v = prof_xmalloc((bu->n ? bu->n : 1) * sizeof *v);
  size_t k = 0;
  for (size_t i = 0; i < bu->n; i++) {
    const struct build_row *r = &bu->rows[i];
    if (r->pc >= PROF_BPF_INDEX_PAD) {
      free(v);
      return 0;
    }
    if (i + 1 < bu->n && bu->rows[i + 1].pc == r->pc)
      continue;
    if (k > 0 && v[k - 1].state == r->state)
      continue;
    v[k++] = *r;
  }
  *out = v;
  return k;
}

/* The blocks of a table (prof-bpf.h), and each leaf's lowest pc.  */
struct blocks {
  struct prof_bpf_block *v;
  uint32_t *leaf_pc;
  uint32_t nleaves, depth, first[PROF_BPF_MAX_LEVELS + 1];
};

/* How many of ROWS (N) from the first a leaf holds: up to MAX rows
   less than SPAN past the first (DENSE: and whose states a dense row
   holds).  */
static uint32_t rows_within(const struct build_row *rows, size_t n, uint32_t max, uint64_t span,
                            int dense)
{
  uint32_t k = 0;
  while (k < n && k < max && rows[k].pc - rows[0].pc < span
         && (!dense || PROF_BPF_DENSE_HOLDS(rows[k].state)))
    k++;
  return k;
}

/* A leaf of ROWS' first K rows (K <= PROF_BPF_BLOCK_SLOTS): 4 bytes a
   row, the slots left over repeating the last.  */
static void fill_leaf(struct prof_bpf_block *leaf, const struct build_row *rows, uint32_t k)
{
  for (uint32_t i = 0; i < PROF_BPF_BLOCK_SLOTS; i++) {
    const struct build_row *r = &rows[i < k ? i : k - 1];
    leaf->slot[i] = PROF_BPF_LEAF_ROW(r->pc - rows[0].pc, r->state);
  }
}

/* A dense leaf of ROWS' first K rows (K <= PROF_BPF_DENSE_ROWS), the rows
   left over repeating the last.  */
static void fill_dense_leaf(struct prof_bpf_block *leaf, const struct build_row *rows, uint32_t k)
{
  uint8_t *bytes = (uint8_t *)leaf;
  memset(leaf, 0, sizeof *leaf);
  bytes[PROF_BPF_DENSE_MARK_AT] = PROF_BPF_DENSE_MARK;
  for (uint32_t i = 0; i < PROF_BPF_DENSE_ROWS; i++) {
    const struct build_row *r = &rows[i < k ? i : k - 1];
    uint16_t hi = PROF_BPF_DENSE_HI(r->pc - rows[0].pc, r->state);
    memcpy(bytes + PROF_BPF_DENSE_HI_AT + 2 * i, &hi, 2);
    bytes[PROF_BPF_DENSE_LO_AT(i)] = (uint8_t)r->state;
  }
}

/* ROWS (N) into leaves, each of as many rows as it holds: a dense leaf
   where that is more rows than a leaf of 4-byte rows holds.  The leaves
   counted (and made, when B->v is not NULL, at the leaf level's
   place).  */
static uint32_t make_leaves(const struct build_row *rows, size_t n, struct blocks *b)
{
  uint32_t leaves = 0;
  for (size_t i = 0; i < n;) {
    uint32_t wide = rows_within(rows + i, n - i, PROF_BPF_BLOCK_SLOTS, 0x10000, 0);
    uint32_t dense = rows_within(rows + i, n - i, PROF_BPF_DENSE_ROWS,
                                 PROF_BPF_DENSE_MAX_DELTA + 1, 1);
    if (b->v) {
      struct prof_bpf_block *leaf = &b->v[b->first[b->depth] + leaves];
      b->leaf_pc[leaves] = (uint32_t)rows[i].pc;
      if (dense > wide)
        fill_dense_leaf(leaf, rows + i, dense);
      else
        fill_leaf(leaf, rows + i, wide);
    }
    i += dense > wide ? dense : wide;
    leaves++;
  }
  return leaves;
}

/* Each index level, from the one above the leaves up to the root: a
   block's slots are the lowest pcs of its children (a leaf's first
   row's; an index block's first slot), the slots left over
   PROF_BPF_INDEX_PAD.  */
static void make_index(struct blocks *b)
{
  for (uint32_t l = b->depth; l-- > 0;) {
    uint32_t children = l + 1 == b->depth ? b->nleaves : b->first[l + 2] - b->first[l + 1];
    for (uint32_t k = b->first[l]; k < b->first[l + 1]; k++)
      for (uint32_t j = 0; j < PROF_BPF_BLOCK_SLOTS; j++) {
        uint32_t child = (k - b->first[l]) * PROF_BPF_BLOCK_SLOTS + j;
        b->v[k].slot[j] = child >= children     ? PROF_BPF_INDEX_PAD
                          : l + 1 == b->depth ? b->leaf_pc[child]
                                              : b->v[b->first[l + 1] + child].slot[0];
      }
  }
}

/* The blocks of the table of ROWS (N): 0, or -1 when it would need more
   levels than the walker searches.  */
static int make_blocks(const struct build_row *rows, size_t n, struct blocks *b)
{
  memset(b, 0, sizeof *b);
  b->nleaves = make_leaves(rows, n, b);
  if (prof_bpf_tree(b->nleaves, &b->depth, b->first) != 0)
    return -1;
  b->v = prof_xmalloc((b->first[b->depth] + (size_t)b->nleaves) * sizeof *b->v);
  b->leaf_pc = prof_xmalloc(b->nleaves * sizeof *b->leaf_pc);
  make_leaves(rows, n, b);
  make_index(b);
  return 0;
}

/* The ids in the states map of T's own states (added there where new),
   as the blocks that follow its leaves (prof-bpf.h), into *IDS: how
   many blocks.  */
static uint32_t state_id_blocks(struct prof_bpf *b, const struct prof_cache_table *t,
                                struct prof_bpf_block **ids)
{
  uint32_t n = (t->nstates + PROF_BPF_STATE_IDS - 1) / PROF_BPF_STATE_IDS;
  uint16_t *words = prof_xmalloc((n ? n : 1) * sizeof **ids);
  memset(words, 0xff, n * sizeof **ids);     /* PROF_BPF_STATE_NONE */
  for (uint32_t k = 0; k < t->nstates; k++)
    words[k] = (uint16_t)state_id(&b->states, &t->states[k]);
  *ids = (struct prof_bpf_block *)words;
  return n;
}

/* An array map of T's blocks, then the blocks of its state ids IDS
   (NIDS): its descriptor, or -1.  */
static int table_load(const struct prof_cache_table *t, const struct prof_bpf_block *ids,
                      uint32_t nids)
{
  uint32_t n = t->nblocks + nids;
  /* the flag of the outer map's template: each table sized its own */
  LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_INNER_MAP);
  int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gorc_table", 4, sizeof *t->blocks, n, &opts);
  if (fd < 0)
    return -1;
  uint32_t *keys = prof_xmalloc(n * sizeof *keys);
  for (uint32_t i = 0; i < n; i++)
    keys[i] = i;
  uint32_t count = t->nblocks, count_ids = nids;
  if (bpf_map_update_batch(fd, keys, t->blocks, &count, NULL) != 0
      || (nids && bpf_map_update_batch(fd, keys + t->nblocks, ids, &count_ids, NULL) != 0)) {
    close(fd);
    fd = -1;
  }
  free(keys);
  return fd;
}

/* Is T's table still to be built?  */
static int table_wanted(const struct table *t)
{
  return t->id != PROF_BPF_NO_MODULE && t->nleaves == 0 && t->fd < 0;
}

/* MOD's table built from its rows into *C (its states and blocks
   allocated, C->file NULL): 1, or 0 when it has none.  */
static int table_made(const struct prof_bpf *b, const struct prof_module *mod,
                      struct prof_cache_table *c)
{
  struct builder bu = { .states = { .limit = PROF_BPF_STATE_NO_TABLE } };
  struct build_row *rows = NULL;
  struct blocks bl;
  memset(c, 0, sizeof *c);
  if (b->many_states)
    add_filler_states(&bu.states);
  prof_module_rows(mod, on_row, &bu);
  add_sigreturns(&bu);
  size_t n = packed_rows(&bu, &rows);
  int made = n > 0 && make_blocks(rows, n, &bl) == 0;
  if (made) {
    c->states = bu.states.v;
    c->nstates = (uint32_t)bu.states.n;
    c->blocks = bl.v;
    c->nblocks = bl.first[bl.depth] + bl.nleaves;
    c->nleaves = bl.nleaves;
    c->nrows = (uint32_t)n;
    bu.states.v = NULL;
    free(bl.leaf_pc);
  }
  state_set_free(&bu.states);
  free(bu.rows);
  free(bu.sigreturns);
  free(rows);
  return made;
}

/* MOD's table into *C: from the table cache, else built (and kept
   there): 1, or 0 when it has none.  *FROM_CACHE: it was read.  */
static int module_table(const struct prof_bpf *b, const struct prof_module *mod,
                        struct prof_cache_table *c, int *from_cache)
{
  const uint8_t *id = NULL;
  uint64_t size;
  size_t idlen = b->many_states ? 0 : prof_module_identity(mod, &id, &size);
  *from_cache = idlen > 0 && prof_cache_load(id, idlen, size, c);
  if (*from_cache)
    return 1;
  if (!table_made(b, mod, c))
    return 0;
  if (idlen > 0)
    prof_cache_store(id, idlen, size, c);
  return 1;
}

/* The table of T, for publish_tables to put at the id it was given.  */
static void table_build(struct prof_bpf *b, struct table *t)
{
  struct prof_cache_table c;
  struct prof_bpf_block *ids = NULL;
  if (module_table(b, t->mod, &c, &t->from_cache)) {
    uint32_t nids = state_id_blocks(b, &c, &ids);
    if (push_states(b) == 0 && (t->fd = table_load(&c, ids, nids)) >= 0) {
      t->built_leaves = c.nleaves;
      t->built_rows = c.nrows;
      t->built_bytes = ((uint64_t)c.nblocks + nids) * sizeof *c.blocks;
    }
    if (!c.file)
      free((void *)c.blocks);
    prof_cache_free(&c);
  }
  if (t->fd < 0) {
    t->id = PROF_BPF_NO_MODULE;
    b->modules_failed++;
  }
  free(ids);
}

/* T's table, now in the walker's map, into the figures.  */
static void table_count(struct prof_bpf *b, const struct table *t)
{
  uint64_t own_records, own_eh;
  prof_module_sizes(t->mod, &own_records, &own_eh);
  b->modules_cached += t->from_cache != 0;
  if (own_records) {
    b->modules_records++;
    b->rows_records += t->built_rows;
    b->bytes_records += t->built_bytes;
    b->own_records += own_records;
  } else {
    b->modules_eh++;
    b->rows_eh += t->built_rows;
    b->bytes_eh += t->built_bytes;
    b->own_eh += own_eh;
  }
}

/* T's file into the files map, for the walker's lookup of a mapping in
   the kernel (kernel_map in prof-bpf.bpf.c), once its table is there.  */
static void add_file(struct prof_bpf *b, const struct table *t)
{
  struct prof_module_text text;
  if (t->nleaves == 0 || prof_module_text(t->mod, &text) != 0)
    return;
  struct prof_bpf_file_key key = {
    .ino = text.ino, .ctime_sec = text.ctime_sec, .ctime_nsec = text.ctime_nsec,
    .dev = PROF_BPF_DEV(text.dev_major, text.dev_minor),
  };
  struct prof_bpf_file file = {
    .module = t->id, .nleaves = t->nleaves,
    .text_offset = text.offset, .text_size = text.filesz, .text_vaddr = text.vaddr,
  };
  bpf_map_update_elem(bpf_map__fd(b->skel->maps.files), &key, &file, BPF_ANY);
}

/* The tables built since the last call to the publisher, which puts
   them into the walker's map of tables in one update (prof-publish.h:
   each update waits 8-20 ms; an update a table kept a started program
   from starting for 45 ms with four tables).  */
static void publish_tables(struct prof_bpf *b)
{
  for (size_t i = 0; i < b->ntables; i++)
    if (b->tables[i].fd >= 0 && !b->tables[i].queued) {
      prof_publisher_queue(b->publisher, b->tables[i].id, b->tables[i].fd, i);
      b->tables[i].queued = 1;
    }
}

/* The tables the publisher is done with: in the walker (their files
   too), or not; either way their descriptors closed (the map of maps
   holds the ones it took).  */
static void collect_published(struct prof_bpf *b)
{
  struct prof_published done[64];
  size_t n;
  while ((n = prof_publisher_done(b->publisher, done, 64)) > 0)
    for (size_t k = 0; k < n; k++) {
      struct table *t = &b->tables[done[k].tag];
      close(t->fd);
      t->fd = -1;
      t->queued = 0;
      if (done[k].ok) {
        t->nleaves = t->built_leaves;
        table_count(b, t);
        add_file(b, t);
        t->fresh = 1;
        b->tables_grew = 1;
      } else {
        t->id = PROF_BPF_NO_MODULE;
        b->modules_failed++;
      }
    }
}

/* Wait for the tables given to the publisher.  */
static void wait_published(struct prof_bpf *b)
{
  prof_publisher_wait(b->publisher);
  collect_published(b);
}

int prof_bpf_published_fd(const struct prof_bpf *b)
{
  return prof_publisher_fd(b->publisher);
}

void prof_bpf_collect(struct prof_bpf *b, const struct prof_data *view)
{
  collect_published(b);
  prof_bpf_refresh(b, view);
}

/* A module's table: tables[TABLE - 1] (0: an empty entry).  Modules of
   one file (reached by two paths: a hard link, a file in a chroot seen
   from outside) share one table, so that a file has one module id in
   the walker (the files map's, which proc_of_image compares).  */
struct index_entry {
  const struct prof_module *mod;
  size_t table;
};

/* Where MOD's entry is or would go in the open-addressed table_index
   (asked for every mapping of every process at each sync: -a meets
   hundreds of modules in hundreds of processes).  */
static struct index_entry *index_slot(const struct prof_bpf *b, const struct prof_module *mod)
{
  size_t mask = b->index_cap - 1;
  size_t i = (size_t)(((uintptr_t)mod >> 4) * 0x9e3779b97f4a7c15ull) & mask;
  while (b->table_index[i].table && b->table_index[i].mod != mod)
    i = (i + 1) & mask;
  return &b->table_index[i];
}

/* The index kept at most half full, as entries are added.  */
static void index_grow(struct prof_bpf *b)
{
  if (2 * (b->index_used + 1) <= b->index_cap)
    return;
  struct index_entry *old = b->table_index;
  size_t old_cap = b->index_cap;
  b->index_cap = b->index_cap ? 2 * b->index_cap : 256;
  b->table_index = calloc(b->index_cap, sizeof *b->table_index);
  if (!b->table_index)
    abort();
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].table)
      *index_slot(b, old[i].mod) = old[i];
  free(old);
}

/* The table of another module of MOD's file, or NULL.  */
static struct table *same_file_table(struct prof_bpf *b, const struct prof_module *mod)
{
  for (size_t i = 0; i < b->ntables; i++)
    if (prof_module_same_file(b->tables[i].mod, mod))
      return &b->tables[i];
  return NULL;
}

/* The table of MOD, given an id (not built yet) when new.  */
static struct table *table_of(struct prof_bpf *b, const struct prof_module *mod)
{
  struct index_entry *slot = b->index_cap ? index_slot(b, mod) : NULL;
  if (slot && slot->table)
    return &b->tables[slot->table - 1];
  index_grow(b);
  struct table *t = same_file_table(b, mod);
  if (!t) {
    b->tables = prof_xgrow(b->tables, &b->cap_tables, b->ntables + 1, sizeof *b->tables, 16,
                           SIZE_MAX);
    t = &b->tables[b->ntables++];
    memset(t, 0, sizeof *t);
    t->mod = mod;
    t->fd = -1;
    t->id = b->next_id < PROF_BPF_MAX_MODULES ? b->next_id++ : PROF_BPF_NO_MODULE;
    if (t->id == PROF_BPF_NO_MODULE)
      b->modules_failed++;
  }
  *index_slot(b, mod) = (struct index_entry){ mod, (size_t)(t - b->tables) + 1 };
  b->index_used++;
  return t;
}

/* Build the tables given an id but not built, for the publisher.  */
static void build_new_tables(struct prof_bpf *b)
{
  for (size_t i = 0; i < b->ntables; i++)
    if (table_wanted(&b->tables[i]))
      table_build(b, &b->tables[i]);
  publish_tables(b);
}

/* Build the tables of P's modules not built yet, for the publisher
   (prof_bpf_collect tells P's mappings again once they are in).  */
static void build_tables_of(struct prof_bpf *b, const struct prof_proc *p)
{
  int built = 0;
  for (size_t i = 0; i < p->space.n && i < PROF_BPF_MAX_MAPS; i++) {
    const struct prof_module *mod = p->space.maps[i].mod;
    if (!mod)
      continue;
    struct table *t = table_of(b, mod);
    if (table_wanted(t)) {
      table_build(b, t);
      built = 1;
    }
  }
  if (built)
    publish_tables(b);
}

/* Does P map a module whose table the publisher has not put yet?  */
static int tables_pending(struct prof_bpf *b, const struct prof_proc *p)
{
  for (size_t i = 0; i < p->space.n && i < PROF_BPF_MAX_MAPS; i++)
    if (p->space.maps[i].mod && table_of(b, p->space.maps[i].mod)->fd >= 0)
      return 1;
  return 0;
}

/* ---- processes ---- */

/* P's mappings as the walker holds them, with their tables as they
   are now.  */
static void proc_value(struct prof_bpf *b, const struct prof_proc *p, struct prof_bpf_proc *v)
{
  memset(v, 0, sizeof *v);
  for (size_t i = 0; i < p->space.n && v->n < PROF_BPF_MAX_MAPS; i++) {
    const struct prof_map *m = &p->space.maps[i];
    struct prof_bpf_map *e = &v->maps[v->n++];
    const struct table *t = m->mod ? table_of(b, m->mod) : NULL;
    e->start = m->start;
    e->end = m->end;
    e->bias = m->bias;
    e->module = t ? t->id : PROF_BPF_NO_MODULE;
    e->nleaves = t ? t->nleaves : 0;
  }
}

static int untold(const struct prof_bpf *b, pid_t pid)
{
  for (size_t i = 0; i < b->nuntold; i++)
    if (b->untold[i] == pid)
      return 1;
  return 0;
}

/* Under a stale- test hook (HOOK set): PID, if the walker holds its
   mappings (not the started program's own exec), is told nothing more.  */
static void tell_no_more(struct prof_bpf *b, int hook, pid_t pid)
{
  struct prof_bpf_proc told;
  uint32_t key = (uint32_t)pid;
  if (!hook || untold(b, pid)
      || bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.procs), &key, &told) != 0)
    return;
  b->untold = prof_xgrow(b->untold, &b->cap_untold, b->nuntold + 1, sizeof *b->untold, 16,
                         SIZE_MAX);
  b->untold[b->nuntold++] = pid;
}

void prof_bpf_exec(struct prof_bpf *b, pid_t pid)
{
  tell_no_more(b, b->stale_exec, pid);
}

/* A span of a process whose walks from FROM to UNTIL went through
   another file's table (prof_bpf_remapped).  */
struct remap {
  pid_t pid;
  uint64_t lo, hi, from, until;
};

void prof_bpf_remapping(struct prof_bpf *b, pid_t pid)
{
  tell_no_more(b, b->stale_mmap, pid);
}

void prof_bpf_remapped(struct prof_bpf *b, pid_t pid, uint64_t lo, uint64_t hi, uint64_t from,
                       uint64_t now)
{
  b->remaps = prof_xgrow(b->remaps, &b->cap_remaps, b->nremaps + 1, sizeof *b->remaps, 16,
                         SIZE_MAX);
  b->remaps[b->nremaps++] = (struct remap){ pid, lo, hi, from, untold(b, pid) ? UINT64_MAX : now };
}

/* The user addresses IPS[0..*NUSER) of a sample of PID at TIME walked in
   the kernel: where the walk went through a span mapped anew before the
   walker was told (a remap), the frames past its first in that span
   were stepped with the old file's table: cut there, and the walk's
   *END made "no table yet".  Remaps no sample can meet any more (fed
   in time order) are dropped.  */
static void cut_remapped(struct prof_bpf *b, pid_t pid, uint64_t time, const uint64_t *ips,
                         unsigned *nuser, int32_t *end)
{
  size_t kept = 0;
  for (size_t k = 0; k < b->nremaps; k++) {
    const struct remap *m = &b->remaps[k];
    if (m->until < time)
      continue;
    b->remaps[kept++] = *m;
    if (m->pid != pid || time < m->from)
      continue;
    for (unsigned i = 0; i + 1 < *nuser; i++)
      if (ips[i] - m->lo < m->hi - m->lo) {
        *nuser = i + 1;
        *end = PROF_WALK_NO_TABLE;
        break;
      }
  }
  b->nremaps = kept;
}

/* P's mappings into the procs map, as their tables are now.  */
static void push_proc(struct prof_bpf *b, const struct prof_proc *p)
{
  struct prof_bpf_proc v;
  if (b->no_push || untold(b, p->pid))
    return;
  proc_value(b, p, &v);
  uint32_t pid = (uint32_t)p->pid;
  bpf_map_update_elem(bpf_map__fd(b->skel->maps.procs), &pid, &v, BPF_ANY);
}

/* The mappings first, so that a sample in a module whose table is being
   built says "no table yet", not "not code"; then again with the
   tables (BUILD), or as they are (the first sample of a module builds
   its table: rewalk).  */
void prof_bpf_sync(struct prof_bpf *b, const struct prof_proc *p, int build)
{
  push_proc(b, p);
  if (build)
    build_tables_of(b, p);
}

void prof_bpf_sync_now(struct prof_bpf *b, const struct prof_proc *p)
{
  prof_bpf_sync(b, p, 1);
  wait_published(b);
  push_proc(b, p);
}

/* Does P map a module whose table is fresh?  */
static int maps_fresh_table(struct prof_bpf *b, const struct prof_proc *p)
{
  for (size_t i = 0; i < p->space.n && i < PROF_BPF_MAX_MAPS; i++)
    if (p->space.maps[i].mod && table_of(b, p->space.maps[i].mod)->fresh)
      return 1;
  return 0;
}

void prof_bpf_refresh(struct prof_bpf *b, const struct prof_data *view)
{
  if (!b->tables_grew)
    return;
  for (size_t i = 0; i < view->nprocs; i++)
    if (maps_fresh_table(b, &view->procs[i]))
      push_proc(b, &view->procs[i]);
  for (size_t i = 0; i < b->ntables; i++)
    b->tables[i].fresh = 0;
  b->tables_grew = 0;
}

static void prepare_file(void *arg, const char *path)
{
  const struct prof_module *mod = prof_module_of(path);
  if (mod)
    table_of(arg, mod);
}

void prof_bpf_prepare(struct prof_bpf *b, const char *cmd)
{
  size_t before = b->modules_records + b->modules_eh;
  prof_program_files(cmd, prepare_file, b);
  prepare_file(b, "[vdso]");
  build_new_tables(b);
  wait_published(b);          /* (before the program's first sample) */
  b->prepared = b->modules_records + b->modules_eh - before;
}

/* found_maps' entries of processes gone, deleted: a sample of a dying
   thread after its process's exit record makes one again, which no exit
   deletes, and the map holds 1,024.  */
static void sweep_found_maps(struct prof_bpf *b)
{
  int fd = bpf_map__fd(b->skel->maps.found_maps);
  uint32_t key, next, gone[1024];
  size_t n = 0;
  for (void *prev = NULL; n < 1024 && bpf_map_get_next_key(fd, prev, &next) == 0; prev = &key) {
    if (kill((pid_t)next, 0) != 0 && errno == ESRCH)
      gone[n++] = next;
    key = next;
  }
  for (size_t i = 0; i < n; i++)
    bpf_map_delete_elem(fd, &gone[i]);
}

void prof_bpf_forget(struct prof_bpf *b, pid_t pid)
{
  uint32_t key = (uint32_t)pid;
  bpf_map_delete_elem(bpf_map__fd(b->skel->maps.procs), &key);
  bpf_map_delete_elem(bpf_map__fd(b->skel->maps.found_maps), &key);
  if (++b->exits % 256 == 0)
    sweep_found_maps(b);
}

/* ---- held samples ---- */

/* prof_rewalk, not loaded with the walker (prof_bpf_open): a second
   instance of the object with only it loaded, over the first's maps.
   0, or -1 (once: later calls say so at once).  */
static int load_rewalker(struct prof_bpf *b)
{
  if (b->rewalker || b->kept_rewalk_fd >= 0 || bpf_program__fd(b->skel->progs.prof_rewalk) >= 0)
    return 0;
  if (b->rewalker_refused)
    return -1;
  if ((b->kept_rewalk_fd = prof_keep_prog(&b->keep, "prof_rewalk")) >= 0)
    return 0;
  struct prof_walker *skel = open_walker(b->btf_fd >= 0 ? b->btf_path : NULL);
  struct bpf_map *map;
  int err = skel ? 0 : -1;
  if (skel) {
    bpf_program__set_autoload(skel->progs.prof_sample, false);
    bpf_object__for_each_map(map, skel->obj) {
      const struct bpf_map *first = bpf_object__find_map_by_name(b->skel->obj, bpf_map__name(map));
      if (!err)
        err = first ? bpf_map__reuse_fd(map, bpf_map__fd(first)) : -1;
    }
  }
  if (!err)
    err = prof_walker__load(skel);
  if (err) {
    char why[512];
    refusal(err < 0 ? err : -EINVAL, why, sizeof why);
    fprintf(stderr, "gorc-prof: held samples cannot be walked again in the kernel: %s\n", why);
    prof_walker__destroy(skel);
    b->rewalker_refused = 1;
    return -1;
  }
  b->rewalker = skel;
  if (b->keep.dir_fd >= 0)
    prof_keep_pin(&b->keep, skel->progs.prof_rewalk, "prof_rewalk");   /* (else loaded again) */
  return 0;
}

/* What a kept walker's last runs left: its processes' mappings (a pid
   may be another process now), its counts, the samples it did not read
   (dropped), and its program's run time (kept as this run's zero: the
   kernel's count cannot be reset).  Its tables and states stay, out of
   reach: a table is found through a mapping, and this run writes its
   own.  REWALK_NOW: prof_rewalk loaded now, as prof_bpf_open does.  */
/* Every entry of the hash map MAP deleted, through KEY (room for one
   of its keys).  */
static void clear_hash(const struct bpf_map *map, void *key)
{
  int fd = bpf_map__fd(map);
  while (bpf_map_get_next_key(fd, NULL, key) == 0 && bpf_map_delete_elem(fd, key) == 0)
    ;
}

/* The walker's cache of states emptied, on each of NCPUS: its module
   ids and state ids are the last run's.  */
static void clear_state_cache(struct prof_bpf *b, int ncpus)
{
  uint32_t zero = 0;
  if (ncpus <= 0)
    return;
  struct prof_bpf_state_cache *zeros = calloc((size_t)ncpus, sizeof *zeros);
  if (zeros)
    bpf_map_update_elem(bpf_map__fd(b->skel->maps.state_cache), &zero, zeros, BPF_ANY);
  free(zeros);
}

static void clear_kept(struct prof_bpf *b, int rewalk_now)
{
  run_time(b, &b->run_ns0, &b->runs0);
  int stats = bpf_map__fd(b->skel->maps.stats);
  uint32_t pid;
  struct prof_bpf_file_key file;
  clear_hash(b->skel->maps.procs, &pid);
  clear_hash(b->skel->maps.found_maps, &pid);
  clear_hash(b->skel->maps.files, &file);   /* (their module ids are the last run's) */
  int ncpus = libbpf_num_possible_cpus();
  uint64_t *zero = ncpus > 0 ? calloc((size_t)ncpus, sizeof *zero) : NULL;
  for (uint32_t stat = 0; zero && stat < PROF_BPF_STAT_COUNT; stat++)
    bpf_map_update_elem(stats, &stat, zero, BPF_ANY);
  free(zero);
  clear_state_cache(b, ncpus);
  prof_bpf_drain(b, NULL, NULL);
  if (rewalk_now)
    load_rewalker(b);
}

static int rewalk_fd(const struct prof_bpf *b)
{
  if (b->kept_rewalk_fd >= 0)
    return b->kept_rewalk_fd;
  return bpf_program__fd((b->rewalker ? b->rewalker : b->skel)->progs.prof_rewalk);
}

/* The copied stack STACK of a sample of P (T: the frame its walk
   stopped at, the copy from its sp) walked on in the kernel
   (prof_rewalk), with P's mappings as they are now (the sample's, fed
   in time order) and their tables, built first where missing: NUSER
   addresses (at most MAX) into IPS, the first that frame's, how it
   ended into END.  0; 1 when a table of P is still with the publisher
   (walk it here); -1 when BPF_PROG_TEST_RUN failed.  */
static int rewalk(struct prof_bpf *b, const struct prof_proc *p,
                  const struct prof_bpf_copy_tail *t, const uint8_t *stack, uint64_t *ips,
                  unsigned max, unsigned *nuser, int8_t *end)
{
  const struct prof_bpf_regs *r = &t->regs;
  static struct prof_bpf_held h;
  uint32_t zero = 0;
  int fd = bpf_map__fd(b->skel->maps.held);
  if (b->no_push)
    return -1;
  if (!prof_space_find(&p->space, r->ip)) {
    /* the walk would end at once, not code (a sample in an exec, its
       new image not mapped yet): said here, without loading
       prof_rewalk for it */
    ips[0] = r->ip;
    *nuser = 1;
    *end = PROF_BPF_END_NO_MAPPING;
    b->held_not_code++;
    return 0;
  }
  build_tables_of(b, p);
  if (tables_pending(b, p)) {
    /* walked here, as --unwind=copy does, rather than the loop stopped
       for the publisher (prof-publish.h); but waited for where only a
       walk in the kernel will do (the kernel-only test hook) */
    if (!b->kernel_only)
      return 1;
    wait_published(b);
  }
  proc_value(b, p, &h.proc);
  h.regs = *r;
  h.known = t->known;
  h.stack_bytes = t->stack_bytes < PROF_BPF_COPY ? t->stack_bytes : PROF_BPF_COPY;
  memcpy(h.stack, stack, h.stack_bytes);
  LIBBPF_OPTS(bpf_test_run_opts, run);
  if (load_rewalker(b) != 0 || bpf_map_update_elem(fd, &zero, &h, BPF_ANY) != 0
      || bpf_prog_test_run_opts(rewalk_fd(b), &run) != 0
      || run.retval != 0 || bpf_map_lookup_elem(fd, &zero, &h) != 0) {
    b->rewalk_failed++;
    return -1;
  }
  *nuser = h.nuser < max ? h.nuser : max;
  memcpy(ips, h.ips, *nuser * sizeof *ips);
  *end = h.end;
  b->rewalked++;
  return 0;
}

/* May a held sample be unwound in gorc-prof?  */
static int unwind_here(const struct prof_bpf *b)
{
  return !b->kernel_only && !b->no_push;
}

/* ---- the report ---- */

static void run_time(const struct prof_bpf *b, uint64_t *ns, uint64_t *runs)
{
  struct bpf_prog_info info;
  uint32_t len = sizeof info;
  memset(&info, 0, sizeof info);
  *ns = *runs = 0;
  if (bpf_obj_get_info_by_fd(prof_bpf_prog_fd(b), &info, &len) == 0) {
    *ns = info.run_time_ns - b->run_ns0;     /* (a kept walker's count goes on) */
    *runs = info.run_cnt - b->runs0;
  }
}

static uint64_t stat_sum(const struct prof_bpf *b, uint32_t stat)
{
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0)
    return 0;
  uint64_t *v = calloc((size_t)ncpus, sizeof *v), sum = 0;
  if (v && bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stats), &stat, v) == 0)
    for (int c = 0; c < ncpus; c++)
      sum += v[c];
  free(v);
  return sum;
}

uint64_t prof_bpf_lost_since(struct prof_bpf *b)
{
  uint64_t lost = stat_sum(b, PROF_BPF_STAT_LOST);
  if (lost <= b->lost_told)
    return 0;         /* none since (or the stats not read this time: 0) */
  uint64_t since = lost - b->lost_told;
  b->lost_told = lost;
  return since;
}

void prof_bpf_report(const struct prof_bpf *b, FILE *f)
{
  uint64_t ns, runs, frames = stat_sum(b, PROF_BPF_STAT_FRAMES);
  run_time(b, &ns, &runs);
  uint32_t ring_kb = bpf_map__max_entries(b->skel->maps.samples) >> 10;
  fprintf(f, "gorc-prof: BPF walker: %llu samples, %llu lost (ring buffer full, %u %s), %llu user "
          "frames (limit %d a stack), %llu mappings found in the kernel (not told yet), %llu "
          "samples of a process whose mappings were another image's (an exec not read yet), %llu "
          "stacks copied (a table not loaded yet), %llu not (the ring buffer half full), walked "
          "again in the kernel: %llu, %llu failed, %llu at a pc in no mapping\n",
          (unsigned long long)stat_sum(b, PROF_BPF_STAT_SAMPLES),
          (unsigned long long)stat_sum(b, PROF_BPF_STAT_LOST),
          ring_kb >= 1024 ? ring_kb >> 10 : ring_kb, ring_kb >= 1024 ? "MB" : "KB",
          (unsigned long long)frames, PROF_BPF_MAX_FRAMES,
          (unsigned long long)stat_sum(b, PROF_BPF_STAT_VMA),
          (unsigned long long)stat_sum(b, PROF_BPF_STAT_STALE),
          (unsigned long long)stat_sum(b, PROF_BPF_STAT_COPIED),
          (unsigned long long)stat_sum(b, PROF_BPF_STAT_NOT_COPIED),
          (unsigned long long)b->rewalked, (unsigned long long)b->rewalk_failed,
          (unsigned long long)b->held_not_code);
  if (b->keep.dir_fd >= 0)
    fprintf(f, "gorc-prof: BPF walker kept in %s: %s\n", b->keep.path,
            b->keep.reused ? "reused, its programs not loaded again" : "loaded, kept for the next run");
  /* (per frame only where a sample walks a frame or more: the run
     time of -a's idle and kernel threads' samples, with no user stack,
     over the few frames walked was no walk's cost) */
  if (runs && b->stats_fd >= 0 && frames >= runs)
    fprintf(f, "gorc-prof: BPF run time: %.0f ns per sample, %.1f ns per frame (the kernel's "
            "BPF statistics)\n", (double)ns / (double)runs, (double)ns / (double)frames);
  else if (runs && b->stats_fd >= 0)
    fprintf(f, "gorc-prof: BPF run time: %.0f ns per sample (the kernel's BPF statistics; "
            "%.2f user frames a sample: no figure per frame)\n",
            (double)ns / (double)runs, (double)frames / (double)runs);
  size_t unsampled = 0;
  for (size_t i = 0; i < b->ntables; i++)
    unsampled += b->tables[i].id != PROF_BPF_NO_MODULE && b->tables[i].nleaves == 0
                 && b->tables[i].fd < 0;
  fprintf(f, "gorc-prof: BPF tables: %zu modules with records: %llu rows, %.1f KB for %.1f KB "
          "of records (%.2fx); %zu from .eh_frame: %llu rows, %.1f KB for %.1f KB of .eh_frame "
          "(or .debug_frame, .gopclntab) "
          "(%.2fx); %zu states, %.1f KB; %zu modules without a table; %zu built before the program "
          "started; %zu read from the table cache; %zu mapped but never sampled (not built)\n",
          b->modules_records, (unsigned long long)b->rows_records,
          (double)b->bytes_records / 1024, (double)b->own_records / 1024,
          b->own_records ? (double)b->bytes_records / (double)b->own_records : 0.0,
          b->modules_eh, (unsigned long long)b->rows_eh, (double)b->bytes_eh / 1024,
          (double)b->own_eh / 1024, b->own_eh ? (double)b->bytes_eh / (double)b->own_eh : 0.0,
          b->states.n, (double)b->states.n * sizeof(struct gorc_state) / 1024, b->modules_failed,
          b->prepared, b->modules_cached, unsampled);
}

void prof_bpf_close(struct prof_bpf *b)
{
  if (!b)
    return;
  ring_buffer__free(b->ring);
  prof_publisher_free(b->publisher);
  for (size_t i = 0; i < b->ntables; i++)
    if (b->tables[i].fd >= 0)
      close(b->tables[i].fd);
  if (b->stats_fd >= 0)
    close(b->stats_fd);
  prof_walker__destroy(b->rewalker);
  prof_walker__destroy(b->skel);
  if (b->keep.reused)
    close(b->sample_fd);
  if (b->kept_rewalk_fd >= 0)
    close(b->kept_rewalk_fd);
  prof_keep_end(&b->keep);
  if (b->btf_fd >= 0)
    close(b->btf_fd);
  free(b->tables);
  free(b->untold);
  free(b->remaps);
  free(b->table_index);
  state_set_free(&b->states);
  free(b);
}

#else /* !GORC_HAVE_BPF */

struct prof_bpf *prof_bpf_open(const struct prof_bpf_opts *o, char *why, size_t whylen)
{
  (void)o;
  snprintf(why, whylen, "gorc-prof was built without it (clang, bpftool or libbpf-dev was "
           "missing at build time)");
  return NULL;
}
int prof_bpf_prog_fd(const struct prof_bpf *b) { (void)b; return -1; }
int prof_bpf_ring_fd(const struct prof_bpf *b) { (void)b; return -1; }
int prof_bpf_published_fd(const struct prof_bpf *b) { (void)b; return -1; }
void prof_bpf_collect(struct prof_bpf *b, const struct prof_data *view)
{
  (void)b;
  (void)view;
}
void prof_bpf_sync(struct prof_bpf *b, const struct prof_proc *p, int build)
{
  (void)b;
  (void)p;
  (void)build;
}
void prof_bpf_refresh(struct prof_bpf *b, const struct prof_data *view)
{
  (void)b;
  (void)view;
}
void prof_bpf_exec(struct prof_bpf *b, pid_t pid) { (void)b; (void)pid; }
void prof_bpf_remapping(struct prof_bpf *b, pid_t pid) { (void)b; (void)pid; }
void prof_bpf_remapped(struct prof_bpf *b, pid_t pid, uint64_t lo, uint64_t hi, uint64_t from,
                       uint64_t now)
{
  (void)b; (void)pid; (void)lo; (void)hi; (void)from; (void)now;
}
void prof_bpf_forget(struct prof_bpf *b, pid_t pid) { (void)b; (void)pid; }
void prof_bpf_prepare(struct prof_bpf *b, const char *cmd) { (void)b; (void)cmd; }
void prof_bpf_sync_now(struct prof_bpf *b, const struct prof_proc *p) { (void)b; (void)p; }
void prof_bpf_drain(struct prof_bpf *b, prof_bpf_sample_fn *fn, void *arg)
{
  (void)b; (void)fn; (void)arg;
}
uint64_t prof_bpf_lost_since(struct prof_bpf *b) { (void)b; return 0; }
void prof_bpf_report(const struct prof_bpf *b, FILE *f) { (void)b; (void)f; }
static int rewalk(struct prof_bpf *b, const struct prof_proc *p,
                  const struct prof_bpf_copy_tail *t, const uint8_t *stack, uint64_t *ips,
                  unsigned max, unsigned *nuser, int8_t *end)
{
  (void)b; (void)p; (void)t; (void)stack; (void)ips; (void)max; (void)nuser; (void)end;
  return -1;
}
static int unwind_here(const struct prof_bpf *b) { (void)b; return 1; }
static void cut_remapped(struct prof_bpf *b, pid_t pid, uint64_t time, const uint64_t *ips,
                         unsigned *nuser, int32_t *end)
{
  (void)b; (void)pid; (void)time; (void)ips; (void)nuser; (void)end;
}
void prof_bpf_close(struct prof_bpf *b) { (void)b; }

#endif

/* How the BPF walker's end reads in the profile.  */
static int32_t profile_end(int8_t end)
{
  switch (end) {
  case PROF_BPF_END_COMPLETE:
    return PROF_WALK_COMPLETE;
  case PROF_BPF_END_DEPTH:
    return PROF_WALK_DEEPER;
  case PROF_BPF_END_KERNEL:
    return PROF_WALK_KERNEL;
  case PROF_BPF_END_NO_TABLE:
  case PROF_BPF_END_NO_MAPPING:
    return PROF_WALK_NO_TABLE;
  case PROF_BPF_END_BAD:
    return PROF_WALK_BAD;
  case PROF_BPF_END_TRUNCATED:
    return PROF_WALK_TRUNCATED;
  default:
    return PROF_WALK_NO_INFO;
  }
}

/* A sample whose walk met a module without a table yet (T: where, and
   the copy of the stack from there, STACK): its first T->nwalked user
   addresses WALKED in the kernel, the rest walked on in the kernel now
   that its mappings are known and their tables loaded; unwound here
   (as --unwind=copy) where that fails.  */
static void feed_copy(struct prof_bpf *b, struct prof_data *d, struct prof_proc *p,
                      const struct prof_bpf_sample *s, const uint64_t *kips, unsigned nkernel,
                      const uint64_t *walked, const uint8_t *stack,
                      const struct prof_bpf_copy_tail *t)
{
  static uint64_t uips[GORC_PROF_MAX_DEPTH];
  /* the frames above the one it stopped at, which the walk on gives again */
  unsigned above = t->nwalked - 1, nuser = t->nwalked, more = 0;
  int32_t end = PROF_WALK_COMPLETE;
  int8_t bpf_end;
  d->stack_bytes += t->stack_bytes;
  memcpy(uips, walked, t->nwalked * sizeof *uips);
  cut_remapped(b, (pid_t)s->pid, s->time, uips, &nuser, &end);
  if (nuser < t->nwalked) {   /* walked through a mapping replaced since */
    prof_proc_add_sample(p, s->time, PROF_BPF_TID(s->tid_end), end, kips, nkernel, uips, nuser);
    return;
  }
  int rc = rewalk(b, p, t, stack, uips + above, GORC_PROF_MAX_DEPTH - above, &more, &bpf_end);
  if (rc == 0) {
    end = profile_end(bpf_end);
  } else {
    struct gorc_perf_regs regs = { t->regs.ip, t->regs.sp, t->regs.bp, t->regs.bx, 0 };
    end = prof_unwind_from(&p->space, &regs, t->known, stack, t->stack_bytes, uips + above,
                           GORC_PROF_MAX_DEPTH - above, &more);
    /* (the test hooks: the stack is shown, marked as not walked in the kernel) */
    if (rc < 0 && !unwind_here(b))
      end = PROF_WALK_NO_TABLE;
  }
  prof_proc_add_sample(p, s->time, PROF_BPF_TID(s->tid_end), end, kips, nkernel, uips,
                       above + more);
}

void prof_bpf_feed(struct prof_bpf *b, struct prof_data *d, const void *rec, size_t len)
{
  struct prof_bpf_sample s;
  if (len < sizeof s || (len - sizeof s) % 8 != 0)
    return;
  memcpy(&s, rec, sizeof s);
  const uint64_t *ips = (const uint64_t *)((const uint8_t *)rec + sizeof s);
  size_t n = (len - sizeof s) / 8, nkernel = 0;
  while (nkernel < n && nkernel < PROF_BPF_MAX_KERNEL && PROF_BPF_KERNEL_ADDR(ips[nkernel]))
    nkernel++;
  struct prof_proc *p = prof_proc_of_sample(d, (pid_t)s.pid, (pid_t)PROF_BPF_TID(s.tid_end));
  /* the ring buffer's 8-byte header counts too */
  d->record_bytes += 8 + len;
  if (PROF_BPF_END(s.tid_end) == PROF_BPF_END_COPIED) {
    struct prof_bpf_copy_tail t;
    size_t rest = 8 * (n - nkernel);   /* the walked addresses, the stack, the tail */
    if (rest < sizeof t)
      return;
    memcpy(&t, (const uint8_t *)rec + len - sizeof t, sizeof t);
    if (t.nwalked >= 1 && t.nwalked <= PROF_BPF_MAX_FRAMES && t.stack_bytes <= PROF_BPF_COPY
        && 8 * (uint64_t)t.nwalked + t.stack_bytes + sizeof t == rest)
      feed_copy(b, d, p, &s, ips, (unsigned)nkernel, ips + nkernel,
                (const uint8_t *)(ips + nkernel + t.nwalked), &t);
  } else if (n > 0) {
    unsigned nuser = (unsigned)(n - nkernel);
    int32_t end = profile_end(PROF_BPF_END(s.tid_end));
    cut_remapped(b, (pid_t)s.pid, s.time, ips + nkernel, &nuser, &end);
    prof_proc_add_sample(p, s.time, PROF_BPF_TID(s.tid_end), end, ips, (unsigned)nkernel,
                         ips + nkernel, nuser);
  }
}
