/* gorc-prof: a sampling profiler whose stacks are unwound with gorc's
   records.

     gorc-prof [OPTIONS] -- PROGRAM [ARGS...]   start PROGRAM and profile it
     gorc-prof [OPTIONS] -p PID[,PID...]        profile running processes
     gorc-prof [OPTIONS] -a [-d SECONDS]        profile every process

   By default it samples with perf events (cpu-clock, every thread, new
   threads and child processes): each sample is the user registers and a
   copy of the user stack, unwound in gorc-prof with each module's gorc
   records (else its .eh_frame) read from the files on disk
   (prof-record.c, prof-unwind.c).  With --preload the program samples
   itself through libgorc-preload.so instead (prof-preload.c).  The steps:
   record, fold the stacks with their symbols (prof-fold.c), write
   PREFIX.folded, PREFIX.pb.gz (pprof, prof-pprof.c) and PREFIX.svg
   (prof-svg.c), print a summary.  See
   README.md, "gorc-prof", and docs/PROFILER.md.  */

#define _GNU_SOURCE
#include <errno.h>
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

#include "gorc/prof.h"
#include "prof-data.h"
#include "prof-fold.h"
#include "prof-keep.h"
#include "prof-kernel.h"
#include "prof-perfdata.h"
#include "prof-pprof.h"
#include "prof-preload.h"
#include "prof-record.h"
#include "prof-svg.h"

struct options {
  long hz;
  const char *prefix, *title;
  const char *perf_data;     /* --perf-data FILE */
  const char *stacks;        /* --stacks FILE */
  const char *keep_walker;   /* --keep-walker[=DIR]: its directory, or NULL */
  int quiet, svg, keep, top, preload, children, user_only, all;
  int unwind;                /* enum prof_unwind_mode */
  double duration, every;
  unsigned stack_size;
  pid_t *pids;
  size_t npids;
  char **cmd;
};

static void usage(FILE *f)
{
  fprintf(f, "usage: gorc-prof [-F HZ] [-o PREFIX] [-q] [-d SECONDS] [--every=SECONDS]\n"
             "                 [--unwind=bpf|copy] [--keep-walker[=DIR]] [--stack-size=BYTES]\n"
             "                 [--no-children] [--user-only] [--top=N] [--title=TEXT] [--no-svg]\n"
             "                 [--stacks=FILE]\n"
             "                 (-a | -p PID[,PID...] | --perf-data FILE | -- PROGRAM [ARGS...])\n"
             "       gorc-prof --preload [-F HZ] [-o PREFIX] [--keep-data] ... -- PROGRAM [ARGS...]\n");
}

static int parse_pids(struct options *o, const char *list)
{
  const char *p = list;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || v <= 0 || v > INT_MAX || errno || (*end && *end != ',')) {
      fprintf(stderr, "gorc-prof: -p wants process ids separated by commas, not '%s'\n", list);
      return -1;
    }
    o->pids = prof_xrealloc(o->pids, (o->npids + 1) * sizeof *o->pids);
    o->pids[o->npids++] = (pid_t)v;
    p = *end ? end + 1 : end;
  }
  return 0;
}

/* V, all of it a number of seconds from LO to HI, into *OUT: 0, or -1
   after a message saying what OPT WANTS (strtod took "-1" and "abc"
   for 0: for -d, a recording that never ended).  */
static int parse_seconds(const char *opt, const char *wants, const char *v, double lo, double hi,
                         double *out)
{
  char *end;
  double t = strtod(v, &end);
  if (end == v || *end || !(t >= lo && t <= hi)) {
    fprintf(stderr, "gorc-prof: %s wants %s, not '%s'\n", opt, wants, v);
    return -1;
  }
  *out = t;
  return 0;
}

/* V, all of it a whole number from LO to HI and a multiple of MULTIPLE,
   into *OUT: 0, or -1 after a message saying what OPT WANTS (strtol and
   atoi took "10x" for 10, "abc" for 0).  */
static int parse_whole(const char *opt, const char *wants, const char *v, long lo, long hi,
                       long multiple, long *out)
{
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (end == v || *end || errno || n < lo || n > hi || n % multiple) {
    fprintf(stderr, "gorc-prof: %s wants %s, not '%s'\n", opt, wants, v);
    return -1;
  }
  *out = n;
  return 0;
}

static int parse_unwind(struct options *o, const char *v)
{
  if (strcmp(v, "bpf") == 0)
    o->unwind = PROF_UNWIND_BPF;
  else if (strcmp(v, "copy") == 0)
    o->unwind = PROF_UNWIND_COPY;
  else {
    fprintf(stderr, "gorc-prof: --unwind wants bpf (in the kernel) or copy (a copy of each "
            "sample's stack), not '%s'\n", v);
    return -1;
  }
  return 0;
}

/* VALUE of option NAME: "-x V", "--name=V" or "--name V".  */
static const char *opt_value(int argc, char **argv, int *i, const char *shortopt,
                             const char *longopt)
{
  const char *a = argv[*i];
  size_t n = strlen(longopt);
  if ((shortopt && strcmp(a, shortopt) == 0) || strcmp(a, longopt) == 0)
    return *i + 1 < argc ? argv[++*i] : NULL;
  if (strncmp(a, longopt, n) == 0 && a[n] == '=')
    return a + n + 1;
  return NULL;
}

static int parse_option(struct options *o, int argc, char **argv, int *i)
{
  const char *a = argv[*i], *v;
  long n;
  if ((v = opt_value(argc, argv, i, "-F", "--freq"))) {
    if (parse_whole("-F", "1..100000 samples per second", v, 1, 100000, 1, &n) != 0)
      return -1;
    o->hz = n;
  } else if ((v = opt_value(argc, argv, i, "-o", "--output")))
    o->prefix = v;
  else if ((v = opt_value(argc, argv, i, "-p", "--pid")))
    return parse_pids(o, v);
  else if ((v = opt_value(argc, argv, i, "-d", "--duration")))
    /* (above 0: from the least double above it) */
    return parse_seconds("-d", "seconds above 0 (a year at most)", v, 0x1p-1074, 366 * 86400.0,
                         &o->duration);
  else if ((v = opt_value(argc, argv, i, NULL, "--every")))
    return parse_seconds("--every", "seconds from 0.1 to 86400", v, 0.1, 86400, &o->every);
  else if ((v = opt_value(argc, argv, i, NULL, "--stack-size"))) {
    if (parse_whole("--stack-size", "a multiple of 8 from 8 to 65528", v, 8, 65528, 8, &n) != 0)
      return -1;
    o->stack_size = (unsigned)n;
  } else if ((v = opt_value(argc, argv, i, NULL, "--unwind")))
    return parse_unwind(o, v);
  else if ((v = opt_value(argc, argv, i, NULL, "--perf-data")))
    o->perf_data = v;
  else if ((v = opt_value(argc, argv, i, NULL, "--stacks")))
    o->stacks = v;
  else if ((v = opt_value(argc, argv, i, NULL, "--top"))) {
    if (parse_whole("--top", "a number of functions from 0 to 1000", v, 0, 1000, 1, &n) != 0)
      return -1;
    o->top = (int)n;
  } else if ((v = opt_value(argc, argv, i, NULL, "--title")))
    o->title = v;
  else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
    o->quiet = 1;
  else if (strcmp(a, "--no-svg") == 0)
    o->svg = 0;
  else if (strcmp(a, "--keep-data") == 0)
    o->keep = 1;
  else if (strcmp(a, "--preload") == 0)
    o->preload = 1;
  else if (strcmp(a, "--no-children") == 0)
    o->children = 0;
  else if (strcmp(a, "--user-only") == 0)
    o->user_only = 1;
  else if (strcmp(a, "-a") == 0 || strcmp(a, "--all") == 0)
    o->all = 1;
  else if (strcmp(a, "--keep-walker") == 0)
    o->keep_walker = PROF_KEEP_DIR;
  else if (strncmp(a, "--keep-walker=", 14) == 0) {
    if (!a[14]) {
      fprintf(stderr, "gorc-prof: --keep-walker= wants a directory in a BPF file system\n");
      return -1;
    }
    o->keep_walker = a + 14;
  }
  else {
    fprintf(stderr, "gorc-prof: unknown option %s\n", a);
    return -1;
  }
  return 0;
}

/* The directory of output PATH (given as OPT), there and writable: 0,
   or -1 after a message (said before the recording, not after it).  */
static int output_dir_ok(const char *opt, const char *path)
{
  char dir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "gorc-prof: %s %s: no directory %s\n", opt, path, dir);
    return -1;
  }
  if (access(dir, W_OK) != 0) {
    fprintf(stderr, "gorc-prof: %s %s: cannot write into %s: %s\n", opt, path, dir,
            strerror(errno));
    return -1;
  }
  return 0;
}

/* 0, 1 (--help) or -1 after a message.  */
static int parse_options(struct options *o, int argc, char **argv)
{
  int i;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    }
    if (argv[i][0] != '-')
      break;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      return 1;
    if (parse_option(o, argc, argv, &i) != 0)
      return -1;
  }
  o->cmd = i < argc ? argv + i : NULL;
  if ((o->cmd != NULL) + (o->npids > 0) + (o->perf_data != NULL) + o->all != 1) {
    fprintf(stderr, "gorc-prof: give one of -a, -p PID, --perf-data FILE or -- PROGRAM\n");
    return -1;
  }
  if (o->every > 0 && o->perf_data) {
    fprintf(stderr, "gorc-prof: --every splits a recording: not --perf-data\n");
    return -1;
  }
  if (o->preload && o->every > 0) {
    fprintf(stderr, "gorc-prof: --preload writes one profile: --every needs perf events\n");
    return -1;
  }
  if (o->preload && !o->cmd) {
    fprintf(stderr, "gorc-prof: --preload starts the program: it cannot attach (-p)\n");
    return -1;
  }
  if (o->unwind != PROF_UNWIND_AUTO && (o->perf_data || o->preload)) {
    fprintf(stderr, "gorc-prof: --unwind picks how perf events' stacks are walked: not with %s\n",
            o->perf_data ? "--perf-data (perf's copies, unwound here)"
                         : "--preload (libgorc walks in the process)");
    return -1;
  }
  if (o->keep_walker && (o->perf_data || o->preload || o->unwind == PROF_UNWIND_COPY)) {
    fprintf(stderr, "gorc-prof: --keep-walker keeps the BPF walker: not with %s\n",
            o->perf_data ? "--perf-data" : o->preload ? "--preload" : "--unwind=copy");
    return -1;
  }
  if (!o->prefix) {
    const char *name = o->cmd ? o->cmd[0] : o->perf_data ? o->perf_data
                       : o->all ? "all" : "gorc-prof";
    const char *b = strrchr(name, '/');
    o->prefix = b ? b + 1 : name;
  }
  if (output_dir_ok("-o", o->prefix) != 0 || (o->stacks && output_dir_ok("--stacks", o->stacks) != 0))
    return -1;
  return 0;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --every: the profiles written so far.  */
struct intervals {
  const struct options *o;
  unsigned written, failed;
  uint64_t samples;
  double start;              /* the current interval's, seconds since the epoch */
};

static prof_interval_fn write_interval;

/* Step 1: the samples, by perf events or by the preloaded sampler.  */
static int record(const struct options *o, struct prof_data *d, int *status, double *cpu,
                  struct intervals *iv)
{
  int progress = o->quiet ? 0 : isatty(STDERR_FILENO) ? 1 : 2;
  if (o->perf_data)
    return prof_perfdata_read(o->perf_data, d);
  if (o->preload) {
    struct prof_preload_opts po = { o->cmd, o->hz, progress, o->keep };
    return prof_preload_run(&po, d, status, cpu);
  }
  struct prof_record_opts ro = {
    .pids = o->pids, .npids = o->npids, .cmd = o->cmd, .all = o->all, .hz = o->hz,
    .duration = o->duration, .stack_size = o->stack_size, .unwind = o->unwind,
    .children = o->children,
    .progress = progress, .user_only = o->user_only, .every = o->every,
    .keep_walker = o->keep_walker, .interval = write_interval, .interval_arg = iv
  };
  int rc = prof_record(&ro, d, status);
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  return rc;
}

static double wall_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the profile is of: the program's base name, else the prefix's.  */
static const char *profile_name(const struct options *o)
{
  const char *name = o->cmd ? o->cmd[0] : o->prefix;
  const char *b = strrchr(name, '/');
  return b ? b + 1 : name;
}

static int svg_stack_cmp(const void *a, const void *b)
{
  const struct svg_stack *x = a, *y = b;
  return strcmp(x->stack, y->stack);
}

/* The lines of PREFIX.folded (and the flame graph's stacks): a line per
   stack, its threads' counts added; with -a each stack under its
   process's command, as perf's flame graphs show a system (the
   strings are made: free them).  *N lines.  */
static struct svg_stack *folded_lines(const struct options *o, const struct prof_folded *list,
                                      size_t nl, size_t *n)
{
  struct svg_stack *lines = prof_xmalloc((nl ? nl : 1) * sizeof *lines);
  for (size_t k = 0; k < nl; k++) {
    const char *comm = list[k].comm && list[k].comm[0] ? list[k].comm : "[unknown]";
    char *text;
    if (!o->all)
      text = prof_xstrdup(list[k].stack);
    else if (asprintf(&text, "%s;%s", comm, list[k].stack) < 0)
      text = prof_xstrdup(list[k].stack);
    lines[k].stack = text;
    lines[k].count = list[k].count;
  }
  prof_sort(lines, nl, sizeof *lines, svg_stack_cmp);
  size_t kept = 0;
  for (size_t k = 0; k < nl; k++) {
    if (kept && strcmp(lines[kept - 1].stack, lines[k].stack) == 0) {
      lines[kept - 1].count += lines[k].count;
      free((char *)lines[k].stack);
    } else {
      lines[kept++] = lines[k];
    }
  }
  *n = kept;
  return lines;
}

static void folded_lines_free(struct svg_stack *lines, size_t n)
{
  for (size_t k = 0; k < n; k++)
    free((char *)lines[k].stack);
  free(lines);
}

/* Step 3: PREFIX.folded, PREFIX.pb.gz and PREFIX.svg.  0, or 1 when one
   could not be written.  Not inlined: its 8 KB of paths were main's
   frame all through the recording, and a sample of gorc-prof itself
   copied before its table was loaded (-a's first) ended [truncated]
   under main.  */
__attribute__((noinline))
static int write_outputs(const struct options *o, const struct prof_data *d,
                         const struct prof_folded *list, size_t nl, double start,
                         double elapsed)
{
  int rc = 0;
  char path[PATH_MAX + 16];
  if (o->stacks && prof_write_stacks(o->stacks, d) != 0) {
    fprintf(stderr, "gorc-prof: cannot write %s: %s\n", o->stacks, strerror(errno));
    rc = 1;
  }
  snprintf(path, sizeof path, "%s.pb.gz", o->prefix);
  if (prof_pprof_write(path, profile_name(o), list, nl, (uint64_t)(1e9 / (double)o->hz), start,
                       elapsed) != 0)
    rc = 1;
  size_t nlines;
  struct svg_stack *lines = folded_lines(o, list, nl, &nlines);
  snprintf(path, sizeof path, "%s.folded", o->prefix);
  FILE *f = prof_create(path);
  if (!f) {
    fprintf(stderr, "gorc-prof: cannot write %s: %s\n", path, strerror(errno));
    rc = 1;
  } else {
    for (size_t k = 0; k < nlines; k++)
      fprintf(f, "%s %llu\n", lines[k].stack, (unsigned long long)lines[k].count);
    if (fclose(f) != 0)
      rc = 1;
  }
  if (!o->svg) {
    folded_lines_free(lines, nlines);
    return rc;
  }
  char title[PATH_MAX + 64];
  if (o->title)
    snprintf(title, sizeof title, "%s", o->title);
  else
    snprintf(title, sizeof title, "gorc-prof: %s", profile_name(o));
  snprintf(path, sizeof path, "%s.svg", o->prefix);
  if (svg_write(path, title, lines, nlines) != 0) {
    fprintf(stderr, "gorc-prof: cannot write %s: %s\n", path, strerror(errno));
    rc = 1;
  }
  folded_lines_free(lines, nlines);
  return rc;
}

/* --every: the samples of the interval that ends now to
   PREFIX-NNNNNN.pb.gz (numbered from 1; written aside and renamed, so
   that a collector never reads a partial file), then dropped.  */
static void write_interval(void *arg, struct prof_data *d)
{
  struct intervals *iv = arg;
  const struct options *o = iv->o;
  double end = wall_now();
  char path[PATH_MAX + 32];
  size_t nl, ns, nt;
  struct prof_fold_counts counts;
  struct prof_folded *list = prof_fold(d, &nl, &counts);
  prof_data_totals(d, &ns, &nt);
  snprintf(path, sizeof path, "%s-%06u.pb.gz", o->prefix, iv->written + 1);
  if (prof_pprof_write(path, profile_name(o), list, nl, (uint64_t)(1e9 / (double)o->hz),
                       iv->start, end - iv->start) == 0) {
    iv->written++;
    iv->samples += ns;
    if (!o->quiet)
      fprintf(stderr, "gorc-prof: wrote %s: %zu samples, %.1f s\n", path, ns, end - iv->start);
  } else {
    iv->failed++;
  }
  prof_folded_free(list, nl);
  prof_data_clear_samples(d);
  iv->start = end;
}

/* After an output could not be written: every output removed, so that
   a failed run leaves no partial profile behind.  (Not inlined, as
   write_outputs.)  */
__attribute__((noinline))
static void remove_outputs(const struct options *o)
{
  static const char *const exts[] = { ".pb.gz", ".folded", ".svg" };
  char path[PATH_MAX + 16];
  if (o->stacks)
    unlink(o->stacks);
  for (size_t k = 0; k < sizeof exts / sizeof *exts; k++) {
    snprintf(path, sizeof path, "%s%s", o->prefix, exts[k]);
    unlink(path);
  }
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

/* The TOP leaf functions by self samples.  */
static void print_top(const struct prof_folded *list, size_t nl, size_t ns, int top)
{
  if (top <= 0 || nl == 0)
    return;
  struct selfcount *sc = prof_xmalloc(nl * sizeof *sc);
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
  prof_sort(sc, nsc, sizeof *sc, selfcount_cmp);
  fprintf(stderr, "gorc-prof: most samples in:\n");
  for (size_t k = 0; k < nsc && k < (size_t)top; k++)
    fprintf(stderr, "  %5.1f%%  %8llu  %s\n", 100.0 * sc[k].count / (ns ? ns : 1),
            (unsigned long long)sc[k].count, sc[k].name);
  free(sc);
}

/* Step 4: what was recorded, how the stacks ended, where time went.  */
static void print_summary(const struct options *o, const struct prof_data *d,
                          const struct prof_fold_counts *c, const struct prof_folded *list,
                          size_t nl, double elapsed, double cpu)
{
  size_t ns, nt;
  prof_data_totals(d, &ns, &nt);
  /* the CPU time is known of a started program only */
  size_t sampled = 0;
  for (size_t i = 0; i < d->nprocs; i++)
    sampled += d->procs[i].nsamples > 0;
  fprintf(stderr, "gorc-prof: %zu samples, %zu threads, %zu process%s, %.2f s", ns, nt,
          d->nprocs, d->nprocs == 1 ? "" : "es", elapsed);
  if (o->all)
    fprintf(stderr, " (%zu with samples)", sampled);
  if (o->cmd)
    fprintf(stderr, ", %.2f s CPU", cpu);
  fprintf(stderr, "; %llu lost\n", (unsigned long long)d->lost);
  fprintf(stderr, "gorc-prof: stacks: %llu complete, %llu truncated (the stack copy ended), "
          "%llu incomplete (no unwind information), %llu deeper than %d frames",
          (unsigned long long)c->complete, (unsigned long long)c->truncated,
          (unsigned long long)c->incomplete, (unsigned long long)c->deeper,
          GORC_PROF_MAX_DEPTH);
  if (c->no_table)
    fprintf(stderr, ", %llu in a module whose table was not loaded yet",
            (unsigned long long)c->no_table);
  if (c->exec)
    fprintf(stderr, ", %llu in an exec (the old program's stack gone)",
            (unsigned long long)c->exec);
  if (c->callchain)
    fprintf(stderr, ", %llu frame-pointer callchains (perf record -g, used as they are)",
            (unsigned long long)c->callchain);
  fprintf(stderr, "\n");
  if (c->kernel_frames)
    fprintf(stderr, "gorc-prof: %llu samples in the kernel (%.1f%%), %llu of them with no user "
            "part (kernel threads, idle)\n", (unsigned long long)c->kernel_frames,
            100.0 * (double)c->kernel_frames / (double)(ns ? ns : 1),
            (unsigned long long)c->kernel_only);
  if (d->record_bytes && ns)
    fprintf(stderr, "gorc-prof: %.1f MB of perf records, %.0f bytes per sample (%.0f of them "
            "stack)\n", (double)d->record_bytes / 1e6, (double)d->record_bytes / (double)ns,
            (double)d->stack_bytes / (double)ns);
  if (d->lost)
    fprintf(stderr, "gorc-prof: %llu samples lost (%llu times the ring buffer was full)\n",
            (unsigned long long)d->lost, (unsigned long long)d->lost_records);
  if (o->preload && d->nprocs == 0)
    fprintf(stderr, "gorc-prof: no samples: the program was not profiled (a static "
            "or setuid program ignores LD_PRELOAD)\n");
  print_top(list, nl, ns, o->top);
  fprintf(stderr, "gorc-prof: wrote %s.folded, %s.pb.gz%s%s%s\n", o->prefix, o->prefix,
          o->svg ? ", " : "", o->svg ? o->prefix : "", o->svg ? ".svg" : "");
}

/* gorc-prof's exit status: the program's (or its signal), else 1 when
   an output could not be written.  */
static int exit_status(int status, int rc_files)
{
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

/* --every: the last interval written; what was written said.  */
static int finish_intervals(const struct options *o, struct prof_data *d, struct intervals *iv,
                            int status, double elapsed)
{
  uint64_t lost = d->lost;
  write_interval(iv, d);
  if (!o->quiet)
    fprintf(stderr, "gorc-prof: %u profiles %s-000001.pb.gz .. %s-%06u.pb.gz, %llu samples, "
            "%.2f s; %llu lost\n", iv->written, o->prefix, o->prefix, iv->written,
            (unsigned long long)iv->samples, elapsed, (unsigned long long)lost);
  prof_data_free(d);
  prof_modules_end();
  prof_kernel_end();
  return exit_status(status, iv->failed ? 1 : 0);
}

/* Record as O says, then write the outputs: the exit status.  */
static int profile(struct options *o)
{
  struct prof_data d = { 0 };
  int status = 0;
  double cpu = 0, t0 = now(), start = wall_now();
  struct intervals iv = { o, 0, 0, 0, start };
  if (record(o, &d, &status, &cpu, &iv) != 0) {
    prof_data_free(&d);
    prof_modules_end();       /* its scratch files */
    return 2;
  }
  double elapsed = now() - t0;
  if (o->every > 0)
    return finish_intervals(o, &d, &iv, status, elapsed);

  struct prof_fold_counts counts;
  size_t nl;
  struct prof_folded *list = prof_fold(&d, &nl, &counts);
  int rc_files = write_outputs(o, &d, list, nl, start, elapsed);
  if (rc_files != 0) {
    remove_outputs(o);
    fprintf(stderr, "gorc-prof: no profile written (an output could not be written)\n");
  } else if (!o->quiet) {
    print_summary(o, &d, &counts, list, nl, elapsed, cpu);
  }
  prof_folded_free(list, nl);
  prof_data_free(&d);
  prof_modules_end();
  prof_kernel_end();
  return exit_status(status, rc_files);
}

int main(int argc, char **argv)
{
  struct options o = { .hz = 1000, .svg = 1, .top = 5, .children = 1, .stack_size = 8192 };
  int rc = parse_options(&o, argc, argv), exit_code;
  if (rc != 0) {
    usage(rc > 0 ? stdout : stderr);
    exit_code = rc > 0 ? 0 : 2;
  } else {
    exit_code = profile(&o);
  }
  free(o.pids);
  return exit_code;
}
