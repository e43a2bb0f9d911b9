/* libgorc: an opt-in crash handler.  gorc_install_crash_handler() (or
   GORC_CRASH_TRACE=1 with libgorc-preload.so) catches SIGSEGV, SIGBUS,
   SIGABRT and SIGFPE, prints a symbolized trace of the faulting thread on
   stderr and lets the signal kill the process as it would have.

   Everything heavy happens at install time, in normal context: an
   alternate signal stack is mapped (for the installing thread: a stack
   overflow there still gets a trace), libgorc is initialised, and the
   function symbols of every loaded module (.symtab, else the .symtab of
   its separate debug file by build ID, else .dynsym, read from the files) are copied into one sorted table in mmap'd
   memory.  The handler only walks (gorc_backtrace_ucontext), binary
   searches that table and write(2)s: async-signal-safe throughout.
   C++ names are demangled at install time when libstdc++'s
   __cxa_demangle is loaded.  Modules loaded after the install are printed
   as addresses only; each frame also shows MODULE+0xOFFSET for addr2line.
   The header line is written before the walk and each frame as it is
   found; one thread prints at a time (others that fault meanwhile wait
   for it to end the process), and a fault in the walk itself ends the
   trace with a note.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#pragma GCC visibility push(default)
#include "gorc.h"
#include "internal.h"
#pragma GCC visibility pop

#define CRASH_MAX_FRAMES 128
#define CRASH_MAX_MODULES 256
#define CRASH_ALTSTACK (64 * 1024)

struct crash_sym {
  uint64_t addr, size;
  uint32_t name;       /* offset in the string pool */
  uint32_t rank;       /* among aliases the highest is shown: global, weak, local */
};

struct crash_module {
  uint64_t base, lo, hi;
  uint32_t name;       /* offset in the string pool */
  uint32_t first, count;  /* its symbols in syms[] (sorted by addr) */
};

static struct crash_sym *syms;
static size_t nsyms, syms_cap;
static char *pool;
static size_t pool_len, pool_cap;
static struct crash_module mods[CRASH_MAX_MODULES];
static unsigned nmods;
static int installed;

/* ------------------------------------------------------------ install side */

static void *grow(void *old, size_t old_bytes, size_t new_bytes)
{
  void *p = mmap(NULL, new_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  if (old) {
    memcpy(p, old, old_bytes);
    munmap(old, old_bytes);
  }
  return p;
}

static uint32_t pool_add(const char *s, size_t len)
{
  if (pool_len + len + 1 > pool_cap) {
    size_t cap = pool_cap ? pool_cap * 2 : 1 << 16;
    while (cap < pool_len + len + 1)
      cap *= 2;
    char *p = grow(pool, pool_cap, cap);
    if (!p)
      return UINT32_MAX;
    pool = p;
    pool_cap = cap;
  }
  uint32_t off = (uint32_t)pool_len;
  memcpy(pool + pool_len, s, len);
  pool[pool_len + len] = 0;
  pool_len += len + 1;
  return off;
}

static int sym_add(uint64_t addr, uint64_t size, uint32_t name, uint32_t rank)
{
  if (nsyms == syms_cap) {
    size_t cap = syms_cap ? syms_cap * 2 : 4096;
    struct crash_sym *p = grow(syms, syms_cap * sizeof *syms, cap * sizeof *syms);
    if (!p)
      return -1;
    syms = p;
    syms_cap = cap;
  }
  syms[nsyms].addr = addr;
  syms[nsyms].size = size;
  syms[nsyms].name = name;
  syms[nsyms].rank = rank;
  nsyms++;
  return 0;
}

static int sym_cmp(const void *a, const void *b)
{
  const struct crash_sym *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Heapsort: no qsort (it may allocate) and no recursion.  */
static void sift(struct crash_sym *a, size_t i, size_t n)
{
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      return;
    if (c + 1 < n && sym_cmp(&a[c], &a[c + 1]) < 0)
      c++;
    if (sym_cmp(&a[i], &a[c]) >= 0)
      return;
    struct crash_sym t = a[i];
    a[i] = a[c];
    a[c] = t;
    i = c;
  }
}

static void sort_syms(struct crash_sym *a, size_t n)
{
  for (size_t i = n / 2; i-- > 0;)
    sift(a, i, n);
  for (size_t i = n; i-- > 1;) {
    struct crash_sym t = a[0];
    a[0] = a[i];
    a[i] = t;
    sift(a, 0, i);
  }
}

/* libstdc++'s demangler when the program has it loaded (a C++ program):
   names are demangled here, at install time, never in the handler.  */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn demangler;

/* The separate debug file named by the build ID note of the ELF image F
   (SIZE bytes, section headers SH) into OUT: Debian's -dbg and -dbgsym
   packages put them in /usr/lib/debug/.build-id/xx/yyyy.debug.  */
static int debug_path(const unsigned char *f, size_t size, const Elf64_Shdr *sh, unsigned shnum,
                      char *out, size_t outlen)
{
  for (unsigned i = 0; i < shnum; i++) {
    if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
      continue;
    const unsigned char *p = f + sh[i].sh_offset, *end = p + sh[i].sh_size;
    while (end - p >= (long)sizeof(Elf64_Nhdr)) {
      const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
      size_t nsz = (nh->n_namesz + 3) & ~3u, dsz = (nh->n_descsz + 3) & ~3u;
      if (nsz + dsz > (size_t)(end - p) - sizeof *nh)
        break;
      const unsigned char *name = p + sizeof *nh, *desc = name + nsz;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          nh->n_descsz >= 2 && nh->n_descsz <= 64 && outlen >= 64 + 2 * 64) {
        static const char hex[] = "0123456789abcdef";
        size_t len = 0;
        const char *pre = "/usr/lib/debug/.build-id/";
        while (*pre)
          out[len++] = *pre++;
        out[len++] = hex[desc[0] >> 4];
        out[len++] = hex[desc[0] & 15];
        out[len++] = '/';
        for (unsigned k = 1; k < nh->n_descsz; k++) {
          out[len++] = hex[desc[k] >> 4];
          out[len++] = hex[desc[k] & 15];
        }
        memcpy(out + len, ".debug", 7);
        return 1;
      }
      p += sizeof *nh + nsz + dsz;
    }
  }
  return 0;
}

/* Read the function symbols of the ELF file PATH (loaded at BASE); when it
   has no .symtab, those of its separate debug file if installed.  */
static void load_symbols_at(const char *path, uint64_t base, int depth);
static void load_symbols(const char *path, uint64_t base)
{
  load_symbols_at(path, base, 0);
}

static void load_symbols_at(const char *path, uint64_t base, int depth)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return;
  }
  size_t size = (size_t)st.st_size;
  const unsigned char *f = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (f == MAP_FAILED)
    return;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff >= size ||
      eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr))
    goto out;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
  const Elf64_Shdr *tab = NULL;
  for (unsigned i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB)
      tab = &sh[i];
  char dbg[256];
  if (!tab && depth == 0 && debug_path(f, size, sh, eh->e_shnum, dbg, sizeof dbg) &&
      access(dbg, R_OK) == 0) {
    size_t before = nsyms;
    load_symbols_at(dbg, base, 1);
    if (nsyms > before)
      goto out;
  }
  if (!tab)
    for (unsigned i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == SHT_DYNSYM)
        tab = &sh[i];
  if (!tab || tab->sh_link >= eh->e_shnum || tab->sh_offset > size ||
      tab->sh_size > size - tab->sh_offset)
    goto out;
  const Elf64_Shdr *strh = &sh[tab->sh_link];
  if (strh->sh_offset > size || strh->sh_size > size - strh->sh_offset)
    goto out;
  const char *str = (const char *)f + strh->sh_offset;
  const Elf64_Sym *s = (const Elf64_Sym *)(f + tab->sh_offset);
  size_t n = tab->sh_size / sizeof(Elf64_Sym);
  for (size_t i = 0; i < n; i++) {
    int type = ELF64_ST_TYPE(s[i].st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF ||
        s[i].st_value == 0 || s[i].st_name >= strh->sh_size)
      continue;
    const char *nm = str + s[i].st_name;
    size_t len = strnlen(nm, strh->sh_size - s[i].st_name);
    char *dem = NULL;
    if (demangler && len > 2 && nm[0] == '_' && nm[1] == 'Z' && nm[len] == 0) {
      int status = 0;
      dem = demangler(nm, NULL, NULL, &status);
      if (dem && status == 0) {
        nm = dem;
        len = strlen(dem);
      }
    }
    uint32_t off = pool_add(nm, len);
    free(dem);
    int bind = ELF64_ST_BIND(s[i].st_info);
    uint32_t rank = (bind == STB_GLOBAL ? 4 : bind == STB_WEAK ? 2 : 0) + (s[i].st_size != 0);
    if (off == UINT32_MAX || sym_add(base + s[i].st_value, s[i].st_size, off, rank) != 0)
      break;
  }
out:
  munmap((void *)f, size);
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  (void)data;
  if (nmods == CRASH_MAX_MODULES)
    return 1;
  uint64_t lo, hi;
  char exe[4096];
  const char *path = gorc_rt_module_span_and_path(info, &lo, &hi, exe, sizeof exe);
  if (!path)
    return 0;
  struct crash_module *m = &mods[nmods];
  m->base = info->dlpi_addr;
  m->lo = lo;
  m->hi = hi;
  m->name = pool_add(path, strlen(path));
  if (m->name == UINT32_MAX)
    return 1;
  m->first = (uint32_t)nsyms;
  load_symbols(path, info->dlpi_addr);
  m->count = (uint32_t)(nsyms - m->first);
  sort_syms(syms + m->first, m->count);
  nmods++;
  return 0;
}

static void crash_handler(int sig, siginfo_t *si, void *uc);

__attribute__((visibility("default"))) int gorc_install_crash_handler(void)
{
  static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE };
  if (installed)
    return 0;
  /* libgorc's module tables are built here, never in the handler.  */
  void *ip[1];
  gorc_backtrace(ip, 1);

  void *alt = mmap(NULL, CRASH_ALTSTACK, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (alt != MAP_FAILED) {
    stack_t ss = { .ss_sp = alt, .ss_size = CRASH_ALTSTACK, .ss_flags = 0 };
    stack_t old;
    /* Keep an altstack the program set up itself.  */
    if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
      sigaltstack(&ss, NULL);
    else
      munmap(alt, CRASH_ALTSTACK);
  }

  demangler = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
  nmods = 0;
  dl_iterate_phdr(add_module, NULL);

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

static void out_frame(struct out *o, int i, uint64_t ip)
{
  /* Return addresses point after the call: look up ip - 1.  */
  uint64_t pc = i == 0 ? ip : ip - 1;
  out_str(o, "  #");
  out_dec(o, (uint64_t)i);
  out_str(o, i < 10 ? "  " : " ");
  out_hex(o, ip);
  for (unsigned m = 0; m < nmods; m++) {
    const struct crash_module *cm = &mods[m];
    if (pc < cm->lo || pc >= cm->hi)
      continue;
    /* last symbol at or below pc */
    const struct crash_sym *s = syms + cm->first;
    size_t lo = 0, hi = cm->count;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (s[mid].addr <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo > 0 && (s[lo - 1].size == 0 || pc < s[lo - 1].addr + s[lo - 1].size)) {
      out_str(o, " in ");
      out_str(o, pool + s[lo - 1].name);
      out_str(o, "+");
      out_hex(o, ip - s[lo - 1].addr);
    }
    const char *name = pool + cm->name, *slash = name;
    for (const char *p = name; *p; p++)
      if (*p == '/')
        slash = p + 1;
    out_str(o, " (");
    out_str(o, slash);
    out_str(o, "+");
    out_hex(o, ip - cm->base);
    out_str(o, ")");
    break;
  }
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

/* Header, then each frame: every line is written as soon as it is
   complete, so a walk that faults loses nothing printed before.  */
static void print_trace(int sig, siginfo_t *si, void *uc, int tid)
{
  struct out o;
  void *ips[CRASH_MAX_FRAMES];
  o.len = 0;
  out_str(&o, "gorc: ");
  out_str(&o, signame(sig));
  if (sig != SIGABRT && si && si->si_code > 0) {
    out_str(&o, " at address ");
    out_hex(&o, (uint64_t)(uintptr_t)si->si_addr);
  }
  out_str(&o, " in thread ");
  out_dec(&o, (uint64_t)tid);
  out_str(&o, "; stack trace:\n");
  out_flush(&o);
  /* Frame #0 is the interrupted instruction: printed from the context
     before the walk, which may fault.  */
  out_frame(&o, 0, (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]);
  out_flush(&o);
  int n = gorc_backtrace_ucontext(uc, ips, CRASH_MAX_FRAMES);
  int err = 0;
  if (n < 0) {
    err = n;
    n = gorc_backtrace_count();
  }
  for (int i = 1; i < n; i++) {
    out_frame(&o, i, (uint64_t)(uintptr_t)ips[i]);
    out_flush(&o);
  }
  if (err) {
    out_str(&o, "  (the walk stopped: ");
    out_str(&o, gorc_strerror(err));
    out_str(&o, ")\n");
  } else if (n == CRASH_MAX_FRAMES) {
    out_str(&o, "  (more frames not shown)\n");
  }
  out_flush(&o);
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
  print_trace(sig, si, uc, tid);
  die_by(sig, si);
  errno = saved;
}
