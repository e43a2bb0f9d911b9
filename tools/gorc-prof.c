/* gorc-prof: a sampling profiler over libgorc.

     gorc-prof [-F HZ] [-o PREFIX] [-q] [--top=N] [--title=TEXT] [--no-svg]
               [--keep-data] -- PROGRAM [ARGS...]

   Runs PROGRAM with libgorc-preload.so preloaded and GORC_PROF_OUT set:
   every thread of it is sampled on its own CPU clock (HZ per second,
   default 1000) and each SIGPROF walked by gorc (runtime/src/prof.c).
   While it runs, a progress line (samples, threads) on stderr; at the end
   PREFIX.folded (flamegraph.pl's input: "root;...;leaf COUNT" lines),
   PREFIX.svg (a self-contained flame graph) and a summary with the
   functions most samples were in.  PREFIX defaults to PROGRAM's base name.
   Symbols come from each module's ELF .symtab (else the .symtab of its
   separate debug file by build ID under /usr/lib/debug or .gnu_debuglink,
   else .dynsym), read by the crash handler's reader (runtime/src/elfsym.c)
   once per function; C++ names are demangled.  The exit status is PROGRAM's (a
   PROGRAM killed by a signal kills gorc-prof with the same signal).

   Environment: GORC_PRELOAD (path of libgorc-preload.so; default: next to
   this program, ../runtime/ in the build tree or ../lib/ installed).  */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "elfsym.h"
#include "gorc/prof.h"
#include "prof-svg.h"

/* libstdc++'s demangler (linked with -lstdc++ for this only).  */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "gorc-prof: out of memory\n");
    exit(2);
  }
  return p;
}

static void *xrealloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (!p) {
    fprintf(stderr, "gorc-prof: out of memory\n");
    exit(2);
  }
  return p;
}

static char *xstrdup(const char *s)
{
  size_t n = strlen(s) + 1;
  return memcpy(xmalloc(n), s, n);
}

/* ------------------------------------------------------------ symbols */

/* NAME for display: a symbol version ("@@GLIBC_2.34") cut, C++ demangled.  */
static const char *demangle(const char *sym)
{
  char *name = xstrdup(sym), *at = strchr(name, '@');
  if (at && at != name)
    *at = 0;
  if (name[0] != '_' || name[1] != 'Z')
    return name;
  int status = 0;
  char *d = __cxa_demangle(name, NULL, NULL, &status);
  if (d && status == 0) {
    free(name);
    return d;
  }
  free(d);
  return name;
}

/* What the symbol reader said of a module's addresses [lo, hi) (addresses
   of its file): the extent of a sized symbol, else one address.  */
struct known {
  uint64_t lo, hi;
  const char *name;       /* NULL: no symbol */
};

struct symcache {
  struct known *v;        /* sorted by lo */
  size_t n, cap;
};

/* The entry of SC that holds REL, or NULL.  */
static const struct known *symcache_get(const struct symcache *sc, uint64_t rel)
{
  size_t lo = 0, hi = sc->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sc->v[mid].lo <= rel)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && rel < sc->v[lo - 1].hi ? &sc->v[lo - 1] : NULL;
}

static const struct known *symcache_put(struct symcache *sc, struct known k)
{
  if (sc->n == sc->cap) {
    sc->cap = sc->cap ? sc->cap * 2 : 256;
    sc->v = xrealloc(sc->v, sc->cap * sizeof *sc->v);
  }
  size_t at = sc->n;
  while (at > 0 && sc->v[at - 1].lo > k.lo)
    at--;
  memmove(&sc->v[at + 1], &sc->v[at], (sc->n - at) * sizeof *sc->v);
  sc->v[at] = k;
  sc->n++;
  return &sc->v[at];
}

/* The display name of the function at REL in the ELF file PATH (NULL: no
   symbol), read once per function (runtime/src/elfsym.c, the crash
   handler's reader) and kept in SC.  */
static const char *symbol_name(struct symcache *sc, const char *path, uint64_t rel)
{
  const struct known *k = symcache_get(sc, rel);
  if (!k) {
    static char name[4096];
    struct gorc_elfsym sym;
    struct known add = { rel, rel + 1, NULL };
    if (gorc_elfsym_find(path, rel, &sym, name, sizeof name)) {
      add.name = demangle(name);
      if (sym.size) {
        add.lo = sym.value;
        add.hi = sym.value + sym.size;
      }
    }
    k = symcache_put(sc, add);
  }
  return k->name;
}

/* ------------------------------------------------------------ data files */

struct module {
  uint64_t base, lo, hi;
  char *name;
  struct symcache syms;
};

struct sample {
  uint32_t tid;
  int32_t status;
  uint32_t n;
  size_t at;              /* index of its first ip in proc.ips */
};

struct proc {
  char *path;
  int pid;
  off_t offset;
  int magic_ok, ended;
  struct module *mods;
  size_t nmods;
  struct sample *samples;
  size_t nsamples;
  uint64_t *ips;
  size_t nips, cap_ips, cap_samples;
  uint32_t *tids;
  size_t ntids;
  uint64_t dropped, hz;
};

static struct proc *procs;
static size_t nprocs;

static void proc_add_tid(struct proc *p, uint32_t tid)
{
  for (size_t i = 0; i < p->ntids; i++)
    if (p->tids[i] == tid)
      return;
  p->tids = xrealloc(p->tids, (p->ntids + 1) * sizeof *p->tids);
  p->tids[p->ntids++] = tid;
}

static void parse_record(struct proc *p, const unsigned char *r, uint32_t len)
{
  struct gorc_prof_rec h;
  memcpy(&h, r, sizeof h);
  if (h.type == GORC_PROF_SAMPLE && len >= sizeof(struct gorc_prof_sample)) {
    struct gorc_prof_sample s;
    memcpy(&s, r, sizeof s);
    uint32_t n = (uint32_t)((len - sizeof s) / 8);
    if (p->nsamples == p->cap_samples) {
      p->cap_samples = p->cap_samples ? p->cap_samples * 2 : 1024;
      p->samples = xrealloc(p->samples, p->cap_samples * sizeof *p->samples);
    }
    while (p->nips + n > p->cap_ips) {
      p->cap_ips = p->cap_ips ? p->cap_ips * 2 : 16384;
      p->ips = xrealloc(p->ips, p->cap_ips * sizeof *p->ips);
    }
    memcpy(p->ips + p->nips, r + sizeof s, (size_t)n * 8);
    struct sample *sm = &p->samples[p->nsamples++];
    sm->tid = s.tid;
    sm->status = s.status;
    sm->n = n;
    sm->at = p->nips;
    p->nips += n;
    proc_add_tid(p, s.tid);
  } else if (h.type == GORC_PROF_MODULE && len > sizeof(struct gorc_prof_module)) {
    struct gorc_prof_module m;
    memcpy(&m, r, sizeof m);
    const char *name = (const char *)r + sizeof m;
    size_t nlen = strnlen(name, len - sizeof m);
    for (size_t i = 0; i < p->nmods; i++)
      if (p->mods[i].base == m.base && p->mods[i].lo == m.lo &&
          strncmp(p->mods[i].name, name, nlen) == 0 && p->mods[i].name[nlen] == 0)
        return;
    p->mods = xrealloc(p->mods, (p->nmods + 1) * sizeof *p->mods);
    struct module *mod = &p->mods[p->nmods++];
    mod->base = m.base;
    mod->lo = m.lo;
    mod->hi = m.hi;
    mod->name = strndup(name, nlen);
    memset(&mod->syms, 0, sizeof mod->syms);
  } else if (h.type == GORC_PROF_END && len >= sizeof(struct gorc_prof_end)) {
    struct gorc_prof_end e;
    memcpy(&e, r, sizeof e);
    p->dropped = e.dropped;
    p->hz = e.hz;
    p->ended = 1;
  }
}

/* Read what was appended to P's file since last time.  */
static void proc_poll(struct proc *p)
{
  int fd = open(p->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= p->offset) {
    close(fd);
    return;
  }
  size_t len = (size_t)(st.st_size - p->offset);
  unsigned char *buf = xmalloc(len);
  ssize_t got = pread(fd, buf, len, p->offset);
  close(fd);
  if (got <= 0) {
    free(buf);
    return;
  }
  size_t pos = 0, n = (size_t)got;
  if (!p->magic_ok) {
    if (n < 8) {
      free(buf);
      return;
    }
    if (memcmp(buf, GORC_PROF_MAGIC, 8) != 0) {
      fprintf(stderr, "gorc-prof: %s: not a gorc-prof data file\n", p->path);
      p->offset = st.st_size;
      free(buf);
      return;
    }
    p->magic_ok = 1;
    pos = 8;
  }
  while (n - pos >= sizeof(struct gorc_prof_rec)) {
    struct gorc_prof_rec h;
    memcpy(&h, buf + pos, sizeof h);
    if (h.len < sizeof h || h.len % 8) {
      fprintf(stderr, "gorc-prof: %s: corrupt record at offset %lld\n", p->path,
              (long long)(p->offset + (off_t)pos));
      pos = n;
      break;
    }
    if (h.len > n - pos)
      break;
    parse_record(p, buf + pos, h.len);
    pos += h.len;
  }
  p->offset += (off_t)pos;
  free(buf);
}

/* Find the per-process files DIR/data.PID and read what is new.  */
static void poll_dir(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (strncmp(de->d_name, "data.", 5) != 0)
      continue;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    size_t i;
    for (i = 0; i < nprocs; i++)
      if (strcmp(procs[i].path, path) == 0)
        break;
    if (i == nprocs) {
      procs = xrealloc(procs, (nprocs + 1) * sizeof *procs);
      memset(&procs[nprocs], 0, sizeof *procs);
      procs[nprocs].path = xstrdup(path);
      procs[nprocs].pid = atoi(de->d_name + 5);
      nprocs++;
    }
  }
  closedir(d);
  for (size_t i = 0; i < nprocs; i++)
    proc_poll(&procs[i]);
}

static void totals(size_t *samples, size_t *threads)
{
  *samples = *threads = 0;
  for (size_t i = 0; i < nprocs; i++) {
    *samples += procs[i].nsamples;
    *threads += procs[i].ntids;
  }
}

/* ------------------------------------------------------------ folding */

static const char *frame_name(struct proc *p, uint64_t pc, char *tmp, size_t tmplen)
{
  for (size_t i = 0; i < p->nmods; i++) {
    struct module *m = &p->mods[i];
    if (pc < m->lo || pc >= m->hi)
      continue;
    const char *name = symbol_name(&m->syms, m->name, pc - m->base);
    if (name)
      return name;
    const char *base = strrchr(m->name, '/');
    snprintf(tmp, tmplen, "[%s]", base ? base + 1 : m->name);
    return tmp;
  }
  return "[unknown]";
}

struct folded {
  char *stack;
  uint64_t count;
};

static struct folded *ftab;
static size_t fcap, fcount;

static uint64_t hash_str(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
  return h;
}

static void fold_add(const char *stack)
{
  if (fcount * 2 >= fcap) {
    size_t ncap = fcap ? fcap * 2 : 4096;
    struct folded *n = calloc(ncap, sizeof *n);
    if (!n) {
      fprintf(stderr, "gorc-prof: out of memory\n");
      exit(2);
    }
    for (size_t i = 0; i < fcap; i++)
      if (ftab[i].stack) {
        size_t j = hash_str(ftab[i].stack) & (ncap - 1);
        while (n[j].stack)
          j = (j + 1) & (ncap - 1);
        n[j] = ftab[i];
      }
    free(ftab);
    ftab = n;
    fcap = ncap;
  }
  size_t j = hash_str(stack) & (fcap - 1);
  while (ftab[j].stack && strcmp(ftab[j].stack, stack) != 0)
    j = (j + 1) & (fcap - 1);
  if (!ftab[j].stack) {
    ftab[j].stack = xstrdup(stack);
    fcount++;
  }
  ftab[j].count++;
}

/* Append NAME to the stack text, with ';' (the separator) replaced.  */
static void append_frame(char **buf, size_t *len, size_t *cap, const char *name)
{
  size_t n = strlen(name);
  while (*len + n + 2 > *cap) {
    *cap = *cap ? *cap * 2 : 1024;
    *buf = xrealloc(*buf, *cap);
  }
  if (*len)
    (*buf)[(*len)++] = ';';
  for (size_t i = 0; i < n; i++)
    (*buf)[(*len)++] = name[i] == ';' ? ':' : name[i];
  (*buf)[*len] = 0;
}

static uint64_t n_truncated, n_deep;

static void fold_all(void)
{
  char *buf = NULL;
  size_t cap = 0;
  char tmp[512];
  for (size_t i = 0; i < nprocs; i++) {
    struct proc *p = &procs[i];
    for (size_t k = 0; k < p->nsamples; k++) {
      struct sample *s = &p->samples[k];
      size_t len = 0;
      if (buf)
        buf[0] = 0;
      /* a stack cut short gets a root of its own in the flame graph */
      if (s->status < 0) {
        append_frame(&buf, &len, &cap, "[truncated]");
        n_truncated++;
      } else if (s->status > 0) {
        append_frame(&buf, &len, &cap, "[deeper]");
        n_deep++;
      }
      if (s->n == 0)
        append_frame(&buf, &len, &cap, "[unknown]");
      for (uint32_t f = s->n; f-- > 0;) {
        uint64_t ip = p->ips[s->at + f];
        const char *name = frame_name(p, f == 0 ? ip : ip - 1, tmp, sizeof tmp);
        /* the thread-start trampoline of libgorc-preload.so is not the program's */
        if (strcmp(name, "prof_thread") == 0 && f > 0)
          continue;
        append_frame(&buf, &len, &cap, name);
      }
      fold_add(buf);
    }
  }
  free(buf);
}

static int folded_cmp(const void *a, const void *b)
{
  const struct folded *x = a, *y = b;
  return strcmp(x->stack, y->stack);
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f)
{
  fprintf(f, "usage: gorc-prof [-F HZ] [-o PREFIX] [-q] [--top=N] [--title=TEXT] [--no-svg]\n"
             "                 [--keep-data] -- PROGRAM [ARGS...]\n");
}

static char *find_preload(void)
{
  const char *env = getenv("GORC_PRELOAD");
  if (env && *env)
    return xstrdup(env);
  char self[PATH_MAX];
  ssize_t r = readlink("/proc/self/exe", self, sizeof self - 1);
  if (r > 0) {
    self[r] = 0;
    char *slash = strrchr(self, '/');
    if (slash)
      *slash = 0;
    static const char *const rel[] = { "../runtime/libgorc-preload.so",
                                       "../lib/libgorc-preload.so" };
    for (unsigned i = 0; i < sizeof rel / sizeof rel[0]; i++) {
      char path[PATH_MAX + 64];
      snprintf(path, sizeof path, "%s/%s", self, rel[i]);
      char *real = realpath(path, NULL);
      if (real)
        return real;
    }
  }
  return NULL;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void rm_dir(const char *dir)
{
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *de;
    char path[PATH_MAX];
    while ((de = readdir(d)))
      if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(dir);
}

struct selfcount {
  const char *name;
  uint64_t count;
};

static int selfcount_cmp(const void *a, const void *b)
{
  const struct selfcount *x = a, *y = b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
  long hz = 1000;
  const char *prefix = NULL, *title = NULL;
  int quiet = 0, svg = 1, keep = 0, top = 5;
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (a[0] != '-')
      break;
    if (strcmp(a, "-F") == 0 && i + 1 < argc)
      hz = strtol(argv[++i], NULL, 10);
    else if (strncmp(a, "--freq=", 7) == 0)
      hz = strtol(a + 7, NULL, 10);
    else if (strcmp(a, "-o") == 0 && i + 1 < argc)
      prefix = argv[++i];
    else if (strncmp(a, "--output=", 9) == 0)
      prefix = a + 9;
    else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
      quiet = 1;
    else if (strcmp(a, "--no-svg") == 0)
      svg = 0;
    else if (strcmp(a, "--keep-data") == 0)
      keep = 1;
    else if (strncmp(a, "--top=", 6) == 0)
      top = atoi(a + 6);
    else if (strncmp(a, "--title=", 8) == 0)
      title = a + 8;
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "gorc-prof: unknown option %s\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  if (hz < 1 || hz > 100000) {
    fprintf(stderr, "gorc-prof: -F wants 1..100000 samples per second\n");
    return 2;
  }
  char **cmd = argv + i;
  char *preload = find_preload();
  if (!preload) {
    fprintf(stderr, "gorc-prof: libgorc-preload.so not found (set GORC_PRELOAD)\n");
    return 2;
  }
  char defprefix[PATH_MAX];
  if (!prefix) {
    const char *b = strrchr(cmd[0], '/');
    snprintf(defprefix, sizeof defprefix, "%s", b ? b + 1 : cmd[0]);
    prefix = defprefix;
  }
  const char *tmpdir = getenv("TMPDIR");
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/gorc-prof.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "gorc-prof: cannot create a directory in %s: %s\n",
            tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    return 2;
  }
  sigset_t chld, oldmask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &oldmask);
  double t0 = now();
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "gorc-prof: fork: %s\n", strerror(errno));
    rm_dir(dir);
    return 2;
  }
  if (child == 0) {
    char out[PATH_MAX + 16], hzs[32];
    snprintf(out, sizeof out, "%s/data", dir);
    snprintf(hzs, sizeof hzs, "%ld", hz);
    const char *old = getenv("LD_PRELOAD");
    char *pre = xmalloc(strlen(preload) + (old ? strlen(old) : 0) + 2);
    sprintf(pre, "%s%s%s", preload, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_PRELOAD", pre, 1);
    setenv("GORC_PROF_OUT", out, 1);
    setenv("GORC_PROF_HZ", hzs, 1);
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    execvp(cmd[0], cmd);
    fprintf(stderr, "gorc-prof: cannot run %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  /* Like time(1): ^C and ^\ go to the program; gorc-prof writes what it has.  */
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);

  int tty = isatty(STDERR_FILENO), status = 0;
  struct rusage usage;
  memset(&usage, 0, sizeof usage);
  double last_line = t0;
  for (;;) {
    pid_t w = wait4(child, &status, WNOHANG, &usage);
    if (w == child)
      break;
    if (w < 0 && errno != EINTR) {
      fprintf(stderr, "gorc-prof: waitpid: %s\n", strerror(errno));
      break;
    }
    /* wake up at once when the program exits */
    struct timespec ts = { 0, 200 * 1000 * 1000 };
    sigtimedwait(&chld, NULL, &ts);
    poll_dir(dir);
    double t = now();
    size_t ns, nt;
    totals(&ns, &nt);
    if (!quiet && tty) {
      fprintf(stderr, "\rgorc-prof: %zu samples, %zu threads, %.1f s\033[K", ns, nt, t - t0);
    } else if (!quiet && t - last_line >= 5.0) {
      fprintf(stderr, "gorc-prof: %zu samples, %zu threads, %.1f s\n", ns, nt, t - t0);
      last_line = t;
    }
  }
  double elapsed = now() - t0;
  poll_dir(dir);
  if (!quiet && tty)
    fprintf(stderr, "\r\033[K");

  size_t ns, nt;
  totals(&ns, &nt);
  uint64_t dropped = 0;
  int ended = 0;
  for (size_t k = 0; k < nprocs; k++) {
    dropped += procs[k].dropped;
    ended += procs[k].ended;
  }
  fold_all();
  struct folded *list = xmalloc((fcount ? fcount : 1) * sizeof *list);
  size_t nl = 0;
  for (size_t k = 0; k < fcap; k++)
    if (ftab[k].stack)
      list[nl++] = ftab[k];
  qsort(list, nl, sizeof *list, folded_cmp);

  int rc_files = 0;
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s.folded", prefix);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "gorc-prof: cannot write %s: %s\n", path, strerror(errno));
    rc_files = 1;
  } else {
    for (size_t k = 0; k < nl; k++)
      fprintf(f, "%s %llu\n", list[k].stack, (unsigned long long)list[k].count);
    if (fclose(f) != 0)
      rc_files = 1;
  }
  char svgpath[PATH_MAX + 16];
  snprintf(svgpath, sizeof svgpath, "%s.svg", prefix);
  if (svg) {
    char deftitle[PATH_MAX + 64];
    if (!title) {
      const char *b = strrchr(cmd[0], '/');
      snprintf(deftitle, sizeof deftitle, "gorc-prof: %s", b ? b + 1 : cmd[0]);
      title = deftitle;
    }
    struct svg_stack *ss = xmalloc((nl ? nl : 1) * sizeof *ss);
    for (size_t k = 0; k < nl; k++) {
      ss[k].stack = list[k].stack;
      ss[k].count = list[k].count;
    }
    if (svg_write(svgpath, title, ss, nl) != 0) {
      fprintf(stderr, "gorc-prof: cannot write %s: %s\n", svgpath, strerror(errno));
      rc_files = 1;
    }
    free(ss);
  }

  if (!quiet) {
    double cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
                 (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    fprintf(stderr, "gorc-prof: %zu samples, %zu threads, %zu process%s, %.2f s, %.2f s CPU; "
            "%llu dropped, %llu walks stopped early, %llu deeper than %d frames\n",
            ns, nt, nprocs, nprocs == 1 ? "" : "es", elapsed, cpu,
            (unsigned long long)dropped, (unsigned long long)n_truncated,
            (unsigned long long)n_deep, GORC_PROF_MAX_DEPTH);
    if (cpu > 0.2)
      fprintf(stderr, "gorc-prof: %.0f samples per CPU second at -F %ld (CPU-time timers "
              "fire on the kernel tick: at most its HZ per thread)\n", (double)ns / cpu, hz);
    if (nprocs > (size_t)ended)
      fprintf(stderr, "gorc-prof: %zu process%s ended without exit handlers (_exit, exec "
              "or a signal): up to 10 ms of samples may be missing\n", nprocs - (size_t)ended,
              nprocs - (size_t)ended == 1 ? "" : "es");
    if (nprocs == 0)
      fprintf(stderr, "gorc-prof: no samples: the program was not profiled (a static "
              "or setuid program ignores LD_PRELOAD)\n");
    /* self samples per leaf function */
    if (top > 0 && nl > 0) {
      struct selfcount *sc = xmalloc(nl * sizeof *sc);
      size_t nsc = 0;
      for (size_t k = 0; k < nl; k++) {
        const char *leaf = strrchr(list[k].stack, ';');
        leaf = leaf ? leaf + 1 : list[k].stack;
        size_t j;
        for (j = 0; j < nsc; j++)
          if (strcmp(sc[j].name, leaf) == 0)
            break;
        if (j == nsc) {
          sc[nsc].name = leaf;
          sc[nsc++].count = 0;
        }
        sc[j].count += list[k].count;
      }
      qsort(sc, nsc, sizeof *sc, selfcount_cmp);
      fprintf(stderr, "gorc-prof: most samples in:\n");
      for (size_t k = 0; k < nsc && k < (size_t)top; k++)
        fprintf(stderr, "  %5.1f%%  %8llu  %s\n", 100.0 * sc[k].count / (ns ? ns : 1),
                (unsigned long long)sc[k].count, sc[k].name);
      free(sc);
    }
    fprintf(stderr, "gorc-prof: wrote %s.folded%s%s\n", prefix, svg ? ", " : "",
            svg ? svgpath : "");
  }
  if (keep)
    fprintf(stderr, "gorc-prof: data kept in %s\n", dir);
  else
    rm_dir(dir);

  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit nocore = { 0, 0 };
    setrlimit(RLIMIT_CORE, &nocore);
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status) ? WEXITSTATUS(status) : rc_files;
  return 1;
}
