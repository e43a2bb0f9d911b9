/* gorc-prof --unwind=bpf: the walker's tables kept on disk across runs
   (see prof-cache.h).  */

#define _GNU_SOURCE
#include "prof-cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gorc/elf_symbols.h"
#include "prof-bpf.h"
#include "prof-data.h"

/* ---- where ---- */

/* The cache's directory, or NULL: none.  */
static const char *cache_dir(void)
{
  static int known;
  static char dir[4096];
  if (known)
    return dir[0] ? dir : NULL;
  known = 1;
  const char *env = getenv("GORC_PROF_CACHE"), *base = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (env)
    snprintf(dir, sizeof dir, "%s", strcmp(env, "off") == 0 ? "" : env);
  else if (base && base[0] == '/')
    snprintf(dir, sizeof dir, "%s/gorc/prof-tables", base);
  else if (home && home[0] == '/')
    snprintf(dir, sizeof dir, "%s/.cache/gorc/prof-tables", home);
  return dir[0] ? dir : NULL;
}

/* DIR and the directories above it made where missing (mode 0700): 0,
   or -1 with errno.  */
static int make_dirs(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
      *p = '/';
    }
  return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The N bytes at P as 2N hex digits and a NUL into OUT.  */
static void hex(const uint8_t *p, size_t n, char *out)
{
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  out[2 * n] = 0;
}

/* The file of the module whose build ID is ID and size SIZE, into PATH:
   0, or -1 when there is no cache (or no build ID).  */
static int file_path(const uint8_t *id, size_t idlen, uint64_t size, char *path, size_t pathlen)
{
  const char *dir = cache_dir();
  char idhex[2 * PROF_CACHE_ID_MAX + 1];
  if (!dir || idlen == 0 || idlen > PROF_CACHE_ID_MAX)
    return -1;
  hex(id, idlen, idhex);
  int n = snprintf(path, pathlen, "%s/%s-%llu.table", dir, idhex, (unsigned long long)size);
  return n > 0 && (size_t)n < pathlen ? 0 : -1;
}

/* ---- what wrote it ---- */

static int find_own_id(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct gorc_es_build_id *b = arg;
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    struct gorc_elf_note n;
    size_t pos = 0;
    if (ph->p_type != PT_NOTE)
      continue;
    while (gorc_es_note_next((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz, &pos,
                             &n))
      if (n.type == NT_GNU_BUILD_ID && n.namesz == 4 && memcmp(n.name, "GNU", 4) == 0
          && n.descsz <= PROF_CACHE_ID_MAX) {
        memcpy(b->id, n.desc, n.descsz);
        b->len = n.descsz;
      }
  }
  return 1;                   /* the program is the first object: no more */
}

/* gorc-prof's own build ID (0 bytes where it has none: then nothing is
   kept, a table being only as good as the code that built it).  */
static const struct gorc_es_build_id *own_id(void)
{
  static struct gorc_es_build_id b;
  static int known;
  if (!known) {
    known = 1;
    dl_iterate_phdr(find_own_id, &b);
  }
  return &b;
}

const char *prof_own_build_id_hex(void)
{
  static char own[2 * PROF_CACHE_ID_MAX + 1];
  if (!own[0])
    hex(own_id()->id, own_id()->len, own);
  return own;
}

/* ---- the file ---- */

/* FNV-1a's step over 8-byte words, each product folded (else a word's
   high bits would reach only the sum's), then over the last bytes: a
   byte at a time it was 3% of a warm start's CPU (libc's table, 240 KB).  */
static uint64_t check_sum(const uint8_t *p, size_t n)
{
  uint64_t h = 14695981039346656037u, word;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&word, p + i, 8);
    h = (h ^ word) * 1099511628211u;
    h ^= h >> 32;
  }
  for (; i < n; i++)
    h = (h ^ p[i]) * 1099511628211u;
  return h;
}

/* The offset of the blocks in a file of header H.  */
static size_t blocks_at(const struct prof_cache_header *h)
{
  return sizeof *h + (size_t)h->nstates * sizeof(struct gorc_state);
}

/* What is wrong with the file BUF (LEN bytes) as a table written by this
   gorc-prof, or NULL; *STALE: written by another gorc-prof (nothing
   wrong, not used).  Its blocks' count into *NBLOCKS.  */
static const char *check_file(const uint8_t *buf, size_t len, int *stale, uint32_t *nblocks)
{
  struct prof_cache_header h;
  const struct gorc_es_build_id *own = own_id();
  uint32_t depth, first[PROF_BPF_MAX_LEVELS + 1];
  *stale = 0;
  if (len < sizeof h + 8)
    return "shorter than its header";
  memcpy(&h, buf, sizeof h);
  if (memcmp(h.magic, PROF_CACHE_MAGIC, sizeof h.magic - 1) != 0)
    return "not a table cache file";
  if (h.magic[sizeof h.magic - 1] != PROF_CACHE_MAGIC[sizeof h.magic - 1]
      || h.producer_len != own->len || memcmp(h.producer, own->id, own->len) != 0) {
    *stale = 1;
    return NULL;
  }
  if (h.nstates > PROF_BPF_STATE_NO_TABLE || prof_bpf_tree(h.nleaves, &depth, first) != 0)
    return "its header counts no table";
  *nblocks = first[depth] + h.nleaves;
  if (blocks_at(&h) + (uint64_t)*nblocks * sizeof(struct prof_bpf_block) + 8 != len)
    return "its size is not what its header counts";
  uint64_t check;
  memcpy(&check, buf + len - 8, 8);
  /* (the sum is the blocks' check: a row's state id past the table's
     own finds no id in the walker, the ids' padding or no block, and
     ends the walk as a frame without unwind information) */
  return check != check_sum(buf, len - 8) ? "its check sum differs" : NULL;
}

int prof_cache_load(const uint8_t *id, size_t idlen, uint64_t size, struct prof_cache_table *t)
{
  char path[4200];
  struct stat st;
  struct prof_cache_header h;
  uint32_t nblocks = 0;
  int stale;
  memset(t, 0, sizeof *t);
  if (own_id()->len == 0 || file_path(id, idlen, size, path, sizeof path) != 0)
    return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  uint8_t *buf = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (64 << 20)
                     ? prof_read_whole(fd, (size_t)st.st_size) : NULL;
  const char *wrong = buf ? check_file(buf, (size_t)st.st_size, &stale, &nblocks)
                          : "cannot be read";
  if (wrong || stale) {
    if (wrong)
      fprintf(stderr, "gorc-prof: cached table %s: %s: built again\n", path, wrong);
    free(buf);
    close(fd);
    return 0;
  }
  futimens(fd, NULL);         /* used now: the last to go */
  close(fd);
  memcpy(&h, buf, sizeof h);
  t->nstates = h.nstates;
  t->nrows = h.nrows;
  t->nleaves = h.nleaves;
  t->nblocks = nblocks;
  /* the blocks used where they were read (libc's are 110 KB); the few
     states copied, as they lie unaligned after the header.  (Read, not
     mapped: a file cut short under a mapping would be a SIGBUS.)  */
  t->states = prof_xmalloc((h.nstates ? h.nstates : 1) * sizeof *t->states);
  memcpy(t->states, buf + sizeof h, h.nstates * sizeof *t->states);
  _Static_assert(sizeof h % _Alignof(struct prof_bpf_block) == 0
                     && sizeof(struct gorc_state) % _Alignof(struct prof_bpf_block) == 0,
                 "the blocks lie aligned in the buffer");
  t->blocks = (const struct prof_bpf_block *)(buf + blocks_at(&h));
  t->file = buf;
  return 1;
}

/* ---- keeping ---- */

struct cached_file {
  char name[256];
  struct timespec used;
};

static int older_first(const void *x, const void *y)
{
  const struct cached_file *a = x, *b = y;
  if (a->used.tv_sec != b->used.tv_sec)
    return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
  return (a->used.tv_nsec > b->used.tv_nsec) - (a->used.tv_nsec < b->used.tv_nsec);
}

/* The files of DIR past PROF_CACHE_MAX_FILES removed, the least
   recently used first; and a run's file being written (FILE.table.PID)
   an hour old: the run was killed before it renamed it.  */
static void evict(const char *dir)
{
  DIR *d = opendir(dir);
  struct cached_file *files = NULL;
  size_t n = 0, cap = 0;
  if (!d)
    return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    struct stat st;
    size_t len = strlen(e->d_name);
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (strstr(e->d_name, ".table.") && st.st_mtime < time(NULL) - 3600) {
      unlinkat(dirfd(d), e->d_name, 0);
      continue;
    }
    if (len < 6 || len >= sizeof files->name || strcmp(e->d_name + len - 6, ".table") != 0)
      continue;
    files = prof_xgrow(files, &cap, n + 1, sizeof *files, 64, SIZE_MAX);
    memcpy(files[n].name, e->d_name, len + 1);
    files[n++].used = st.st_mtim;
  }
  if (n > PROF_CACHE_MAX_FILES) {
    prof_sort(files, n, sizeof *files, older_first);
    for (size_t i = 0; i < n - PROF_CACHE_MAX_FILES; i++)
      unlinkat(dirfd(d), files[i].name, 0);
  }
  closedir(d);
  free(files);
}

/* The file T makes, into BUF (prof_xmalloc'd): its length.  */
static size_t file_bytes(const struct prof_cache_table *t, uint8_t **out)
{
  const struct gorc_es_build_id *own = own_id();
  struct prof_cache_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, PROF_CACHE_MAGIC, sizeof h.magic);
  h.nstates = t->nstates;
  h.nrows = t->nrows;
  h.nleaves = t->nleaves;
  h.producer_len = own->len;
  memcpy(h.producer, own->id, own->len);
  size_t states = t->nstates * sizeof *t->states, blocks = t->nblocks * sizeof *t->blocks;
  size_t len = sizeof h + states + blocks + 8;
  uint8_t *buf = prof_xmalloc(len);
  memcpy(buf, &h, sizeof h);
  memcpy(buf + sizeof h, t->states, states);
  memcpy(buf + sizeof h + states, t->blocks, blocks);
  uint64_t check = check_sum(buf, len - 8);
  memcpy(buf + len - 8, &check, 8);
  *out = buf;
  return len;
}

void prof_cache_store(const uint8_t *id, size_t idlen, uint64_t size,
                      const struct prof_cache_table *t)
{
  static int told;
  char path[4200], tmp[4300];
  uint8_t *buf;
  if (own_id()->len == 0 || file_path(id, idlen, size, path, sizeof path) != 0)
    return;
  size_t len = file_bytes(t, &buf);
  snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
  int fd = make_dirs(cache_dir()) == 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)
                                       : -1;
  ssize_t wrote = fd >= 0 ? write(fd, buf, len) : -1;
  int ok = wrote == (ssize_t)len, err = wrote >= 0 ? ENOSPC : errno;   /* (short: full) */
  if (fd >= 0 && close(fd) != 0)
    ok = 0;
  if (ok && rename(tmp, path) != 0) {
    err = errno;
    ok = 0;
  }
  if (!ok) {
    if (fd >= 0)
      unlink(tmp);
    if (!told++)
      fprintf(stderr, "gorc-prof: table cache %s: %s: tables are not kept (GORC_PROF_CACHE=off "
              "to say none)\n", cache_dir(), strerror(err));
  }
  free(buf);
  if (ok)
    evict(cache_dir());
}

void prof_cache_free(struct prof_cache_table *t)
{
  free(t->states);
  free(t->file);
  memset(t, 0, sizeof *t);
}
