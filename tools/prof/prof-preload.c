/* gorc-prof --preload (see prof-preload.h).  */

#define _GNU_SOURCE
#include "prof-preload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gorc/prof.h"

static void parse_sample(struct prof_proc *p, const unsigned char *r, uint32_t len)
{
  struct gorc_prof_sample s;
  memcpy(&s, r, sizeof s);
  uint32_t n = (uint32_t)((len - sizeof s) / 8);
  uint64_t *ips = prof_xmalloc((size_t)n * 8);
  memcpy(ips, r + sizeof s, (size_t)n * 8);
  /* libgorc's -GORC_E* (a walk that stopped) shows as truncated */
  int32_t end = s.status < 0 ? PROF_WALK_TRUNCATED
                : s.status > 0 ? PROF_WALK_DEEPER : PROF_WALK_COMPLETE;
  prof_proc_add_sample(p, 0, s.tid, end, NULL, 0, ips, n);
  free(ips);
}

static void parse_record(struct prof_data *d, struct prof_proc *p, const unsigned char *r,
                         uint32_t len)
{
  struct gorc_prof_rec h;
  memcpy(&h, r, sizeof h);
  if (h.type == GORC_PROF_SAMPLE && len >= sizeof(struct gorc_prof_sample)) {
    parse_sample(p, r, len);
  } else if (h.type == GORC_PROF_MODULE && len > sizeof(struct gorc_prof_module)) {
    struct gorc_prof_module m;
    memcpy(&m, r, sizeof m);
    const char *name = (const char *)r + sizeof m;
    char *nm = strndup(name, strnlen(name, len - sizeof m));
    if (nm)
      prof_proc_add_span(p, m.base, m.lo, m.hi, nm, NULL, 0);
    free(nm);
  } else if (h.type == GORC_PROF_END && len >= sizeof(struct gorc_prof_end)) {
    struct gorc_prof_end e;
    memcpy(&e, r, sizeof e);
    d->lost += e.dropped;
    p->ended = 1;
  }
}

/* Read what was appended to P's file since last time.  */
static void proc_poll(struct prof_data *d, struct prof_proc *p)
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
  unsigned char *buf = prof_xmalloc(len);
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
    parse_record(d, p, buf + pos, h.len);
    pos += h.len;
  }
  p->offset += (off_t)pos;
  free(buf);
}

/* Find the per-process files DIR/data.PID and read what is new.  */
static void poll_dir(struct prof_data *d, const char *dir)
{
  DIR *dd = opendir(dir);
  if (!dd)
    return;
  struct dirent *de;
  while ((de = readdir(dd))) {
    if (strncmp(de->d_name, "data.", 5) != 0)
      continue;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    size_t i;
    for (i = 0; i < d->nprocs; i++)
      if (d->procs[i].path && strcmp(d->procs[i].path, path) == 0)
        break;
    if (i == d->nprocs) {
      d->procs = prof_xgrow(d->procs, &d->cap_procs, d->nprocs + 1, sizeof *d->procs, 16,
                            SIZE_MAX);
      memset(&d->procs[d->nprocs], 0, sizeof *d->procs);
      d->procs[d->nprocs].path = prof_xstrdup(path);
      d->procs[d->nprocs].pid = atoi(de->d_name + 5);
      d->nprocs++;
    }
  }
  closedir(dd);
  for (size_t i = 0; i < d->nprocs; i++)
    proc_poll(d, &d->procs[i]);
}

static char *find_preload(void)
{
  const char *env = getenv("GORC_PRELOAD");
  if (env && *env)
    return prof_xstrdup(env);
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

static void exec_preloaded(char **cmd, const char *preload, const char *dir, long hz,
                           const sigset_t *mask)
{
  char out[PATH_MAX + 16], hzs[32];
  snprintf(out, sizeof out, "%s/data", dir);
  snprintf(hzs, sizeof hzs, "%ld", hz);
  const char *old = getenv("LD_PRELOAD");
  char *pre = prof_xmalloc(strlen(preload) + (old ? strlen(old) : 0) + 2);
  sprintf(pre, "%s%s%s", preload, old && *old ? ":" : "", old && *old ? old : "");
  setenv("LD_PRELOAD", pre, 1);
  setenv("GORC_PROF_OUT", out, 1);
  setenv("GORC_PROF_HZ", hzs, 1);
  sigprocmask(SIG_SETMASK, mask, NULL);
  execvp(cmd[0], cmd);
  fprintf(stderr, "gorc-prof: cannot run %s: %s\n", cmd[0], strerror(errno));
  _exit(127);
}

/* Read the data files while the program runs.  */
static void wait_program(const struct prof_preload_opts *o, struct prof_data *d, pid_t child,
                         const char *dir, const sigset_t *chld, int *status,
                         struct rusage *usage)
{
  double t0 = now(), last_line = t0;
  for (;;) {
    pid_t w = wait4(child, status, WNOHANG, usage);
    if (w == child)
      break;
    if (w < 0 && errno != EINTR) {
      fprintf(stderr, "gorc-prof: waitpid: %s\n", strerror(errno));
      break;
    }
    /* wake up at once when the program exits */
    struct timespec ts = { 0, 200 * 1000 * 1000 };
    sigtimedwait(chld, NULL, &ts);
    poll_dir(d, dir);
    double t = now();
    size_t ns, nt;
    prof_data_totals(d, &ns, &nt);
    if (o->progress == 1) {
      fprintf(stderr, "\rgorc-prof: %zu samples, %zu threads, %.1f s\033[K", ns, nt, t - t0);
    } else if (o->progress == 2 && t - last_line >= 5.0) {
      fprintf(stderr, "gorc-prof: %zu samples, %zu threads, %.1f s\n", ns, nt, t - t0);
      last_line = t;
    }
  }
  poll_dir(d, dir);
  if (o->progress == 1)
    fprintf(stderr, "\r\033[K");
}

int prof_preload_run(const struct prof_preload_opts *o, struct prof_data *d, int *status,
                     double *cpu)
{
  char *preload = find_preload();
  if (!preload) {
    fprintf(stderr, "gorc-prof: libgorc-preload.so not found (set GORC_PRELOAD)\n");
    return 2;
  }
  const char *tmpdir = getenv("TMPDIR");
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/gorc-prof.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "gorc-prof: cannot create a directory in %s: %s\n",
            tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    free(preload);
    return 2;
  }
  d->hz = (uint64_t)o->hz;
  sigset_t chld, oldmask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &oldmask);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "gorc-prof: fork: %s\n", strerror(errno));
    rm_dir(dir);
    free(preload);
    return 2;
  }
  if (child == 0)
    exec_preloaded(o->cmd, preload, dir, o->hz, &oldmask);
  free(preload);
  /* Like time(1): ^C and ^\ go to the program; gorc-prof writes what it has.  */
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  struct rusage usage;
  memset(&usage, 0, sizeof usage);
  wait_program(o, d, child, dir, &chld, status, &usage);
  *cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  if (o->keep)
    fprintf(stderr, "gorc-prof: data kept in %s\n", dir);
  else
    rm_dir(dir);
  return 0;
}
