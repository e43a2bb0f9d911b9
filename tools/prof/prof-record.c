/* gorc-prof: recording with perf events (see prof-record.h).

   One cpu-clock event per thread and CPU (the kernel refuses to mmap a
   per-thread inherited event that is not bound to a CPU), all events of
   a CPU writing into that CPU's ring buffer.  The buffers are drained
   every 50 ms; records are copied out, ordered by time and fed to the
   profile (prof-feed.c) once every buffer has been read past them, so
   that a mapping reported on one CPU is known before the samples another
   CPU took in it.

   With -a there is one event per CPU for every process (pid -1); the
   processes running when it starts are read from /proc, as perf
   synthesizes them.  With --every the records older than each
   interval's end are fed, then the interval's hook writes them out.

   With --unwind=bpf (the default where it loads) a BPF program attached
   to each event walks the user stack in the kernel (prof-bpf.h) and
   sends its samples through its own ring buffer; perf's rings then carry
   only the mappings, commands, forks and exits.  Those are fed twice:
   at once into the walker's view of the processes (bpf_view), whose
   mappings are handed to the walker as they change, and in time order
   with the samples into the profile (a process's exit after its last
   samples).  */

#define _GNU_SOURCE
#include "prof-record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prof-bpf.h"
#include "prof-perf.h"

#define RING_PAGES 512        /* data pages per CPU (2 MB), halved until mmap works */
/* With the BPF walker perf's rings hold no samples, only the records
   of mappings, commands, forks and exits: for a started program or -p,
   256 KB a CPU (about 2,000 mappings).  -a keeps RING_PAGES: a busy
   machine's records pile up while a table is built.  The kernel
   allocates and clears a ring at its mmap: 2 MB a CPU was 4% of the CPU
   of gorc-prof -- true.  */
#define SIDEBAND_RING_PAGES 64
#define DRAIN_MS 50

struct ring {
  int fd;                     /* the CPU's first event: owns the buffer */
  struct perf_event_mmap_page *page;
  uint8_t *data;
  uint64_t size;
  uint64_t last_time;         /* the time of the last record read, losses aside */
};

/* What a pending record is.  */
enum pend_kind {
  PEND_PERF,                  /* a perf record */
  PEND_BPF,                   /* a BPF walker's sample (prof-bpf.h) */
  PEND_MAPS                   /* a process's maps read after a loss (struct maps_read) */
};

/* A record copied out of a ring, waiting to be fed in time order.  */
struct pending {
  uint64_t time;
  uint64_t seq;               /* arrival order, for equal times */
  uint8_t *rec;
  size_t len;
  enum pend_kind kind;
};

struct recorder {
  const struct prof_record_opts *o;
  struct prof_data *d;
  struct gorc_perf_layout layout;
  struct perf_event_attr attr;
  int ncpus;
  struct ring *rings;         /* one per CPU */
  int *fds;                   /* every event */
  size_t nfds;
  struct pending *pend;
  size_t npend, cap_pend;
  uint64_t seq;
  pid_t child;                /* the started program, or 0 */
  int child_done;             /* it exited: its status is known */
  size_t ring_pages;          /* data pages per ring tried first */
  int hold;                   /* GORC_PROF_TEST_HOLD_RING: rings not read yet */
  int answer_lost;            /* ... read since: SIGUSR1 the program at the first loss */
  uint64_t maps_read_at;      /* when the maps were last read after a loss (ns) */
  size_t largest_record;      /* the largest record the rings are expected to hold */
  uint64_t lost_reported;     /* the records PERF_RECORD_LOST said were lost */
  int drain_ms;               /* the longest wait for records: DRAIN_MS, or -1 (none) */
  int loss_suspected;         /* a ring drained may have lost records ... */
  uint64_t loss_after;        /* ... after this time, the earliest */
  int exit_in_attach;         /* GORC_PROF_TEST_EXIT_IN_ATTACH */
  int refuse_format_lost;     /* GORC_PROF_TEST_REFUSE_FORMAT_LOST */
  int kernel;                 /* samples in the kernel, with its callchains */
  struct prof_bpf *bpf;       /* --unwind=bpf: the walker, else NULL */
  struct prof_data bpf_view;  /* the processes as the walker knows them now */
  int pidfd;                  /* the started program's, while recording; -1 */
  pid_t *lingering;           /* processes whose first thread exited, others alive */
  size_t nlingering, cap_lingering;
  double realtime_until;      /* a started program's start: see start_realtime; 0 */
  int policy;                 /* ... gorc-prof's own scheduling, given back after */
  struct sched_param param;
};

static volatile sig_atomic_t interrupted, release_asked;

static void on_interrupt(int sig)
{
  (void)sig;
  interrupted = 1;
}

static void on_release(int sig)
{
  (void)sig;
  release_asked = 1;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int paranoid_level(void)
{
  int level = -100;
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  if (f) {
    if (fscanf(f, "%d", &level) != 1)
      level = -100;
    fclose(f);
  }
  return level;
}

static void explain_permission(int err)
{
  fprintf(stderr, "gorc-prof: perf_event_open: %s: profiling needs kernel.perf_event_paranoid "
          "at most 2 (user space of processes you may ptrace: your own)", strerror(err));
  int level = paranoid_level();
  if (level != -100)
    fprintf(stderr, "; it is %d", level);
  fprintf(stderr, ".  As root: sysctl kernel.perf_event_paranoid=2, or run gorc-prof as root "
          "(CAP_PERFMON) to profile another user's process\n");
}

/* May gorc-prof sample in the kernel?  perf_event_paranoid at most 1,
   or CAP_PERFMON (root): tried with an event on gorc-prof itself, as
   the kernel decides it.  1, or 0 after a line saying why not.  */
static int kernel_allowed(void)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 1000000;
  a.sample_type = PERF_SAMPLE_CALLCHAIN;
  a.exclude_callchain_user = 1;
  a.disabled = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) {
    close(fd);
    return 1;
  }
  if (errno == EACCES || errno == EPERM)
    fprintf(stderr, "gorc-prof: no kernel frames: kernel.perf_event_paranoid is %d (at most 1, "
            "or CAP_PERFMON, lets gorc-prof sample the kernel); user frames only\n",
            paranoid_level());
  else
    fprintf(stderr, "gorc-prof: no kernel frames: perf_event_open refuses kernel samples (%s); "
            "user frames only\n", strerror(errno));
  return 0;
}

/* The largest record the rings are expected to hold: an mmap record
   (a path up to PATH_MAX) or a sample (its stack copy, its registers,
   a kernel callchain at kernel.perf_event_max_stack's default, 127,
   plus its context markers).  A ring with less room than that may have
   dropped one.  */
static size_t largest_record(const struct perf_event_attr *a)
{
  size_t mmap2 = sizeof(struct perf_event_header) + 64 + PATH_MAX + 16;
  size_t sample = sizeof(struct perf_event_header) + 16 + 8 * (1 + 127 + 8)
                  + 8 * (1 + (size_t)__builtin_popcountll(a->sample_regs_user))
                  + 16 + a->sample_stack_user;
  return sample > mmap2 ? sample : mmap2;
}

static void attr_init(struct recorder *r)
{
  struct perf_event_attr *a = &r->attr;
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_SOFTWARE;
  a->config = PERF_COUNT_SW_CPU_CLOCK;
  a->sample_period = (uint64_t)(1000000000.0 / (double)r->o->hz);
  a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
                   PERF_SAMPLE_STACK_USER;
  a->sample_regs_user = GORC_PERF_REGS_MASK;
  a->sample_stack_user = r->o->stack_size;
  /* the kernel's callchain, its own ORC-unwound part only: the user
     part is unwound here from the copy */
  if (r->kernel)
    a->sample_type |= PERF_SAMPLE_CALLCHAIN;
  a->exclude_callchain_user = 1;
  a->exclude_kernel = !r->kernel;
  a->exclude_hv = 1;
  a->mmap = 1;
  a->mmap2 = 1;
  a->comm = 1;
  a->comm_exec = 1;
  a->task = 1;
  a->sample_id_all = 1;
  /* a CPU's event sees every task: nothing to inherit */
  a->inherit = !r->o->all;
  a->inherit_thread = !r->o->all && !r->o->children;
  a->use_clockid = 1;
  a->clockid = CLOCK_MONOTONIC;
  /* the events' own count of the records they lost (Linux 6.0; older
     kernels refuse it and go without): a loss is reported in the ring
     only when the kernel next writes there, maybe never */
  a->read_format = PERF_FORMAT_LOST;
  /* (the test hook adds a bit no kernel knows: refused, as an older
     kernel refuses PERF_FORMAT_LOST, with EINVAL) */
  if (r->refuse_format_lost)
    a->read_format |= 1ull << 62;
  a->watermark = 1;
  a->wakeup_watermark = 64 * 1024;
  a->disabled = r->child != 0;
  a->enable_on_exec = r->child != 0;
  if (r->bpf) {
    /* the walker writes the samples; each side-band record is wanted at once */
    a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    a->sample_regs_user = 0;
    a->sample_stack_user = 0;
    a->exclude_kernel = r->o->user_only;
    /* wakeup_events counts samples only, and perf writes none (the
       program returns 0): a watermark of one byte wakes gorc-prof at
       every mmap, comm, fork and exit record instead of at its 50 ms
       poll timeout, which let a short exec'd program run out before
       its mappings were read */
    a->watermark = 1;
    a->wakeup_watermark = 1;
    a->disabled = 1;
  }
  r->largest_record = largest_record(a);
  r->layout.sample_type = a->sample_type;
  r->layout.regs_mask = a->sample_regs_user;
  r->layout.sample_id_all = 1;
}

static int ring_map(const struct recorder *r, struct ring *ring, int fd)
{
  long pg = sysconf(_SC_PAGESIZE);
  size_t fewest = r->ring_pages < 8 ? r->ring_pages : 8;
  for (size_t pages = r->ring_pages; pages >= fewest; pages /= 2) {
    void *m = mmap(NULL, (pages + 1) * (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
      ring->fd = fd;
      ring->page = m;
      ring->data = (uint8_t *)m + pg;
      ring->size = pages * (uint64_t)pg;
      return 0;
    }
    if (errno != EPERM && errno != ENOMEM)
      break;
  }
  fprintf(stderr, "gorc-prof: cannot map a perf ring buffer: %s (locked memory: see "
          "kernel.perf_event_mlock_kb)\n", strerror(errno));
  return -1;
}

/* --unwind=bpf: the walker on event FD, enabled at once unless the
   started program's exec enables it.  */
static int attach_walker(const struct recorder *r, int fd)
{
  if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prof_bpf_prog_fd(r->bpf)) != 0) {
    fprintf(stderr, "gorc-prof: PERF_EVENT_IOC_SET_BPF: %s\n", strerror(errno));
    return -1;
  }
  if (!r->child && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    fprintf(stderr, "gorc-prof: PERF_EVENT_IOC_ENABLE: %s\n", strerror(errno));
    return -1;
  }
  return 0;
}

/* Open the event of thread TID (-1: every task) on every CPU.  0, 1 when
   the thread is gone, or -1 after an error message.  */
static int open_thread(struct recorder *r, pid_t tid)
{
  for (int cpu = 0; cpu < r->ncpus; cpu++) {
    int fd = (int)syscall(SYS_perf_event_open, &r->attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && errno == EINVAL && r->attr.read_format) {
      r->attr.read_format = 0;
      fd = (int)syscall(SYS_perf_event_open, &r->attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0 && errno == ENODEV)
      continue;               /* a CPU that is offline */
    if (fd < 0 && errno == ESRCH)
      return 1;
    if (fd < 0) {
      if ((errno == EACCES || errno == EPERM) && tid < 0)
        fprintf(stderr, "gorc-prof: perf_event_open: %s: -a (every process) needs "
                "kernel.perf_event_paranoid at most 0, or CAP_PERFMON (root); it is %d\n",
                strerror(errno), paranoid_level());
      else if (errno == EACCES || errno == EPERM)
        explain_permission(errno);
      else
        fprintf(stderr, "gorc-prof: perf_event_open (thread %d, CPU %d): %s\n", (int)tid, cpu,
                strerror(errno));
      return -1;
    }
    r->fds = prof_xrealloc(r->fds, (r->nfds + 1) * sizeof *r->fds);
    r->fds[r->nfds++] = fd;
    if (r->bpf && attach_walker(r, fd) != 0)
      return -1;
    struct ring *ring = &r->rings[cpu];
    if (ring->fd < 0) {
      if (ring_map(r, ring, fd) != 0)
        return -1;
    } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) != 0) {
      fprintf(stderr, "gorc-prof: PERF_EVENT_IOC_SET_OUTPUT: %s\n", strerror(errno));
      return -1;
    }
  }
  return 0;
}

/* ---- attaching to running processes ---- */

/* NAME, or for a file deleted (or replaced: an upgrade) since it was
   mapped, a copy of the mapped file read through /proc/PID/map_files
   (root only): never the file now at that path.  LINE is the maps line
   (its device and inode tell copies apart).  */
static char *saved_if_deleted(pid_t pid, const char *line, char *name, unsigned long long lo,
                              unsigned long long hi)
{
  static const char deleted[] = " (deleted)";
  size_t n = strlen(name), nd = sizeof deleted - 1;
  char from[96], key[128], dev[32] = "";
  unsigned long long ino = 0;
  if (n <= nd || strcmp(name + n - nd, deleted) != 0)
    return name;
  name[n - nd] = 0;
  sscanf(line, "%*s %*s %*s %31s %llu", dev, &ino);
  snprintf(from, sizeof from, "/proc/%d/map_files/%llx-%llx", (int)pid, lo, hi);
  snprintf(key, sizeof key, "%s:%llu", dev, ino);
  const char *base = strrchr(name, '/');
  const char *copy = prof_modules_save(from, key, base ? base + 1 : name);
  return copy ? (char *)copy : name;
}

/* Is the file at descriptor FD not empty?  */
static int has_bytes(int fd)
{
  char c;
  return pread(fd, &c, 1, 0) == 1;
}

/* Process PID's mappings, /proc/PID/maps, opened; -1 when it is gone.
   That file is empty once the first thread has exited while others
   live on (pthread_exit in main): then a live thread's, which shares
   the process's mappings, /proc/PID/task/TID/maps.  */
static int open_maps(pid_t pid)
{
  char path[320];             /* (a task's name is at most 255 bytes) */
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || has_bytes(fd))
    return fd;
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *dir = opendir(path);
  struct dirent *de;
  while (dir && (de = readdir(dir))) {
    if (de->d_name[0] < '1' || de->d_name[0] > '9' || atoi(de->d_name) == (int)pid)
      continue;
    snprintf(path, sizeof path, "/proc/%d/task/%s/maps", (int)pid, de->d_name);
    int live = open(path, O_RDONLY | O_CLOEXEC);
    if (live >= 0 && has_bytes(live)) {
      close(fd);
      fd = live;
      break;
    }
    if (live >= 0)
      close(live);
  }
  if (dir)
    closedir(dir);
  return fd;
}

/* The executable mappings of process PID of D in F (its /proc/PID/maps,
   or a copy) into P (HOLES_ONLY: only those where P knows no mapping),
   from TIME on (0: before the recording).  */
static void read_maps(const struct prof_data *d, FILE *f, pid_t pid, struct prof_proc *p,
                      int holes_only, uint64_t time)
{
  char line[4096 + 256];
  while (fgets(line, sizeof line, f)) {
    unsigned long long lo, hi, off, ino;
    unsigned maj, min;
    char perms[8];
    int name_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj, &min, &ino,
               &name_at) < 7
        || perms[2] != 'x' || name_at == 0 || hi <= lo)
      continue;
    char *name = line + name_at;
    name[strcspn(name, "\n")] = 0;
    if (*name == 0 || (holes_only && (prof_space_find(&p->space, lo)
                                      || prof_space_find(&p->space, hi - 1))))
      continue;
    const char *file = saved_if_deleted(pid, line, name, lo, hi);
    struct prof_file_id id = { maj, min, ino };
    /* (a deleted file's copy, saved through /proc/PID/map_files, is ours) */
    if (file == name && !(file = prof_proc_file(d, p, name, &id)))
      continue;
    prof_space_map(&p->space, lo, hi - lo, off, file);
    const struct prof_map *m = prof_space_find(&p->space, lo);
    if (m && m->mod)
      prof_proc_add_span(p, m->bias, lo, hi, m->path, m->mod, time);
  }
}

/* Process P's executable mappings from its /proc/PID/maps
   (HOLES_ONLY: as read_maps).  */
static void read_proc_maps(struct recorder *r, struct prof_proc *p, int holes_only)
{
  int fd = open_maps(p->pid);
  FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (f) {
    read_maps(r->d, f, p->pid, p, holes_only, 0);
    fclose(f);
  } else if (fd >= 0) {
    close(fd);
  }
}

/* The executable mappings and the name of process PID, as perf reports
   them for processes it starts: read from /proc (the kernel reports only
   what is mapped after the events open).  */
static void synthesize_process(struct recorder *r, pid_t pid)
{
  char path[64];
  struct prof_proc *p = prof_proc_get(r->d, pid);
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE *f = fopen(path, "r");
  if (f) {
    if (fgets(p->comm, sizeof p->comm, f))
      p->comm[strcspn(p->comm, "\n")] = 0;
    fclose(f);
  }
  read_proc_maps(r, p, 0);
}

/* -a: every process running now but gorc-prof's own (synthesize_self),
   from /proc (the idle task, pid 0, named as perf names it).  */
static void synthesize_all(struct recorder *r)
{
  DIR *dir = opendir("/proc");
  if (!dir)
    return;
  pid_t self = getpid();
  struct dirent *de;
  while ((de = readdir(dir))) {
    char *end;
    long pid = strtol(de->d_name, &end, 10);
    if (*end == 0 && pid > 0 && pid <= INT32_MAX && pid != self)
      synthesize_process(r, (pid_t)pid);
  }
  closedir(dir);
  struct prof_proc *idle = prof_proc_get(r->d, 0);
  snprintf(idle->comm, sizeof idle->comm, "swapper");
}

/* Has process PID ended (gone, or a zombie its parent has not reaped)?
   A zombie whose threads live on is not ended: its first thread left
   by pthread_exit, and the kernel shows that thread's state for the
   process, with the live threads counted in num_threads (stat's 20th
   field), the zombie's own included.  */
static int process_ended(pid_t pid)
{
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *state = strrchr(buf, ')');
  if (!state || state[1] != ' ')
    return 1;
  if (state[2] != 'Z' && state[2] != 'X')
    return 0;
  /* after the state, fields 4 to 19, then num_threads */
  const char *p = state + 2;
  for (int field = 3; field < 20 && p; field++)
    if ((p = strchr(p, ' ')))
      p++;
  return !p || atol(p) <= 1;
}

/* GORC_PROF_TEST_EXIT_IN_ATTACH: end PID now.  */
static void kill_and_wait_end(pid_t pid)
{
  kill(pid, SIGKILL);
  while (!process_ended(pid))
    poll(NULL, 0, 1);
}

/* --unwind=bpf: process P, read from /proc, into the walker's view,
   and its mappings to the walker (-a: their tables as their first
   samples need them; NOW: with its tables, in the walker's map before
   this returns).  */
static void walker_adopt(struct recorder *r, const struct prof_proc *p, int now)
{
  struct prof_proc *v = prof_proc_get(&r->bpf_view, p->pid);
  memcpy(v->comm, p->comm, sizeof v->comm);
  prof_space_copy(&v->space, &p->space);
  if (now)
    prof_bpf_sync_now(r->bpf, v);
  else
    prof_bpf_sync(r->bpf, v, !r->o->all);
}

/* GORC_PROF_TEST_PAUSE_AFTER_MAPS=FILE: FILE made once a process's
   maps are read, before its events open, and gorc-prof waits (60 s at
   most) until the test removes it, having made the process map a
   library meanwhile.  */
static void test_pause_after_maps(void)
{
  const char *file = getenv("GORC_PROF_TEST_PAUSE_AFTER_MAPS");
  int fd = file ? open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
  if (fd < 0)
    return;
  close(fd);
  for (int waited = 0; access(file, F_OK) == 0 && waited < 60000; waited += 10)
    poll(NULL, 0, 10);
}

/* Open the events of every thread of PID: its maps read first, so that
   the walker has their tables before the first sample, and again once
   the events are open, for what was mapped in between (a process still
   in ld.so, mapping its libraries): the kernel reports only what is
   mapped after.  */
static int attach_process(struct recorder *r, pid_t pid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "gorc-prof: no process %d\n", (int)pid);
    return -1;
  }
  synthesize_process(r, pid);
  /* the walker's tables in its maps before the first sample (built but
     still being published, a loaded machine's first samples were
     copied, and a stack deeper than the copy cut short) */
  if (r->bpf)
    walker_adopt(r, prof_proc_get(r->d, pid), 1);
  test_pause_after_maps();
  int opened = 0, rc = 0;
  struct dirent *de;
  while (rc >= 0 && (de = readdir(dir))) {
    if (de->d_name[0] == '.')
      continue;
    rc = open_thread(r, (pid_t)atoi(de->d_name));
    opened += rc == 0;
    if (opened == 1 && r->exit_in_attach) {
      r->exit_in_attach = 0;
      kill_and_wait_end(pid);
    }
  }
  closedir(dir);
  if (rc < 0)
    return -1;
  if (opened == 0 || process_ended(pid)) {
    fprintf(stderr, "gorc-prof: process %d exited while gorc-prof attached to it\n", (int)pid);
    return -1;
  }
  read_proc_maps(r, prof_proc_get(r->d, pid), 1);
  if (r->bpf)
    walker_adopt(r, prof_proc_get(r->d, pid), 0);
  if (r->o->progress)
    fprintf(stderr, "gorc-prof: attached to process %d (%s), %d threads\n", (int)pid,
            prof_proc_get(r->d, pid)->comm, opened);
  return 0;
}

/* ---- starting a program ---- */

/* Fork the program, stopped before its exec until GO is written to.  */
static pid_t start_program(char **cmd, int *go)
{
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    fprintf(stderr, "gorc-prof: pipe: %s\n", strerror(errno));
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gorc-prof: fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    char c;
    close(pipefd[1]);
    if (read(pipefd[0], &c, 1) != 1)
      _exit(127);             /* gorc-prof gave up */
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execvp(cmd[0], cmd);
    fprintf(stderr, "gorc-prof: cannot run %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  close(pipefd[0]);
  *go = pipefd[1];
  return pid;
}

/* dl_iterate_phdr's callback: the code of one of gorc-prof's own files
   (its executable, the first; the libraries of a build not linked
   static, as a sanitized one), at the addresses it has here, into the
   spans of the started program ARG, from its start.  */
static int launcher_code(struct dl_phdr_info *info, size_t size, void *arg)
{
  struct prof_proc *p = arg;
  char path[PATH_MAX];
  (void)size;
  if (!info->dlpi_name[0] ? !realpath("/proc/self/exe", path)
                          : info->dlpi_name[0] != '/' || !realpath(info->dlpi_name, path))
    return 0;                 /* (the vdso: no file) */
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
      prof_proc_add_span(p, info->dlpi_addr, info->dlpi_addr + ph->p_vaddr,
                         info->dlpi_addr + ph->p_vaddr + ph->p_memsz, path, NULL, 0);
  }
  return 0;
}

/* The started program is gorc-prof's child until its exec, a copy of
   gorc-prof.  A sample in that exec after the kernel replaced the
   mappings has the child's user registers, in gorc-prof's execve: its
   code is spans of the program's from the start (an exec keeps a
   process's old spans, for names), so that the frame is named
   ([exec];execve), not [unknown].  */
static void name_launcher(struct recorder *r)
{
  dl_iterate_phdr(launcher_code, prof_proc_get(r->d, r->child));
}

/* A started program's first mappings reach the walker before its first
   samples only when gorc-prof runs as soon as the kernel reports them.
   The program, woken by the go, took gorc-prof's CPU: gorc-prof waited
   8-12 ms (2 CPUs, the other busy), and the samples meanwhile were
   copied and walked again, loading prof_rewalk for them (~8 ms of CPU).
   For the program's first START_REALTIME seconds (its exec and dynamic
   linking) gorc-prof runs at the lowest real-time priority where it may
   (root, CAP_SYS_NICE; elsewhere as before): 20 runs of a two-thread
   program beside a CI run had copies in 5 (26 stacks), now in none.
   Not longer: a table built later (a large library dlopened) would hold
   a CPU from every ordinary task for as long as it takes.  */
#define START_REALTIME 0.25

static void start_realtime(struct recorder *r)
{
  struct sched_param lowest = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };
  r->policy = sched_getscheduler(0);
  if (r->policy < 0 || sched_getparam(0, &r->param) != 0)
    return;
  if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &lowest) == 0)
    r->realtime_until = now() + START_REALTIME;
}

/* gorc-prof's own scheduling given back, once the start is over.  */
static void end_realtime(struct recorder *r, int done)
{
  if (r->realtime_until == 0 || (!done && now() < r->realtime_until))
    return;
  sched_setscheduler(0, r->policy, &r->param);
  r->realtime_until = 0;
}

/* ---- draining ---- */

static uint64_t record_time(const struct recorder *r, const uint8_t *rec, size_t len)
{
  const struct perf_event_header *h = (const void *)rec;
  if (h->type == PERF_RECORD_SAMPLE)
    return gorc_perf_sample_time(&r->layout, rec, len);
  struct gorc_perf_id id;
  return gorc_perf_decode_id(&r->layout, rec, len, &id) == 0 ? id.time : 0;
}

static void pend_at(struct recorder *r, const void *rec, size_t len, uint64_t time,
                    enum pend_kind kind)
{
  r->pend = prof_xgrow(r->pend, &r->cap_pend, r->npend + 1, sizeof *r->pend, 1024, SIZE_MAX);
  struct pending *p = &r->pend[r->npend++];
  p->rec = memcpy(prof_xmalloc(len), rec, len);
  p->len = len;
  p->time = time;
  p->seq = r->seq++;
  p->kind = kind;
}

/* ---- records lost ---- */

/* A process's /proc/PID/maps as read after a loss.  */
struct maps_read {
  pid_t pid;
  size_t len;
  char text[];
};

/* After a loss: are the maps to be read again?  At most once a second
   (a busy -a run can lose records often, and reading every process's
   maps then would lose more); a loss after that reads them.  The first
   loss is always due.  */
static int maps_due(struct recorder *r)
{
  uint64_t t = now_ns();
  if (r->maps_read_at && t - r->maps_read_at < 1000000000ull)
    return 0;
  r->maps_read_at = t;
  return 1;
}

/* Process PID's /proc/PID/maps as it is now, or NULL.  */
static struct maps_read *maps_now(pid_t pid)
{
  int fd = open_maps(pid);
  if (fd < 0)
    return NULL;
  size_t cap = 64 * 1024, len = 0;
  struct maps_read *m = prof_xmalloc(sizeof *m + cap);
  ssize_t got;
  while ((got = read(fd, m->text + len, cap - len)) > 0 || (got < 0 && errno == EINTR)) {
    len += got > 0 ? (size_t)got : 0;
    if (len == cap) {
      cap *= 2;
      m = prof_xrealloc(m, sizeof *m + cap);
    }
  }
  close(fd);
  m->pid = pid;
  m->len = len;
  return m;
}

/* What maps_now read into D: the mappings where D knows none (never in
   place of one it knows: the records after the loss, fed in order,
   still say what changed), so that later samples are not cut at a
   module whose mmap was lost.  */
static void feed_maps(struct prof_data *d, const struct maps_read *m, uint64_t time)
{
  struct prof_proc *p = prof_proc_get(d, m->pid);
  if (p->ended || m->len == 0)
    return;
  FILE *f = fmemopen((void *)m->text, m->len, "r");
  if (!f)
    return;
  read_maps(d, f, m->pid, p, 1, time);
  fclose(f);
}

/* A process's exec among the records not fed yet.  */
struct exec_at {
  pid_t pid;
  uint64_t time;
};

/* The execs (COMM records of an exec) among R's pending records, into
   *OUT (to free).  Their number.  */
static size_t execs_pending(const struct recorder *r, struct exec_at **out)
{
  size_t n = 0, cap = 0;
  *out = NULL;
  for (size_t k = 0; k < r->npend; k++) {
    const struct pending *p = &r->pend[k];
    const struct perf_event_header *h = (const void *)p->rec;
    uint32_t pid;
    if (p->kind != PEND_PERF || h->type != PERF_RECORD_COMM
        || !(h->misc & PERF_RECORD_MISC_COMM_EXEC) || p->len < sizeof *h + sizeof pid)
      continue;
    memcpy(&pid, p->rec + sizeof *h, sizeof pid);
    *out = prof_xgrow(*out, &cap, n + 1, sizeof **out, 16, SIZE_MAX);
    (*out)[n++] = (struct exec_at){ (pid_t)pid, p->time };
  }
  return n;
}

/* Records may have been lost after TIME (the last record before the
   loss in its ring): mmap records among them.  When due, the maps of
   the processes followed are read once, now, while they run (by the
   time the records are fed, in time order, a process may be gone):
   into the walker's view at once (the walker told), and for the
   profile at TIME, before every sample that may lie after the loss,
   or after the process's exec not fed yet (an exec clears the
   mappings: what is read now is the image the exec made).  The
   processes followed: the walker's view, which is ahead of the
   profile; without the walker, the profile's and the started program
   (records are fed behind).  */
static void reread_maps(struct recorder *r, uint64_t time)
{
  const struct prof_data *known = r->bpf ? &r->bpf_view : r->d;
  size_t n = maps_due(r) ? known->nprocs + 1 : 0;
  struct exec_at *execs = NULL;
  size_t nexecs = n ? execs_pending(r, &execs) : 0;
  for (size_t i = 0; i < n; i++) {
    pid_t pid = i + 1 < n ? known->procs[i].pid : r->child;
    if (pid <= 0 || (i + 1 < n && known->procs[i].ended) || (i + 1 == n && r->bpf))
      continue;
    struct maps_read *m = maps_now(pid);
    if (!m)
      continue;
    if (r->bpf) {
      feed_maps(&r->bpf_view, m, 0);
      prof_bpf_sync(r->bpf, prof_proc_get(&r->bpf_view, pid), !r->o->all);
    }
    uint64_t at = time;
    for (size_t e = 0; e < nexecs; e++)
      if (execs[e].pid == pid && execs[e].time >= at)
        at = execs[e].time + 1;
    pend_at(r, m, sizeof *m + m->len, at, PEND_MAPS);
    free(m);
  }
  free(execs);
}

static void pend_bpf(void *arg, const void *rec, size_t len, uint64_t time)
{
  pend_at(arg, rec, len, time, PEND_BPF);
}

/* The module of the first mapping of P's view in [LO, HI) that has
   one, or NULL.  */
static const struct prof_module *module_in(const struct prof_proc *p, uint64_t lo, uint64_t hi)
{
  for (size_t i = 0; p && i < p->space.n; i++) {
    const struct prof_map *m = &p->space.maps[i];
    if (m->start < hi && lo < m->end && m->mod)
      return m->mod;
  }
  return NULL;
}

/* --unwind=bpf: a side-band record (at TIME) fed now into the walker's
   view, the walker told what changed: a process's mappings (mmap, exec,
   fork) or its end.  A mapping over another file's code (dlclose, then
   dlopen of another library where it was) is told to the walker after
   the samples that met it: those are cut there (prof_bpf_remapped).  */
static void feed_walker(struct recorder *r, const uint8_t *rec, size_t len, uint64_t time)
{
  const struct perf_event_header *h = (const void *)rec;
  uint32_t ids[4] = { 0 };    /* MMAP, MMAP2, COMM: pid, tid; FORK, EXIT: pid, ppid, tid, ptid */
  pid_t pid;
  uint64_t addr, size;
  int code = prof_feed_code_mapping(rec, len, &pid, &addr, &size);
  /* (a mapping's pieces are its module's: the first one met speaks for
     all, as a library's code is one mapping) */
  const struct prof_module *before =
      code ? module_in(prof_proc_find(&r->bpf_view, pid), addr, addr + size) : NULL;
  prof_feed_record(&r->bpf_view, &r->layout, rec, len, 0);
  int over = before && before != module_in(prof_proc_find(&r->bpf_view, pid), addr, addr + 1);
  if (over)
    prof_bpf_remapping(r->bpf, pid);
  if (len < sizeof *h + sizeof ids)
    return;
  memcpy(ids, rec + sizeof *h, sizeof ids);
  if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC))
    prof_bpf_exec(r->bpf, (pid_t)ids[0]);
  if (h->type == PERF_RECORD_EXIT && ids[0] == ids[2]) {
    prof_bpf_forget(r->bpf, (pid_t)ids[0]);
  } else if (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_MMAP
             || h->type == PERF_RECORD_COMM || (h->type == PERF_RECORD_FORK && ids[0] != ids[1])) {
    prof_bpf_sync(r->bpf, prof_proc_get(&r->bpf_view, (pid_t)ids[0]), !r->o->all);
  }
  if (over)
    prof_bpf_remapped(r->bpf, pid, addr, addr + size, time, now_ns());
}

/* Is REC the exit record of a process's first thread (pid = tid), which
   the profile and the walker take for the process's end, while the
   process lives on in other threads (pthread_exit in main)?  Then the
   process is watched for its real end (lingering_ends), and the record
   is fed as no thread's exit.  Taken for the end, it made every later
   sample's process a new one, with no mappings: [unknown].  */
static int lingers_on(struct recorder *r, const uint8_t *rec, size_t len)
{
  const struct perf_event_header *h = (const void *)rec;
  struct gorc_perf_task_body b;
  if (h->type != PERF_RECORD_EXIT || len < sizeof *h + sizeof b)
    return 0;
  memcpy(&b, rec + sizeof *h, sizeof b);
  if (b.pid != b.tid || process_ended((pid_t)b.pid))
    return 0;
  r->lingering = prof_xgrow(r->lingering, &r->cap_lingering, r->nlingering + 1,
                            sizeof *r->lingering, 16, SIZE_MAX);
  r->lingering[r->nlingering++] = (pid_t)b.pid;
  return 1;
}

/* The exit record REC made no thread's (tid 0): not the process's end.  */
static void no_thread(uint8_t *rec)
{
  uint32_t none = 0;
  memcpy(rec + sizeof(struct perf_event_header) + offsetof(struct gorc_perf_task_body, tid),
         &none, sizeof none);
}

/* Each round: the lingering processes that have ended now end in the
   profile and the walker, by an exit record of their own at this time
   (that of the last thread came when the process still counted it).  */
static void lingering_ends(struct recorder *r)
{
  size_t kept = 0;
  for (size_t i = 0; i < r->nlingering; i++) {
    pid_t pid = r->lingering[i];
    if (!process_ended(pid)) {
      r->lingering[kept++] = pid;
      continue;
    }
    struct {
      struct perf_event_header h;
      struct gorc_perf_task_body b;
    } end = { { PERF_RECORD_EXIT, 0, sizeof end }, { (uint32_t)pid, 0, (uint32_t)pid, 0, now_ns() } };
    if (r->bpf)
      feed_walker(r, (const uint8_t *)&end, sizeof end, end.b.time);
    pend_at(r, &end, sizeof end, end.b.time, PEND_PERF);
  }
  r->nlingering = kept;
}

/* A perf record copied out, to be fed in time order.  Its time.  */
static uint64_t pend(struct recorder *r, const uint8_t *rec, size_t len)
{
  int lingering = lingers_on(r, rec, len);
  uint64_t time = record_time(r, rec, len);
  if (r->bpf && !lingering)
    feed_walker(r, rec, len, time);
  pend_at(r, rec, len, time, PEND_PERF);
  if (lingering)
    no_thread(r->pend[r->npend - 1].rec);
  return time;
}

/* Records may have been lost in a ring after TIME.  */
static void suspect_loss(struct recorder *r, uint64_t time)
{
  if (!r->loss_suspected || time < r->loss_after)
    r->loss_after = time;
  r->loss_suspected = 1;
}

/* Copy every record of RING out.  Records may have been lost: where a
   PERF_RECORD_LOST says so, and first where the ring is found with less
   room than the largest record (the kernel reports a loss only when it
   next writes into that ring, which a program gone on on another CPU
   may never make it do).  */
static void drain_ring(struct recorder *r, struct ring *ring)
{
  static uint8_t wrapped[65536];
  uint64_t head = __atomic_load_n(&ring->page->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = ring->page->data_tail;
  int full = ring->size - (head - tail) < r->largest_record;
  while (tail < head) {
    struct perf_event_header h;
    uint64_t at = tail % ring->size;
    const uint8_t *rec = ring->data + at;
    if (ring->size - at < sizeof h) {
      memcpy(wrapped, ring->data + at, ring->size - at);
      memcpy(wrapped + (ring->size - at), ring->data, sizeof h - (ring->size - at));
      memcpy(&h, wrapped, sizeof h);
    } else {
      memcpy(&h, rec, sizeof h);
    }
    if (h.size < sizeof h || h.size > head - tail)
      break;
    if (ring->size - at < h.size) {
      memcpy(wrapped, ring->data + at, ring->size - at);
      memcpy(wrapped + (ring->size - at), ring->data, h.size - (ring->size - at));
      rec = wrapped;
    }
    uint64_t time = pend(r, rec, h.size);
    tail += h.size;
    if (h.type != PERF_RECORD_LOST) {
      ring->last_time = time;
      continue;
    }
    uint64_t id_lost[2];
    if (h.size >= sizeof h + sizeof id_lost) {
      memcpy(id_lost, rec + sizeof h, sizeof id_lost);
      r->lost_reported += id_lost[1];
    }
    suspect_loss(r, ring->last_time);
  }
  __atomic_store_n(&ring->page->data_tail, tail, __ATOMIC_RELEASE);
  if (full)
    suspect_loss(r, ring->last_time);
}

/* Every ring: perf's, then the walker's (whose samples may lie in
   mappings perf's rings just reported).  Where records may have been
   lost, the maps are read again once every perf ring has told the
   walker's view of the processes it has; then GORC_PROF_TEST_HOLD_RING's
   second answer, at the first PERF_RECORD_LOST.  */
static void drain_all(struct recorder *r)
{
  uint64_t reported_before = r->lost_reported;
  for (int c = 0; c < r->ncpus; c++)
    if (r->rings[c].fd >= 0)
      drain_ring(r, &r->rings[c]);
  if (r->loss_suspected) {
    r->loss_suspected = 0;
    reread_maps(r, r->loss_after);
  }
  if (r->answer_lost && r->lost_reported > reported_before) {
    r->answer_lost = 0;
    kill(r->child, SIGUSR1);
  }
  if (r->bpf) {
    prof_bpf_collect(r->bpf, &r->bpf_view);
    prof_bpf_drain(r->bpf, pend_bpf, r);
    /* the walker's own ring buffer full: its samples dropped count as
       lost too (one more time a ring was full for each round that met
       it) */
    uint64_t lost = prof_bpf_lost_since(r->bpf);
    if (lost) {
      r->d->lost += lost;
      r->d->lost_records++;
    }
  }
}

static int pending_cmp(const void *a, const void *b)
{
  const struct pending *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Feed the records older than HORIZON (all with UINT64_MAX), in order.
   Feeding (unwinding, reading the modules of new processes) can take
   longer than a ring holds (-a on a busy machine lost samples so): the
   rings are drained every 256 records fed, what they give kept for a
   later round (after the sorted ones).  */
static void feed_until(struct recorder *r, uint64_t horizon)
{
  if (r->npend == 0)
    return;             /* nothing pending: no array yet */
  prof_sort(r->pend, r->npend, sizeof *r->pend, pending_cmp);
  size_t k = 0, sorted = r->npend;
  for (; k < sorted && r->pend[k].time < horizon; k++) {
    const struct pending *p = &r->pend[k];
    if (p->kind == PEND_BPF) {
      prof_bpf_feed(r->bpf, r->d, p->rec, p->len);
      prof_bpf_refresh(r->bpf, &r->bpf_view);
    } else if (p->kind == PEND_MAPS) {
      feed_maps(r->d, (const struct maps_read *)p->rec, p->time);
    } else {
      prof_feed_record(r->d, &r->layout, p->rec, p->len, p->time);
    }
    free(r->pend[k].rec);
    if (k % 256 == 255)
      drain_all(r);
  }
  memmove(r->pend, r->pend + k, (r->npend - k) * sizeof *r->pend);
  r->npend -= k;
  /* the last round: what was drained while feeding too */
  if (horizon == UINT64_MAX && r->npend)
    feed_until(r, horizon);
}

/* --every: every record written before now fed, then the interval's
   hook.  */
static void cut_interval(struct recorder *r)
{
  uint64_t end = now_ns();
  drain_all(r);
  feed_until(r, end);
  r->o->interval(r->o->interval_arg, r->d);
}

static void progress(const struct recorder *r, double t, int final)
{
  size_t ns, nt;
  prof_data_totals(r->d, &ns, &nt);
  if (r->o->progress == 1 && !final)
    fprintf(stderr, "\rgorc-prof: %zu samples, %zu threads, %llu lost, %.1f s\033[K", ns, nt,
            (unsigned long long)r->d->lost, t);
  else if (r->o->progress == 1)
    fprintf(stderr, "\r\033[K");
  else if (r->o->progress == 2 && !final)
    fprintf(stderr, "gorc-prof: %zu samples, %zu threads, %llu lost, %.1f s\n", ns, nt,
            (unsigned long long)r->d->lost, t);
}

/* Are the attached processes all gone?  */
static int targets_gone(struct recorder *r, int *status)
{
  if (r->o->all)
    return 0;
  if (r->child) {
    r->child_done = waitpid(r->child, status, WNOHANG) == r->child;
    return r->child_done;
  }
  for (size_t i = 0; i < r->o->npids; i++)
    if (!process_ended(r->o->pids[i]))
      return 0;
  return 1;
}

/* The records lost that no PERF_RECORD_LOST reported (a ring full at
   the end, or never written again: the program went on on another
   CPU), from the events' own counts, into the profile's: as one more
   time a ring was full.  */
static void count_unreported_loss(struct recorder *r)
{
  if (!(r->attr.read_format & PERF_FORMAT_LOST))
    return;
  uint64_t lost = 0, value_lost[2];
  for (size_t i = 0; i < r->nfds; i++)
    if (read(r->fds[i], value_lost, sizeof value_lost) == (ssize_t)sizeof value_lost)
      lost += value_lost[1];
  if (lost > r->lost_reported) {
    r->d->lost += lost - r->lost_reported;
    r->d->lost_records++;
  }
}

/* The descriptors the loop waits on into PFD (room for ncpus + 3): the
   walker's ring buffer and its tables' publisher, each CPU's ring, and
   the started program's pidfd (Linux 5.3; else none), readable once the
   program has exited, so that its end wakes the loop.  Returns how
   many.  */
static int poll_set(struct recorder *r, struct pollfd *pfd)
{
  int n = 0;
  if (r->bpf) {
    prof_bpf_drain(r->bpf, pend_bpf, r);    /* makes the ring's descriptor */
    pfd[n++] = (struct pollfd){ .fd = prof_bpf_ring_fd(r->bpf), .events = POLLIN };
    pfd[n++] = (struct pollfd){ .fd = prof_bpf_published_fd(r->bpf), .events = POLLIN };
  }
  for (int c = 0; c < r->ncpus; c++)
    if (r->rings[c].fd >= 0)
      pfd[n++] = (struct pollfd){ .fd = r->rings[c].fd, .events = POLLIN };
  r->pidfd = r->child ? (int)syscall(SYS_pidfd_open, r->child, 0) : -1;
  if (r->pidfd >= 0)
    pfd[n++] = (struct pollfd){ .fd = r->pidfd, .events = POLLIN };
  return n;
}

/* Wait for records, TIMEOUT ms at most (-1: until one comes).  The
   event of a ring whose task has exited reports POLLHUP at every poll
   from then on: it is polled no more (its ring is still read every
   round, the timeout's included).  Polled, it made the loop spin until
   the exit was reaped: 5,000-8,000 rounds, 10-16 ms of CPU, at the end
   of a run of true.  */
static void wait_records(struct pollfd *pfd, int npfd, int timeout)
{
  if (poll(pfd, (nfds_t)npfd, timeout) <= 0)
    return;
  for (int i = 0; i < npfd; i++)
    if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
      pfd[i].fd = -1;
}

/* Drain until the end: Ctrl-C, the duration, or the targets exit.  */
static void record_loop(struct recorder *r, int *status)
{
  double t0 = now(), last_line = t0;
  uint64_t horizon = 0;
  struct pollfd *pfd = prof_xmalloc(((size_t)r->ncpus + 3) * sizeof *pfd);
  int npfd = poll_set(r, pfd);
  double interval_end = t0 + r->o->every;
  for (;;) {
    int done = interrupted || targets_gone(r, status)
               || (r->o->duration > 0 && now() - t0 >= r->o->duration);
    if (r->o->every > 0 && !done && now() >= interval_end) {
      cut_interval(r);
      interval_end += r->o->every;
    }
    end_realtime(r, done);
    if (r->hold && !done && !release_asked) {
      poll(NULL, 0, DRAIN_MS);
      continue;
    }
    /* what was written before this round's reads started is complete
       once every ring has been read */
    uint64_t round_start = now_ns();
    drain_all(r);
    lingering_ends(r);
    feed_until(r, done ? UINT64_MAX : horizon);
    horizon = round_start;
    if (r->hold && release_asked) {
      r->hold = 0;
      r->answer_lost = 1;
      kill(r->child, SIGUSR1);
    }
    if (done)
      break;
    double t = now();
    if (r->o->progress == 1 || (r->o->progress == 2 && t - last_line >= 5.0)) {
      progress(r, t - t0, 0);
      last_line = t;
    }
    wait_records(pfd, npfd, r->drain_ms);
  }
  progress(r, now() - t0, 1);
  count_unreported_loss(r);
  if (r->pidfd >= 0)
    close(r->pidfd);
  free(pfd);
}

static void recorder_close(struct recorder *r)
{
  long pg = sysconf(_SC_PAGESIZE);
  prof_bpf_close(r->bpf);
  prof_data_free(&r->bpf_view);
  for (size_t i = 0; i < r->nfds; i++)
    close(r->fds[i]);
  for (int c = 0; c < r->ncpus; c++)
    if (r->rings[c].page)
      munmap(r->rings[c].page, r->rings[c].size + (size_t)pg);
  for (size_t k = 0; k < r->npend; k++)
    free(r->pend[k].rec);
  free(r->pend);
  free(r->lingering);
  free(r->fds);
  free(r->rings);
}

/* The walker given the processes read from /proc (-a).  */
static void sync_walker(struct recorder *r)
{
  for (size_t i = 0; i < r->d->nprocs; i++)
    walker_adopt(r, &r->d->procs[i], 0);
}

/* -a: gorc-prof's own process, read before the events open and given to
   the walker with its tables in (BPF): it is sampled from the first
   event on, through the read of every other process, and those first
   samples, copied, ended [truncated] under its own deep frames.  */
static void synthesize_self(struct recorder *r)
{
  synthesize_process(r, getpid());
  if (r->bpf)
    walker_adopt(r, prof_proc_get(r->d, getpid()), 1);
}

/* Open the events: on every CPU (-a), on the stopped program, or on each
   process of -p.  */
static int open_events(struct recorder *r)
{
  if (r->o->all) {
    synthesize_self(r);
    if (open_thread(r, -1) != 0)
      return -1;
    /* after the events open: a process started in between is in both */
    synthesize_all(r);
    if (r->bpf)
      sync_walker(r);
    if (r->o->progress)
      fprintf(stderr, "gorc-prof: recording every process on %d CPUs\n", r->ncpus);
    return 0;
  }
  if (r->child) {
    /* its mappings are reported from its exec on */
    int rc = open_thread(r, r->child);
    if (rc > 0)
      fprintf(stderr, "gorc-prof: the program exited before it started\n");
    return rc == 0 ? 0 : -1;
  }
  for (size_t i = 0; i < r->o->npids; i++)
    if (attach_process(r, r->o->pids[i]) != 0)
      return -1;
  return 0;
}

/* The hooks of GORC_PROF_TEST_*, each said where it is read.  */
static void test_hooks(struct recorder *r)
{
  const char *hold = getenv("GORC_PROF_TEST_HOLD_RING");
  r->ring_pages = RING_PAGES;
  if (hold) {
    unsigned long pages = strtoul(hold, NULL, 10);
    if (r->o->cmd && pages > 0 && pages <= RING_PAGES && (pages & (pages - 1)) == 0) {
      struct sigaction sa = { 0 };
      sa.sa_handler = on_release;
      sigaction(SIGUSR1, &sa, NULL);
      r->ring_pages = pages;
      r->hold = 1;
    } else {
      fprintf(stderr, "gorc-prof: GORC_PROF_TEST_HOLD_RING=%s ignored: it wants a power of two "
              "of pages up to %d, and a started program\n", hold, RING_PAGES);
    }
  }
  /* GORC_PROF_TEST_NO_DRAIN_TIMEOUT=1: the rings are read only when
     they wake gorc-prof (or the started program ends), so that a test
     sees the walker's ring wake it */
  const char *no_timeout = getenv("GORC_PROF_TEST_NO_DRAIN_TIMEOUT");
  r->drain_ms = no_timeout && strcmp(no_timeout, "1") == 0 && r->o->cmd ? -1 : DRAIN_MS;
  const char *exit_in_attach = getenv("GORC_PROF_TEST_EXIT_IN_ATTACH");
  r->exit_in_attach = exit_in_attach && strcmp(exit_in_attach, "1") == 0;
  const char *refuse = getenv("GORC_PROF_TEST_REFUSE_FORMAT_LOST");
  r->refuse_format_lost = refuse && strcmp(refuse, "1") == 0;
}

/* The walker's ring buffer: a power of two, room for the stack copies
   (PROF_BPF_COPY bytes each, made until a module's table is loaded) of
   every CPU at the rate asked for a while.  A sample wakes gorc-prof
   when the ring is a quarter full; gorc-prof drains none while it
   builds a table.
   - A started program or -p: 31 ms of copies, 256 KB to 4 MB (512 KB at
     1 kHz on 2 CPUs).  Its modules' tables are built before it starts
     or is attached; copies are a dlopen's, for as long as a table takes
     (a few ms for libc's .eh_frame).  The kernel allocates and maps the
     ring at the start: 4 MB were 1.5 ms of the 8 ms of CPU of
     gorc-prof -- true.
   - -a: a second of copies, 4 MB to 64 MB.  Every module's first
     samples carry a copy until its table is built, up to a second for
     a compiler's .eh_frame: on a busy 2-CPU machine 3 s runs lost up to
     960 samples of 6,000 with 4 MB, none with 16 MB.  */
static uint32_t walker_ring_bytes(const struct recorder *r)
{
  uint64_t second = (uint64_t)r->ncpus * (uint64_t)r->o->hz * PROF_BPF_COPY;
  uint64_t want = r->o->all ? second : second / 32;
  uint32_t bytes = r->o->all ? 4u << 20 : 256u << 10, most = r->o->all ? 64u << 20 : 4u << 20;
  while (bytes < want && bytes < most)
    bytes <<= 1;
  return bytes;
}

/* --unwind=bpf or the default: the BPF walker, or why not (an explicit
   --unwind=bpf then fails: -1; the default goes on copying stacks).  */
static int choose_walker(struct recorder *r)
{
  char why[512];
  struct prof_bpf_opts opts = {
    .kernel_frames = !r->o->user_only,
    .rewalk_now = r->o->all,
    .ring_bytes = walker_ring_bytes(r),
    .run_time_stats = r->o->progress != 0,   /* (the report that prints them) */
    .keep_dir = r->o->keep_walker,
  };
  r->bpf = prof_bpf_open(&opts, why, sizeof why);
  if (r->bpf)
    return 0;
  if (r->o->unwind == PROF_UNWIND_BPF) {
    fprintf(stderr, "gorc-prof: --unwind=bpf: cannot walk stacks in the kernel: %s\n", why);
    return -1;
  }
  fprintf(stderr, "gorc-prof: no in-kernel unwinding: %s; copying stacks (--unwind=copy)\n", why);
  return 0;
}

int prof_record(const struct prof_record_opts *o, struct prof_data *d, int *status)
{
  struct recorder r;
  int go = -1, rc = 0;
  memset(&r, 0, sizeof r);
  r.pidfd = -1;
  r.o = o;
  r.d = d;
  d->hz = (uint64_t)o->hz;
  d->live = r.bpf_view.live = 1;
  *status = 0;
  r.ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
  r.rings = prof_xmalloc((size_t)r.ncpus * sizeof *r.rings);
  for (int c = 0; c < r.ncpus; c++)
    r.rings[c] = (struct ring){ .fd = -1 };
  test_hooks(&r);
  if (o->cmd && (r.child = start_program(o->cmd, &go)) < 0) {
    free(r.rings);
    return 2;
  }
  if (r.child)
    name_launcher(&r);
  if (o->unwind != PROF_UNWIND_COPY && choose_walker(&r) != 0) {
    if (r.child) {
      close(go);
      waitpid(r.child, status, 0);
    }
    free(r.rings);
    return 2;
  }
  if (r.bpf && !o->all && !r.hold)
    r.ring_pages = SIDEBAND_RING_PAGES;
  r.kernel = !o->user_only && (r.bpf || kernel_allowed());
  attr_init(&r);
  if (open_events(&r) != 0) {
    rc = 2;
    if (r.child) {
      close(go);              /* the child exits without running the program */
      waitpid(r.child, status, 0);
    }
    recorder_close(&r);
    return rc;
  }
  /* -p: Ctrl-C ends the recording.  A started program gets the Ctrl-C
     (as under time(1)) and the recording ends when it does.  */
  struct sigaction sa = { 0 }, old_int, old_term;
  sa.sa_handler = on_interrupt;
  sigaction(SIGTERM, &sa, &old_term);
  sa.sa_handler = r.child ? SIG_IGN : on_interrupt;
  sigaction(SIGINT, &sa, &old_int);
  if (r.child) {
    if (r.bpf) {
      prof_bpf_prepare(r.bpf, o->cmd[0]);
      start_realtime(&r);
    }
    if (write(go, "g", 1) != 1)
      rc = 2;
    close(go);
  }
  record_loop(&r, status);
  if (r.bpf && o->progress)
    prof_bpf_report(r.bpf, stderr);
  /* after -d the program runs on; gorc-prof's status is then its own */
  if (r.child && !r.child_done)
    *status = 0;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  recorder_close(&r);
  return rc;
}
