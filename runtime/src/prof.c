/* libgorc-preload.so: the sampler behind tools/gorc-prof.

   Started by preload.c when GORC_PROF_OUT is set.  Every thread gets a
   timer on its own CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID) with
   SIGEV_THREAD_ID, GORC_PROF_HZ per second, default 1000); preload.c's
   pthread_create arms new threads.  The SIGPROF handler walks the
   interrupted stack with gorc_backtrace_ucontext into a cell of a
   lock-free ring (bounded MPMC, sequence numbers; a full ring drops the
   sample and counts it).  A writer thread drains the ring every 10 ms
   into GORC_PROF_OUT.PID (format: include/gorc/prof.h), together with the
   module map whenever a module was loaded.  At exit the ring is drained
   a last time.  The start reads nothing of any module: the module map is
   each module's span and path (dl_iterate_phdr), walks find modules as
   they meet them, and symbols are gorc-prof's business, offline.  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#pragma GCC visibility push(default)
#include "gorc.h"
#include "internal.h"
#pragma GCC visibility pop
#include "gorc/prof.h"

#define HIDDEN __attribute__((visibility("hidden")))
#define RING_CELLS 1024   /* power of two; 4 MB, touched as used */

/* seq of cell I is stored as seq - I, so that the zero pages of a fresh
   mapping are the initial state (no 2 MB touched at start-up).  */
struct cell {
  _Atomic uint64_t seq;
  uint32_t tid;
  int32_t status;
  uint32_t n;
  void *ips[GORC_PROF_MAX_DEPTH];
};

static struct cell *ring;
static _Atomic uint64_t ring_head;
static uint64_t ring_tail;           /* writer thread only */
static _Atomic uint64_t n_samples, n_dropped;
static _Atomic int running;
static int out_fd = -1;
static long interval_ns;
static pid_t owner_pid;
static pthread_t writer;
static _Atomic int writer_stop;
/* The writer thread and the final drain at exit take turns on the file.  */
static pthread_mutex_t writer_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread int my_tid __attribute__((tls_model("initial-exec")));
static __thread int my_armed __attribute__((tls_model("initial-exec")));
static __thread timer_t my_timer __attribute__((tls_model("initial-exec")));

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
  (void)sig;
  (void)si;
  int saved = errno;
  if (!atomic_load_explicit(&running, memory_order_acquire)) {
    errno = saved;
    return;
  }
  uint64_t pos = atomic_load_explicit(&ring_head, memory_order_relaxed);
  struct cell *c;
  for (;;) {
    c = &ring[pos & (RING_CELLS - 1)];
    uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire) + (pos & (RING_CELLS - 1));
    if (seq == pos) {
      if (atomic_compare_exchange_weak_explicit(&ring_head, &pos, pos + 1,
                                                memory_order_relaxed, memory_order_relaxed))
        break;
    } else if (seq < pos) {
      atomic_fetch_add_explicit(&n_dropped, 1, memory_order_relaxed);
      errno = saved;
      return;
    } else {
      pos = atomic_load_explicit(&ring_head, memory_order_relaxed);
    }
  }
  if (!my_tid)
    my_tid = (int)syscall(SYS_gettid);
  int n = gorc_backtrace_ucontext(uc, c->ips, GORC_PROF_MAX_DEPTH);
  if (n < 0) {
    c->status = n;
    n = gorc_backtrace_count();
  } else {
    c->status = n == GORC_PROF_MAX_DEPTH;
  }
  c->n = (uint32_t)(n < 0 ? 0 : n);
  c->tid = (uint32_t)my_tid;
  atomic_fetch_add_explicit(&n_samples, 1, memory_order_relaxed);
  atomic_store_explicit(&c->seq, pos + 1 - (pos & (RING_CELLS - 1)), memory_order_release);
  errno = saved;
}

/* Arm the calling thread's CPU-time timer.  */
HIDDEN void gorc_prof_thread_begin(void)
{
  if (!atomic_load(&running) || my_armed)
    return;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  my_tid = (int)syscall(SYS_gettid);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev._sigev_un._tid = my_tid;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &my_timer) != 0)
    return;
  struct itimerspec its;
  its.it_interval.tv_sec = interval_ns / 1000000000L;
  its.it_interval.tv_nsec = interval_ns % 1000000000L;
  its.it_value = its.it_interval;
  if (timer_settime(my_timer, 0, &its, NULL) != 0) {
    timer_delete(my_timer);
    return;
  }
  my_armed = 1;
}

HIDDEN void gorc_prof_thread_end(void)
{
  if (my_armed) {
    my_armed = 0;
    timer_delete(my_timer);
  }
}

HIDDEN int gorc_prof_active(void)
{
  return atomic_load(&running);
}

/* ------------------------------------------------------------ writer */

static char wbuf[1 << 16];
static size_t wlen;

static void wflush(void)
{
  size_t done = 0;
  while (done < wlen) {
    ssize_t r = write(out_fd, wbuf + done, wlen - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    done += (size_t)r;
  }
  wlen = 0;
}

static void wput(const void *p, size_t len)
{
  if (wlen + len > sizeof wbuf)
    wflush();
  memcpy(wbuf + wlen, p, len);
  wlen += len;
}

static void drain(void)
{
  for (;;) {
    uint64_t i = ring_tail & (RING_CELLS - 1);
    struct cell *c = &ring[i];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) + i != ring_tail + 1)
      break;
    struct gorc_prof_sample s;
    s.h.type = GORC_PROF_SAMPLE;
    s.h.len = (uint32_t)(sizeof s + c->n * sizeof(uint64_t));
    s.tid = c->tid;
    s.status = c->status;
    wput(&s, sizeof s);
    wput(c->ips, c->n * sizeof(uint64_t));
    atomic_store_explicit(&c->seq, ring_tail + RING_CELLS - i, memory_order_release);
    ring_tail++;
  }
  wflush();
}

static unsigned long long last_adds = ~0ULL;
static int write_all;

static int module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)data;
  if (!write_all) {
    /* the first call tells whether anything was loaded since last time */
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) && info->dlpi_adds == last_adds)
      return 1;
    last_adds = info->dlpi_adds;
    write_all = 1;
  }
  uint64_t lo, hi;
  char exe[4096];
  const char *name = gorc_rt_module_span_and_path(info, &lo, &hi, exe, sizeof exe);
  if (!name)
    return 0;
  size_t nlen = strlen(name) + 1;
  if (nlen > 4000)
    return 0;
  struct gorc_prof_module m;
  size_t len = (sizeof m + nlen + 7) & ~(size_t)7;
  m.h.type = GORC_PROF_MODULE;
  m.h.len = (uint32_t)len;
  m.base = info->dlpi_addr;
  m.lo = lo;
  m.hi = hi;
  static const char zeros[8];
  wput(&m, sizeof m);
  wput(name, nlen);
  wput(zeros, len - sizeof m - nlen);
  return 0;
}

static void write_modules(void)
{
  write_all = 0;
  dl_iterate_phdr(module_cb, NULL);
  write_all = 0;
}

static void *writer_main(void *arg)
{
  (void)arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  for (;;) {
    pthread_mutex_lock(&writer_lock);
    if (atomic_load(&writer_stop)) {
      pthread_mutex_unlock(&writer_lock);
      return NULL;
    }
    write_modules();
    drain();
    pthread_mutex_unlock(&writer_lock);
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
}

/* Start when GORC_PROF_OUT is set.  REAL_CREATE is libc's pthread_create
   (preload.c hooks the exported one).  */
HIDDEN void gorc_prof_start(int (*real_create)(pthread_t *, const pthread_attr_t *,
                                                void *(*)(void *), void *))
{
  const char *out = getenv("GORC_PROF_OUT");
  if (!out || !*out || !real_create)
    return;
  const char *hz_s = getenv("GORC_PROF_HZ");
  long hz = hz_s ? strtol(hz_s, NULL, 10) : 1000;
  if (hz < 1 || hz > 100000)
    hz = 1000;
  interval_ns = 1000000000L / hz;

  char path[4096];
  owner_pid = getpid();
  /* OUT.PID, or OUT.PID.N after an exec in the same process */
  snprintf(path, sizeof path, "%s.%d", out, (int)owner_pid);
  out_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  for (int n = 1; out_fd < 0 && errno == EEXIST && n < 1000; n++) {
    snprintf(path, sizeof path, "%s.%d.%d", out, (int)owner_pid, n);
    out_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  }
  if (out_fd < 0)
    return;
  ring = mmap(NULL, sizeof(struct cell) * RING_CELLS, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ring == MAP_FAILED) {
    ring = NULL;
    close(out_fd);
    out_fd = -1;
    return;
  }
  wput(GORC_PROF_MAGIC, 8);
  write_modules();
  wflush();

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, NULL) != 0)
    return;
  if (real_create(&writer, NULL, writer_main, NULL) != 0)
    return;
  atomic_store(&running, 1);
  gorc_prof_thread_begin();
}

/* At exit (preload.c's destructor): stop sampling, drain, write the end.  */
HIDDEN void gorc_prof_stop(void)
{
  if (!atomic_load(&running) || getpid() != owner_pid)
    return;
  atomic_store(&running, 0);
  gorc_prof_thread_end();
  /* No join: the writer may be asleep; it stops at its next turn, and
     exit ends it.  */
  pthread_mutex_lock(&writer_lock);
  atomic_store(&writer_stop, 1);
  write_modules();
  drain();
  struct gorc_prof_end e;
  e.h.type = GORC_PROF_END;
  e.h.len = sizeof e;
  e.samples = atomic_load(&n_samples);
  e.dropped = atomic_load(&n_dropped);
  e.hz = (uint64_t)(1000000000L / interval_ns);
  wput(&e, sizeof e);
  wflush();
  close(out_fd);
  out_fd = -1;
  pthread_mutex_unlock(&writer_lock);
}
