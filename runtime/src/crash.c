/* libgorc: an opt-in crash handler.  gorc_install_crash_handler() (or
   GORC_CRASH_TRACE=1 with libgorc-preload.so) catches SIGSEGV, SIGBUS,
   SIGABRT and SIGFPE, prints a symbolized trace of the faulting thread on
   stderr and lets the signal kill the process as it would have.

   The install does constant work: one mapping, an alternate signal
   stack for the installing thread (a stack overflow there still gets a
   trace) and a stack to print on when the handler runs on a program's
   own, smaller altstack; and the sigactions.  Nothing is read of any module until a crash: the handler
   walks (gorc_backtrace_ucontext), and for each frame finds the module
   as the walk does (module.c) and its function symbol in the module's file
   (elfsym.c: .symtab, else the separate debug file's, else .dynsym,
   read with open/pread into stack buffers), so modules loaded after the
   install are named too.  C++ names are demangled by libstdc++'s
   allocation-free demangler (cxx-demangle.o, linked in).  Each frame also
   shows MODULE+0xOFFSET for addr2line.  Async-signal-safe throughout.
   The header line is written before the walk and each frame as it is
   found; one thread prints at a time (others that fault meanwhile wait
   for it to end the process), and a fault in the walk itself ends the
   trace with a note.  */

#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
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

#define CRASH_MAX_FRAMES 128
/* The handler's stack need: the walk (about 4 KB), the symbol reader's
   buffers (about 10 KB) and the demangler, whose arrays on the stack
   take about 72 bytes per character of the name (CRASH_DEMANGLE_MAX).
   Each of the two stacks below has this much room, mapped at the
   install and touched only as used.  */
#define CRASH_STACK (256 * 1024)
#define CRASH_GUARD 4096
#define CRASH_NAME_MAX 1024
#define CRASH_DEMANGLE_MAX 1024

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
     killing the process silently.  */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (sigaction(sigs[i], &sa, NULL) != 0)
      return -errno;
  installed = 1;
  return 0;
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

static void out_frame(struct out *o, int i, uint64_t ip)
{
  out_str(o, "  #");
  out_dec(o, (uint64_t)i);
  out_str(o, i < 10 ? "  " : " ");
  out_hex(o, ip);
  /* Return addresses point after the call: look up ip - 1.  */
  out_location(o, ip, i == 0 ? ip : ip - 1);
  out_str(o, "\n");
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

/* The trace of the one thread that prints (crashing_tid).  */
struct trace {
  int sig;
  siginfo_t *si;
  void *uc;
  int tid;
  int n, err;   /* the walk's addresses (in trace_ips) and its error, 0 if none */
};

static void *trace_ips[CRASH_MAX_FRAMES];

/* Each line is written as soon as it is complete, so a walk that faults
   loses nothing printed before.  */

/* The header, then frame #0, the interrupted instruction: printed from
   the context before the walk, which may fault.  */
static void print_head(void *arg)
{
  const struct trace *t = arg;
  struct out o;
  o.len = 0;
  out_str(&o, "gorc: ");
  out_str(&o, signame(t->sig));
  if (t->sig != SIGABRT && t->si && t->si->si_code > 0) {
    out_str(&o, " at address ");
    out_hex(&o, (uint64_t)(uintptr_t)t->si->si_addr);
  }
  out_str(&o, " in thread ");
  out_dec(&o, (uint64_t)t->tid);
  out_str(&o, "; stack trace:\n");
  out_flush(&o);
  out_frame(&o, 0, gorc_rt_uc_reg(t->uc, GORC_STEP_UC_IP));
  out_flush(&o);
}

static void walk_trace(struct trace *t)
{
  t->n = gorc_backtrace_ucontext(t->uc, trace_ips, CRASH_MAX_FRAMES);
  t->err = 0;
  if (t->n < 0) {
    t->err = t->n;
    t->n = gorc_backtrace_count();
  }
}

/* The frames the walk found after #0, and why it stopped.  */
static void print_frames(void *arg)
{
  const struct trace *t = arg;
  struct out o;
  o.len = 0;
  for (int i = 1; i < t->n; i++) {
    out_frame(&o, i, (uint64_t)(uintptr_t)trace_ips[i]);
    out_flush(&o);
  }
  if (t->err) {
    out_str(&o, "  (the walk stopped: ");
    out_str(&o, gorc_strerror(t->err));
    out_str(&o, ")\n");
  } else if (t->n == CRASH_MAX_FRAMES) {
    out_str(&o, "  (more frames not shown)\n");
  }
  out_flush(&o);
}

static void print_trace(void *arg)
{
  print_head(arg);
  walk_trace(arg);
  print_frames(arg);
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
    walk_trace(t);
    gorc_rt_call_on_stack(print_frames, t, top);
  }
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
  int saved = errno;
  int tid = (int)syscall(SYS_gettid);
  int none = 0;
  if (!__atomic_compare_exchange_n(&crashing_tid, &none, tid, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    if (none == tid)
      nested_fault();
    wait_for_crashing_thread();
  }
  __atomic_store_n(&crashing_sig, sig, __ATOMIC_RELAXED);
  struct trace t = { sig, si, uc, tid, 0, 0 };
  print_trace_on_own_stack(&t);
  die_by(sig, si);
  errno = saved;
}
