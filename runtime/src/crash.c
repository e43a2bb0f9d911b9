/* libgorc: an opt-in crash handler.  gorc_install_crash_handler() (or
   GORC_CRASH_TRACE=1 with libgorc-preload.so) catches SIGSEGV, SIGBUS,
   SIGABRT and SIGFPE, prints a symbolized trace of the faulting thread on
   stderr and lets the signal kill the process as it would have.

   The install: one mapping, an alternate signal stack for the
   installing thread and a stack to print on when the handler runs on
   another, smaller altstack; the sigactions; and a request to every
   other running thread to set up an altstack of its own.  Threads
   started later by pthread_create set up theirs as they start
   (thread.c).  So a stack overflow in any thread gets a trace
   (docs/CRASH.md).  Nothing is read of any module until a crash: the
   handler walks from the interrupted context, bounded by the thread's
   stack as the kernel maps it (stack.c: frames above an sp in the guard
   area are walked too), a part at a time, and for each frame finds the
   module as the walk does (module.c) and its function symbol in the
   module's file (elfsym.c: .symtab, else the separate debug file's, else
   .dynsym, read with open/pread into stack buffers), so modules loaded
   after the install are named too.  C++ names are demangled by
   libstdc++'s allocation-free demangler (cxx-demangle.o, linked in).
   Each frame also shows MODULE+0xOFFSET for addr2line; repeated frames
   are printed once with their count.  Async-signal-safe throughout.
   The header line is written before the walk and each frame as it is
   found; one thread prints at a time (others that fault meanwhile wait
   for it to end the process), and a fault in the walk itself ends the
   trace with a note.  */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#pragma GCC visibility push(default)
#include "arch.h"
#include "gorc.h"
#include "internal.h"
#pragma GCC visibility pop
#include "elfsym.h"
#include "stack.h"

/* The walk goes a part of CRASH_PART frames at a time, each printed
   (repeated frames collapsed into one line) before the next is walked,
   so that the trace of a deep recursion is the whole stack; at most
   CRASH_MAX_FRAMES frames.  */
#define CRASH_PART 256
#define CRASH_MAX_FRAMES (1ul << 20)
/* The handler's stack need: the walk (about 4 KB), the symbol reader's
   buffers (about 10 KB) and the demangler, whose arrays on the stack
   take about 72 bytes per character of the name (CRASH_DEMANGLE_MAX).
   Each of the two stacks below has this much room, mapped at the
   install and touched only as used.  */
#define CRASH_STACK (256 * 1024)
#define CRASH_GUARD 4096
#define CRASH_NAME_MAX 1024
#define CRASH_DEMANGLE_MAX 1024
/* The alternate signal stack of each thread started after the install
   (gorc_rt_crash_thread_begin): room for the kernel's signal frame and
   the handler until it moves to the print stack.  */
#define CRASH_THREAD_ALTSTACK (64 * 1024)

static int installed;

/* One mapping, made at the install: the installing thread's alternate
   signal stack (unless the program has its own) on top, a guard page,
   and below it the stack a trace is printed on when the handler runs on
   an alternate stack that is not ours (a program's own, often SIGSTKSZ
   = 8 KiB: too small).  Only the thread that took crashing_tid prints,
   so one printing stack serves every thread; the installing thread's
   altstack is apart, as that thread may fault meanwhile.  NULL when the
   mapping failed: then the handler prints on whatever stack it runs on.  */
static char *crash_altstack, *crash_print_stack;

static void crash_handler(int sig, siginfo_t *si, void *uc);
static void give_running_threads_altstacks(void);

__attribute__((visibility("default"))) int gorc_install_crash_handler(void)
{
  static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE };
  if (installed)
    return 0;
  char *map = mmap(NULL, 2 * CRASH_STACK + CRASH_GUARD, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (map != MAP_FAILED) {
    crash_print_stack = map;
    crash_altstack = map + CRASH_STACK + CRASH_GUARD;
    /* A print stack that overflows faults instead of running into the
       altstack.  */
    mprotect(map + CRASH_STACK, CRASH_GUARD, PROT_NONE);
    stack_t ss = { .ss_sp = crash_altstack, .ss_size = CRASH_STACK, .ss_flags = 0 };
    stack_t old;
    /* Keep an altstack the program set up itself.  */
    if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
      sigaltstack(&ss, NULL);
  }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = crash_handler;
  /* No SA_RESETHAND: it resets the action for the whole process at the
     first delivery, and a second thread faulting then would kill the
     process before the first wrote its trace.  SA_NODEFER: a fault in
     the handler's own walk reaches the handler (nested_fault) instead of
     killing the process silently.  SA_RESTART: a thread's system call
     that the install's request for an altstack interrupts goes on where
     it can (give_running_threads_altstacks).  */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (sigaction(sigs[i], &sa, NULL) != 0)
      return -errno;
  /* Threads started from here on set up their altstack themselves
     (thread.c); the others are asked to.  */
  __atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
  give_running_threads_altstacks();
  return 0;
}

int gorc_rt_crash_installed(void)
{
  return __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
}

/* An alternate signal stack for the calling thread, so that its stack
   overflow is traced too, unless it has one already; a guard page below
   it.  Returns the mapping, or NULL.  Async-signal-safe (system calls
   only).  */
static void *thread_altstack(void)
{
  stack_t old;
  if (sigaltstack(NULL, &old) != 0 || !(old.ss_flags & SS_DISABLE))
    return NULL;
  char *map = mmap(NULL, CRASH_GUARD + CRASH_THREAD_ALTSTACK, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (map == MAP_FAILED)
    return NULL;
  stack_t ss = { .ss_sp = map + CRASH_GUARD, .ss_size = CRASH_THREAD_ALTSTACK, .ss_flags = 0 };
  if (mprotect(map, CRASH_GUARD, PROT_NONE) != 0 || sigaltstack(&ss, NULL) != 0) {
    munmap(map, CRASH_GUARD + CRASH_THREAD_ALTSTACK);
    return NULL;
  }
  return map;
}

/* The altstacks given to the threads running at the install, on their
   request (give_running_threads_altstacks): libgorc does not see those
   threads end, so each altstack is kept here with its thread's id and
   unmapped once that thread is gone (release_ended_threads_altstacks).
   A slot is taken by its tid (0 to tid), then its map is set; it is
   given back by its map (map to NULL, so that one caller unmaps it),
   then its tid.  Past CRASH_REQUESTED_MAX threads at the install, the
   others' altstacks stay mapped when they end.  */
#define CRASH_REQUESTED_MAX 1024
static struct requested_altstack {
  int tid;
  void *map;
} requested_altstacks[CRASH_REQUESTED_MAX];

static void keep_requested_altstack(int tid, void *map)
{
  for (unsigned i = 0; i < CRASH_REQUESTED_MAX; i++) {
    struct requested_altstack *slot = &requested_altstacks[i];
    int free_tid = 0;
    if (__atomic_compare_exchange_n(&slot->tid, &free_tid, tid, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      __atomic_store_n(&slot->map, map, __ATOMIC_RELEASE);
      return;
    }
  }
}

/* Unmaps the kept altstacks of the threads that have ended: tgkill's
   signal 0 says ESRCH once a thread is gone (a thread that ended and
   whose tid is already reused keeps its altstack until that one ends
   too).  Async-signal-safe; errno kept.  */
static void release_ended_threads_altstacks(void)
{
  int saved = errno;
  pid_t pid = getpid();
  for (unsigned i = 0; i < CRASH_REQUESTED_MAX; i++) {
    struct requested_altstack *slot = &requested_altstacks[i];
    void *map = __atomic_load_n(&slot->map, __ATOMIC_ACQUIRE);
    int tid = __atomic_load_n(&slot->tid, __ATOMIC_RELAXED);
    if (!map || syscall(SYS_tgkill, pid, tid, 0) == 0 || errno != ESRCH)
      continue;
    if (__atomic_compare_exchange_n(&slot->map, &map, NULL, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      munmap(map, CRASH_GUARD + CRASH_THREAD_ALTSTACK);
      __atomic_store_n(&slot->tid, 0, __ATOMIC_RELEASE);
    }
  }
  errno = saved;
}

/* A thread started after the install (by pthread_create, through
   libgorc's wrapper: thread.c) sets up its altstack at its start, and
   first frees those of the threads of the install that have ended.
   Returns it, for gorc_rt_crash_thread_end, or NULL.  */
void *gorc_rt_crash_thread_begin(void)
{
  if (!gorc_rt_crash_installed())
    return NULL;
  release_ended_threads_altstacks();
  return thread_altstack();
}

/* The threads already running at the install cannot be wrapped: each is
   sent a request to set up its altstack, a SIGBUS queued to it alone
   (rt_tgsigqueueinfo) that says what it is: si_code SI_QUEUE, this
   process's pid, the address of altstack_request as its value.  SIGBUS,
   not SIGSEGV: under qemu-user /proc/self/task lists qemu's own threads
   too, which block every signal but SIGSEGV, SIGFPE and SIGILL (a
   SIGSEGV killed qemu); a blocked request waits, harmless.  The
   handler, in that thread, sets up the altstack (in the signal frame
   too, which the return restores) and returns before the thread runs on
   (its system call, if it was in one, restarted where the kernel
   restarts it: SA_RESTART).  The altstack is kept with its thread's id,
   to be freed once that thread has ended (keep_requested_altstack).  */
static const char altstack_request;

static int is_altstack_request(const siginfo_t *si)
{
  return si && si->si_code == SI_QUEUE && si->si_pid == getpid()
         && si->si_value.sival_ptr == (void *)&altstack_request;
}

static void give_running_threads_altstacks(void)
{
  DIR *dir = opendir("/proc/self/task");
  struct dirent *d;
  pid_t pid = getpid(), self = (pid_t)syscall(SYS_gettid);
  if (!dir)
    return;
  while ((d = readdir(dir)) != NULL) {
    pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);
    if (tid <= 0 || tid == self)
      continue;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGBUS;
    si.si_code = SI_QUEUE;
    si.si_pid = pid;
    si.si_uid = getuid();
    si.si_value.sival_ptr = (void *)&altstack_request;
    /* A thread that ended meanwhile: ESRCH, nothing to do.  */
    syscall(SYS_rt_tgsigqueueinfo, pid, tid, SIGBUS, &si);
  }
  closedir(dir);
}

/* At the end of the thread that MAP (gorc_rt_crash_thread_begin's) is
   the altstack of: disabled, if it still is the thread's (the program
   may have set its own meanwhile), and unmapped, unless the thread ends
   from a handler running on it.  */
void gorc_rt_crash_thread_end(void *map)
{
  stack_t cur;
  if (!map)
    return;
  if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)map + CRASH_GUARD
      && !(cur.ss_flags & SS_DISABLE)) {
    stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
    if ((cur.ss_flags & SS_ONSTACK) || sigaltstack(&off, NULL) != 0)
      return;
  }
  munmap(map, CRASH_GUARD + CRASH_THREAD_ALTSTACK);
}

/* ------------------------------------------------------------ handler side */

struct out {
  char buf[512];
  size_t len;
};

static void out_flush(struct out *o)
{
  size_t done = 0;
  while (done < o->len) {
    ssize_t r = write(STDERR_FILENO, o->buf + done, o->len - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    done += (size_t)r;
  }
  o->len = 0;
}

static void out_str(struct out *o, const char *s)
{
  while (*s) {
    if (o->len == sizeof o->buf)
      out_flush(o);
    o->buf[o->len++] = *s++;
  }
}

static void out_hex(struct out *o, uint64_t v)
{
  char t[19];
  int i = 18;
  t[i] = 0;
  do {
    t[--i] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  t[--i] = 'x';
  t[--i] = '0';
  out_str(o, t + i);
}

/* V in decimal, thousands grouped by commas (a count a reader compares
   at a glance).  */
static void out_count(struct out *o, uint64_t v)
{
  char t[28];
  int i = 27, digits = 0;
  t[i] = 0;
  do {
    if (digits++ && digits % 3 == 1)
      t[--i] = ',';
    t[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  out_str(o, t + i);
}

static void out_dec(struct out *o, uint64_t v)
{
  char t[21];
  int i = 20;
  t[i] = 0;
  do {
    t[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  out_str(o, t + i);
}

static const char *signame(int sig)
{
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGABRT: return "SIGABRT";
  case SIGFPE: return "SIGFPE";
  default: return "signal";
  }
}

/* libstdc++'s __gcclibcxx_demangle_callback, renamed (runtime/Makefile.inc;
   hidden here, so libgorc.so does not export it): 0 when MANGLED was
   demangled, the text given to CALLBACK in pieces.  */
GORC_HIDDEN int gorc_rt_cxx_demangle(const char *mangled, void (*callback)(const char *, size_t, void *),
                         void *opaque);

struct demangled {
  char text[CRASH_NAME_MAX];
  size_t len;
  int cut;
};

static void demangled_add(const char *piece, size_t len, void *opaque)
{
  struct demangled *d = opaque;
  if (len >= sizeof d->text - d->len) {
    d->cut = 1;
    return;
  }
  memcpy(d->text + d->len, piece, len);
  d->len += len;
}

/* NAME, demangled when it is a C++ name the demangler reads whole.  */
static void out_name(struct out *o, const char *name)
{
  struct demangled d;
  d.len = 0;
  d.cut = 0;
  if (name[0] == '_' && name[1] == 'Z' && strlen(name) <= CRASH_DEMANGLE_MAX
      && gorc_rt_cxx_demangle(name, demangled_add, &d) == 0 && !d.cut) {
    d.text[d.len] = 0;
    out_str(o, d.text);
  } else {
    out_str(o, name);
  }
}

/* The file of the module holding PC into PATH, and its load bias: the
   walk's own module lookup (static programs included).  */
static int module_of(uint64_t pc, char *path, size_t pathlen, uint64_t *bias)
{
  struct gorc_rt_module m;
  if (gorc_rt_module_find(pc, &m) != 0)
    return -1;
  const struct link_map *lm = m.link_map;
  const char *file = gorc_rt_module_file(lm ? lm->l_name : NULL, path, pathlen);
  if (!file)
    return -1;
  if (file != path) {
    size_t n = strnlen(file, pathlen - 1);
    memcpy(path, file, n);
    path[n] = 0;
  }
  *bias = m.bias;
  return 0;
}

/* " in FUNC+0xOFF (MODULE+0xOFF)" for IP (looked up at PC), what of it
   is known.  */
static void out_location(struct out *o, uint64_t ip, uint64_t pc)
{
  char path[1024], name[CRASH_NAME_MAX];
  uint64_t bias;
  struct gorc_elfsym sym;
  if (module_of(pc, path, sizeof path, &bias) != 0)
    return;
  const char *slash = strrchr(path, '/');
  /* A module without a path (the vDSO) has no file to read.  */
  if (slash && gorc_elfsym_find(path, pc - bias, &sym, name, sizeof name)) {
    out_str(o, " in ");
    out_name(o, name);
    out_str(o, "+");
    out_hex(o, ip - bias - sym.value);
  }
  out_str(o, " (");
  out_str(o, slash ? slash + 1 : path);
  out_str(o, "+");
  out_hex(o, ip - bias);
  out_str(o, ")");
}

static void out_frame(struct out *o, unsigned long i, uint64_t ip)
{
  out_str(o, "  #");
  out_dec(o, i);
  out_str(o, i < 10 ? "  " : " ");
  out_hex(o, ip);
  /* Return addresses point after the call: look up ip - 1.  */
  out_location(o, ip, i == 0 ? ip : ip - 1);
  out_str(o, "\n");
}

/* Repeated frames: a cycle of up to CRASH_CYCLE_MAX return addresses
   (a recursion through one function, or through several in turn) seen
   twice or more in a row is printed once, with its count.  The frames
   found and not printed yet, numbered from FIRST: in a cycle (PERIOD >
   0), pending[0..PERIOD) seen TIMES times, and the next K frames
   matched it again; else pending[0..N), the last frames, in which a
   cycle is looked for.  */
#define CRASH_CYCLE_MAX 8

struct repeats {
  uint64_t pending[2 * CRASH_CYCLE_MAX];
  unsigned long first, times;
  unsigned n, period, k;
};

/* Frames #FIRST to #FIRST + PERIOD * TIMES - 1, the cycle of IPS[0..PERIOD)
   TIMES times: "#F-#L  0x... in f+0x... (...) (TIMES times)" for one
   frame, else a line with the count and the cycle's frames below it,
   numbered as the first time.  */
static void out_cycle(struct out *o, unsigned long first, const uint64_t *ips, unsigned period,
                      unsigned long times)
{
  unsigned long last = first + period * times - 1;
  if (times == 1) {
    for (unsigned i = 0; i < period; i++)
      out_frame(o, first + i, ips[i]);
    return;
  }
  out_str(o, "  #");
  out_dec(o, first);
  out_str(o, "-#");
  out_dec(o, last);
  out_str(o, "  ");
  if (period == 1) {
    out_hex(o, ips[0]);
    out_location(o, ips[0], ips[0] - 1);
    out_str(o, " (");
    out_count(o, times);
    out_str(o, " times)\n");
    return;
  }
  out_count(o, times);
  out_str(o, " times these ");
  out_dec(o, period);
  out_str(o, " frames:\n");
  for (unsigned i = 0; i < period; i++) {
    out_str(o, "  ");
    out_frame(o, first + i, ips[i]);
  }
}

static void repeats_add(struct out *o, struct repeats *r, uint64_t ip);

/* Print what R holds: without a cycle, the frames pending but the last
   KEEP; in a cycle, the cycle, and the frames that matched it again are
   taken afresh, and printed too unless KEEP (the cycle ended: more
   frames follow).  */
static void repeats_print(struct out *o, struct repeats *r, unsigned keep)
{
  if (r->period) {
    uint64_t again[CRASH_CYCLE_MAX];
    unsigned k = r->k;
    out_cycle(o, r->first, r->pending, r->period, r->times);
    out_flush(o);
    /* The frames that matched the cycle again start afresh.  */
    memcpy(again, r->pending, k * sizeof again[0]);
    r->first += r->period * r->times;
    r->period = r->k = r->n = 0;
    for (unsigned i = 0; i < k; i++)
      repeats_add(o, r, again[i]);
    if (keep == 0)
      repeats_print(o, r, 0);
    return;
  }
  unsigned out = r->n - keep;
  out_cycle(o, r->first, r->pending, out, 1);
  out_flush(o);
  memmove(r->pending, r->pending + out, keep * sizeof r->pending[0]);
  r->first += out;
  r->n = keep;
}

/* Frame #FIRST + (frames pending) returns to IP.  */
static void repeats_add(struct out *o, struct repeats *r, uint64_t ip)
{
  if (r->period) {
    if (ip == r->pending[r->k]) {
      if (++r->k == r->period) {
        r->times++;
        r->k = 0;
      }
      return;
    }
    /* The cycle ends here: printed, and IP taken afresh after the
       frames that matched it again.  */
    repeats_print(o, r, r->k);
    repeats_add(o, r, ip);
    return;
  }
  r->pending[r->n++] = ip;
  for (unsigned p = 1; 2 * p <= r->n; p++) {
    const uint64_t *a = r->pending + r->n - 2 * p;
    if (memcmp(a, a + p, p * sizeof *a) == 0) {
      /* The frames before the cycle, then the cycle, seen twice.  */
      repeats_print(o, r, 2 * p);
      r->n = r->period = p;
      r->times = 2;
      return;
    }
  }
  if (r->n == 2 * CRASH_CYCLE_MAX)
    repeats_print(o, r, r->n - 1);
}

/* The thread printing a trace (its tid), 0 while none is.  Taken with
   one compare-and-swap: the first thread to fault prints, threads that
   fault meanwhile wait for it, and a fault of the printing thread itself
   (its walk faulting) is recognised by its tid.  */
static int crashing_tid;
static int crashing_sig;   /* the signal the printing thread is handling */

/* Restore SIG's default action and raise it again in this thread.  A
   fault re-executes the instruction and dies by it once the handler
   returns; a signal sent by kill/raise/abort is delivered when the
   handler returns (or at once: the handler runs with SA_NODEFER).  */
static void die_by(int sig, const siginfo_t *si)
{
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, NULL);
  if (!si || si->si_code <= 0 || sig == SIGABRT)
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

/* The walk of the printing thread faulted: end its trace with a note and
   die by the signal it was printing for, with its default action.  */
static void nested_fault(void)
{
  struct out o;
  o.len = 0;
  out_str(&o, "  (trace ended: fault while unwinding)\n");
  out_flush(&o);
  int sig = crashing_sig;
  die_by(sig, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
  _exit(128 + sig); /* not reached: the default action of all four kills */
}

/* Another thread is printing its trace and will kill the process when
   done: wait for that rather than die first (the process would be gone
   before its trace was written).  */
static void wait_for_crashing_thread(void)
{
  struct timespec ts = { 0, 10 * 1000 * 1000 };
  for (;;)
    nanosleep(&ts, NULL);
}

/* The trace of the one thread that prints (crashing_tid), walked and
   printed a part at a time.  */
struct trace {
  int sig;
  siginfo_t *si;
  void *uc;
  int tid;
  struct gorc_rt_stack stack;   /* the thread's stack, when stack_known */
  int stack_known;
  struct gorc_cursor cursor;    /* where the walk stands */
  int n, rc;                    /* this part's addresses (in trace_ips) and the walk's result */
  int last;                     /* this part is the walk's last */
  unsigned long base;           /* the frame number of trace_ips[0] */
  struct repeats repeats;       /* the frames found, not printed yet */
};

static void *trace_ips[CRASH_PART];

/* Each line is written as soon as it is complete, so a walk that faults
   loses nothing printed before (but the frames of a cycle of repeated
   frames not yet ended: struct repeats).  */

/* The stack the interrupted sp lies in, or just below in its guard area
   (a stack overflow).  Not known when sp is elsewhere (the program's
   altstack, a stack that is not the thread's own).  */
static void find_stack(struct trace *t)
{
  uint64_t sp = gorc_rt_uc_reg(t->uc, GORC_STEP_UC_SP);
  t->stack_known = gorc_rt_stack_of_thread(&t->stack) == 0 && sp >= t->stack.guard_lo
                   && sp < t->stack.hi;
}

/* A SIGSEGV at an address in the guard area of the thread's stack: below
   its mapping (glibc's PROT_NONE guard pages, the kernel's gap below the
   main thread's stack), or inside it.  An access to the stack's own
   read-write mapping faults only where a guard region was installed in
   it (MADV_GUARD_INSTALL: glibc 2.41 and later guard thread stacks so,
   with no mapping of their own in /proc/self/maps).  */
static int stack_overflow(const struct trace *t)
{
  uint64_t addr = (uint64_t)(uintptr_t)t->si->si_addr;
  return t->sig == SIGSEGV && t->si->si_code > 0 && t->stack_known
         && addr >= t->stack.guard_lo && addr < t->stack.hi;
}

/* The header, then frame #0, the interrupted instruction: printed from
   the context before the walk, which may fault.  */
static void print_head(void *arg)
{
  struct trace *t = arg;
  struct out o;
  o.len = 0;
  find_stack(t);
  out_str(&o, "gorc: ");
  out_str(&o, signame(t->sig));
  if (t->sig != SIGABRT && t->si && t->si->si_code > 0) {
    out_str(&o, " at address ");
    out_hex(&o, (uint64_t)(uintptr_t)t->si->si_addr);
  }
  out_str(&o, " in thread ");
  out_dec(&o, (uint64_t)t->tid);
  if (t->si && stack_overflow(t))
    out_str(&o, ": stack overflow (the address is in the guard area of the thread's stack)");
  out_str(&o, "; stack trace:\n");
  out_flush(&o);
  out_frame(&o, 0, gorc_rt_uc_reg(t->uc, GORC_STEP_UC_IP));
  out_flush(&o);
}

/* The next part of the walk into trace_ips: the first from the
   interrupted context (bounded by the thread's stack when known), the
   others on from where the last stopped (trace_ips[0] is then that
   part's last address again).  */
static void walk_part(struct trace *t)
{
  if (t->base == 0) {
    const void *uc = t->uc;
    gorc_rt_cursor_start(&t->cursor, gorc_rt_uc_reg(uc, GORC_STEP_UC_IP),
                         gorc_rt_uc_reg(uc, GORC_STEP_UC_SP), gorc_rt_uc_reg(uc, GORC_STEP_UC_FP), uc);
    if (t->stack_known)
      gorc_rt_cursor_bound(&t->cursor, t->stack.lo, t->stack.hi);
  } else {
    gorc_rt_cursor_next_part(&t->cursor);
  }
  t->rc = gorc_rt_walk(&t->cursor, trace_ips, CRASH_PART, &t->n);
  t->last = t->rc != 1 || t->n < 2 || t->base + (unsigned long)t->n > CRASH_MAX_FRAMES;
}

/* The frames of this part after trace_ips[0] (frame #0, or the last
   part's last frame), repeated ones collapsed (struct repeats); after
   the last part, the frames still pending and why the walk stopped.  */
static void print_part(void *arg)
{
  struct trace *t = arg;
  struct out o;
  o.len = 0;
  for (int i = 1; i < t->n; i++)
    repeats_add(&o, &t->repeats, (uint64_t)(uintptr_t)trace_ips[i]);
  t->base += t->n > 0 ? (unsigned long)t->n - 1 : 0;
  if (!t->last)
    return;
  repeats_print(&o, &t->repeats, 0);
  if (t->rc < 0) {
    out_str(&o, "  (the walk stopped: ");
    out_str(&o, gorc_strerror(t->rc));
    out_str(&o, ")\n");
  } else if (t->rc == 1) {
    out_str(&o, "  (more frames not shown)\n");
  }
  out_flush(&o);
}

static void print_trace(void *arg)
{
  struct trace *t = arg;
  print_head(t);
  do {
    walk_part(t);
    print_part(t);
  } while (!t->last);
}

GORC_RT_CALL_ON_STACK(gorc_rt_call_on_stack)
GORC_HIDDEN void gorc_rt_call_on_stack(void (*fn)(void *), void *arg, void *top);

/* On the print stack: make it this thread's altstack (the kernel lets
   us: we are no longer on the program's), so that the walk sees what it
   sees on the altstack of the install (its own frames on the altstack,
   the interrupted ones elsewhere), then print.  The program's altstack
   comes back with the signal frame's uc_stack if the handler returns.  */
static void print_trace_as_altstack(void *arg)
{
  stack_t ss = { .ss_sp = crash_print_stack, .ss_size = CRASH_STACK, .ss_flags = 0 };
  sigaltstack(&ss, NULL);
  print_trace(arg);
}

/* The trace T, printed on the print stack when the handler runs on an
   alternate stack that is not the install's (the program's own, maybe
   far too small to print on).  */
static void print_trace_on_own_stack(struct trace *t)
{
  stack_t ss;
  char *here = (char *)__builtin_frame_address(0);
  uint64_t sp = gorc_rt_uc_reg(t->uc, GORC_STEP_UC_SP);
  char *top = crash_print_stack + CRASH_STACK;
  if (!crash_print_stack || sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK)
      || (here >= crash_altstack && here < crash_altstack + CRASH_STACK)) {
    print_trace(t);
  } else if (sp - (uint64_t)(uintptr_t)ss.ss_sp >= ss.ss_size) {
    gorc_rt_call_on_stack(print_trace_as_altstack, t, top);
  } else {
    /* The fault is in a handler of the program on its altstack: only a
       walk from that altstack knows it (the kernel tells a thread its
       altstack's bounds while it is on it), so the walk stays here (it
       needs about 4 KB) and the printing moves.  */
    gorc_rt_call_on_stack(print_head, t, top);
    do {
      walk_part(t);
      gorc_rt_call_on_stack(print_part, t, top);
    } while (!t->last);
  }
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
  int saved = errno;
  if (sig == SIGBUS && is_altstack_request(si)) {
    /* The return from the handler restores the altstack of the signal
       frame: that is the new one.  */
    void *map = thread_altstack();
    if (map) {
      sigaltstack(NULL, &((ucontext_t *)uc)->uc_stack);
      keep_requested_altstack((int)syscall(SYS_gettid), map);
    }
    errno = saved;
    return;
  }
  int tid = (int)syscall(SYS_gettid);
  int none = 0;
  if (!__atomic_compare_exchange_n(&crashing_tid, &none, tid, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    if (none == tid)
      nested_fault();
    wait_for_crashing_thread();
  }
  __atomic_store_n(&crashing_sig, sig, __ATOMIC_RELAXED);
  struct trace t;
  memset(&t, 0, sizeof t);
  t.sig = sig;
  t.si = si;
  t.uc = uc;
  t.tid = tid;
  t.repeats.first = 1;
  print_trace_on_own_stack(&t);
  die_by(sig, si);
  errno = saved;
}
