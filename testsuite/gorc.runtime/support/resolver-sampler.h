/* The machinery of resolver.c and resolver-ifunc.c: SIGPROF samples of
   code bound lazily through glibc's resolver, each walked by
   gorc_backtrace_ucontext, the cursor API, gorc_backtrace from the
   handler and libunwind, which must agree and reach main.

   The test defines, before including this file: WANT, lazy_names[] (the
   lazily bound functions, re-bound every round through their GOT slots)
   and call_all (calls them all); after it: test_setup (before anything
   else in main), count_sample (each sample that reached main: its
   trace, the interrupted ip, and the index of the PLT call site above a
   resolver frame, or -1), enough_samples (ends the workload) and
   test_report (prints the rest of the "resolver: ..." line; TIMED_OUT
   if the 20 s ran out first).  */

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "rt-sampler.h"
#include "rt-trace.h"


#define MAX 128
#define TIME_LIMIT_NS (20LL * 1000000000)
#define N_LAZY (sizeof lazy_names / sizeof lazy_names[0])

static void test_setup (void);
static void count_sample (void **ours, uintptr_t ip, int resolver_at);
static int enough_samples (void);
static void test_report (int timed_out);
static int rounds;
volatile double sink;


/* Address ranges: the executable segments of ld.so and of this program,
   and every module's PLT stubs.  */
struct range { uintptr_t lo, hi; };
#define MAX_PLT 64
static struct range ldso[4], self_text[4], plt[MAX_PLT];
static int n_ldso, n_self, n_plt;

static int
in_ranges (const struct range *r, int n, uintptr_t a)
{
  for (int i = 0; i < n; i++)
    if (a >= r[i].lo && a < r[i].hi)
      return 1;
  return 0;
}

static atomic_int samples, ldso_samples, resolver_samples, plt_samples;
static atomic_int in_workload;
static void *main_ra;   /* the return address into main of run_workload */

static int
in_ldso (uintptr_t a)
{
  return in_ranges (ldso, n_ldso, a);
}

/* The trace IPS[0..N) on a line after WHAT, ld.so's addresses marked.  */
static void
dump (const char *what, void **ips, int n)
{
  rt_dump (what, ips, n, in_ldso, "(ld.so)");
}

/* The cursor walk and the walks from the handler agree with
   gorc_backtrace_ucontext's OURS[0..N) (RC) of UC, interrupted at IP.
   Inlined: its gorc_backtrace starts in the handler's frame.  */
static inline __attribute__((always_inline)) void
check_walks_agree (ucontext_t *uc, uintptr_t ip, int rc, void **ours, int n)
{
  /* The cursor API steps every frame with the general step (the walk
     above takes a fast path for most frames): it must agree.  */
  struct gorc_cursor gc;
  void *cips[MAX];
  int cn = 0, crc = gorc_cursor_init_ucontext (&gc, uc);
  CHECK (crc == 0, crc);
  cips[cn++] = (void *) gc.ip;
  while (cn < MAX && (crc = gorc_cursor_step (&gc)) == 1)
    cips[cn++] = (void *) gc.ip;
  int cdiffer = cn != n || (cn < MAX && crc != (rc < 0 ? rc : 0));
  for (int i = 0; i < n && i < cn && !cdiffer; i++)
    cdiffer = cips[i] != ours[i];
  if (cdiffer) {
    rt_puts ("gorc_backtrace_ucontext rc ");
    rt_putn (rc);
    rt_puts (" (");
    rt_puts (gorc_strerror (rc));
    rt_puts ("), the cursor walk ended with ");
    rt_putn (crc);
    rt_puts ("\n");
    dump ("  gorc_backtrace_ucontext:", ours, n);
    dump ("  cursor walk:            ", cips, cn);
    FAIL ("the cursor walk and gorc_backtrace_ucontext differ, ip in ld.so",
          in_ranges (ldso, n_ldso, ip));
  }
  /* gorc_backtrace from the handler crosses the signal frame (rbx comes
     from the ucontext there): from the interrupted ip on, the same.  */
  void *all[MAX + 16];
  int arc = gorc_backtrace (all, MAX + 16);
  int an = gorc_backtrace_count (), j = 0;
  while (j < an && all[j] != ours[0])
    j++;
  if (j == an || an - j != n || (rc < 0 ? arc != rc : arc != an)) {
    dump ("  gorc_backtrace_ucontext:", ours, n);
    dump ("  gorc_backtrace:         ", all, an);
    FAIL ("gorc_backtrace from the handler differs, rc", arc);
  }
  for (int i = 0; i < n; i++)
    if (all[j + i] != ours[i]) {
      dump ("  gorc_backtrace_ucontext:", ours, n);
      dump ("  gorc_backtrace:         ", all, an);
      FAIL ("gorc_backtrace from the handler differs at frame", i);
    }
}

static void
on_sigprof (int sig, siginfo_t *si, void *ucv)
{
  (void) sig;
  (void) si;
  ucontext_t *uc = ucv;
  void *ours[MAX], *theirs[MAX];
  uintptr_t ip = (uintptr_t) uc->uc_mcontext.gregs[REG_RIP];
  int rc = gorc_backtrace_ucontext (uc, ours, MAX);
  int n = gorc_backtrace_count ();

  CHECK (n >= 1 && n <= MAX, n);
  check_walks_agree (uc, ip, rc, ours, n);
  int m = rt_unw_trace (uc, theirs, MAX);

  if (in_ranges (plt, n_plt, ip) && rc == -GORC_EUNDEFINED && n == 1) {
    /* A PLT stub: gorc has no rule for it (see above).  */
    atomic_fetch_add (&plt_samples, 1);
    return;
  }
  if (rt_traces_differ (rc, ours, n, theirs, m)) {
    rt_dump_walks ("sample differs from libunwind", rc, ours, n, theirs, m, in_ldso, "(ld.so)");
    FAIL ("gorc and libunwind differ, ip in ld.so", in_ranges (ldso, n_ldso, ip));
  }
  atomic_fetch_add (&samples, 1);
  if (!atomic_load (&in_workload))
    return;
  int reaches_main = 0, resolver_at = -1;
  for (int i = 0; i < n; i++) {
    if (ours[i] == main_ra)
      reaches_main = 1;
    if (i > 0 && in_ranges (ldso, n_ldso, (uintptr_t) ours[i - 1])
        && in_ranges (self_text, n_self, (uintptr_t) ours[i]))
      resolver_at = i;
  }
  if (!reaches_main) {
    dump ("  gorc:", ours, n);
    FAIL ("the trace does not reach main, frames", n);
  }
  if (in_ranges (ldso, n_ldso, ip))
    atomic_fetch_add (&ldso_samples, 1);
  if (resolver_at >= 0)
    atomic_fetch_add (&resolver_samples, 1);
  count_sample (ours, ip, resolver_at);
}



/* The GOT slots of the functions above and their lazy values (the address
   of the PLT stub's push, set by ld.so at start-up).  */
static uintptr_t *slots[N_LAZY];
static uintptr_t lazy_value[N_LAZY];

static void
reset_got (void)
{
  for (size_t i = 0; i < N_LAZY; i++)
    __atomic_store_n (slots[i], lazy_value[i], __ATOMIC_RELAXED);
}

static int
find_ranges (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  uintptr_t at_base = getauxval (AT_BASE);
  int is_self = info->dlpi_name == NULL || info->dlpi_name[0] == 0;
  if (is_self && n_self)
    is_self = 0;        /* the vDSO has an empty name too; ours comes first */
  int is_ldso = info->dlpi_addr == at_base;
  if (!is_self && !is_ldso)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
      continue;
    struct range r = { info->dlpi_addr + ph->p_vaddr,
                       info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
    if (is_ldso && n_ldso < 4)
      ldso[n_ldso++] = r;
    if (is_self && n_self < 4)
      self_text[n_self++] = r;
  }
  if (is_self) {
    /* The GOT slots of lazy_names, from DT_JMPREL.  */
    uintptr_t base = info->dlpi_addr;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
      if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
        dyn = (const ElfW(Dyn) *) (base + info->dlpi_phdr[i].p_vaddr);
    CHECK (dyn != NULL, 0);
    uintptr_t jmprel = 0, pltrelsz = 0, symtab = 0, strtab = 0, flags = 0, flags1 = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
      uintptr_t v = dyn->d_un.d_ptr;
      switch (dyn->d_tag) {
      case DT_JMPREL: jmprel = v; break;
      case DT_PLTRELSZ: pltrelsz = v; break;
      case DT_SYMTAB: symtab = v; break;
      case DT_STRTAB: strtab = v; break;
      case DT_FLAGS: flags = v; break;
      case DT_FLAGS_1: flags1 = v; break;
      case DT_BIND_NOW: flags |= DF_BIND_NOW; break;
      }
    }
    CHECK (!(flags & DF_BIND_NOW) && !(flags1 & DF_1_NOW), flags | flags1);
    CHECK (jmprel && pltrelsz && symtab && strtab, 0);
    /* ld.so may or may not have relocated these in place.  */
    if (jmprel < base)
      jmprel += base;
    if (symtab < base)
      symtab += base;
    if (strtab < base)
      strtab += base;
    const ElfW(Rela) *rel = (const ElfW(Rela) *) jmprel;
    const ElfW(Sym) *sym = (const ElfW(Sym) *) symtab;
    const char *str = (const char *) strtab;
    for (size_t r = 0; r < pltrelsz / sizeof *rel; r++) {
      if (ELF64_R_TYPE (rel[r].r_info) != R_X86_64_JUMP_SLOT)
        continue;
      const char *nm = str + sym[ELF64_R_SYM (rel[r].r_info)].st_name;
      uintptr_t *slot = (uintptr_t *) (base + rel[r].r_offset);
      for (size_t i = 0; i < N_LAZY; i++)
        if (strcmp (nm, lazy_names[i]) == 0) {
          slots[i] = slot;
          lazy_value[i] = *slot;
          /* Not called yet: the slot still points into our own PLT.  */
          CHECK (in_ranges (self_text, n_self, *slot), (long) i);
        }
    }
    for (size_t i = 0; i < N_LAZY; i++)
      if (!slots[i]) {
        rt_puts (lazy_names[i]);
        FAIL (" has no PLT slot", i);
      }
  }
  return 0;
}

/* The PLT sections (.plt, .plt.sec, .plt.got) of every module, from the
   section headers of its file.  */
static void
add_plt_of (const char *path, uintptr_t base)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return;             /* the vDSO */
  ElfW(Ehdr) eh;
  if (fread (&eh, sizeof eh, 1, f) == 1 && memcmp (eh.e_ident, ELFMAG, SELFMAG) == 0
      && eh.e_shentsize == sizeof (ElfW(Shdr)) && eh.e_shnum > 0 && eh.e_shnum < 4096) {
    ElfW(Shdr) *sh = malloc (eh.e_shnum * sizeof *sh);
    CHECK (sh != NULL, 0);
    if (fseek (f, (long) eh.e_shoff, SEEK_SET) == 0
        && fread (sh, sizeof *sh, eh.e_shnum, f) == eh.e_shnum) {
      const ElfW(Shdr) *ss = &sh[eh.e_shstrndx];
      char *names = malloc (ss->sh_size + 1);
      CHECK (names != NULL, 0);
      if (fseek (f, (long) ss->sh_offset, SEEK_SET) == 0
          && fread (names, 1, ss->sh_size, f) == ss->sh_size) {
        names[ss->sh_size] = 0;
        for (int i = 0; i < eh.e_shnum; i++)
          if (sh[i].sh_name < ss->sh_size && (sh[i].sh_flags & SHF_EXECINSTR)
              && strncmp (names + sh[i].sh_name, ".plt", 4) == 0 && n_plt < MAX_PLT) {
            plt[n_plt].lo = base + sh[i].sh_addr;
            plt[n_plt].hi = base + sh[i].sh_addr + sh[i].sh_size;
            n_plt++;
          }
      }
      free (names);
    }
    free (sh);
  }
  fclose (f);
}

static int
find_plts (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  int *first = data;
  if (*first) {
    add_plt_of ("/proc/self/exe", info->dlpi_addr);
    *first = 0;
  } else if (info->dlpi_name && info->dlpi_name[0]) {
    add_plt_of (info->dlpi_name, info->dlpi_addr);
  }
  return 0;
}

static int timed_out;

__attribute__((noinline, noclone)) static void
run_workload (void)
{
  long long t0 = rt_now_ns ();
  main_ra = __builtin_return_address (0);
  atomic_store (&in_workload, 1);
  double s = 0;
  while (!enough_samples ()) {
    if (rt_now_ns () - t0 > TIME_LIMIT_NS) {
      timed_out = 1;
      break;
    }
    for (int k = 0; k < 8; k++) {
      reset_got ();
      s += call_all ();
      rounds++;
    }
  }
  atomic_store (&in_workload, 0);
  sink = s;
}

int
main (int argc, char **argv)
{
  (void) argc;
  rt_run_lazily_bound (argv);   /* the resolver is the subject */
  test_setup ();
  dl_iterate_phdr (find_ranges, NULL);
  CHECK (n_ldso > 0, 0);
  CHECK (n_self > 0, 0);
  int first = 1;
  dl_iterate_phdr (find_plts, &first);
  CHECK (n_plt > 0 && in_ranges (plt, n_plt, lazy_value[0]), n_plt);

  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  rt_on_sigprof (on_sigprof);
  /* Resolve what the handler itself calls, outside the workload.  */
  raise (SIGPROF);

  struct rt_sampler s;
  rt_sampler_start (&s, pthread_self (), 20000);
  run_workload ();
  rt_sampler_stop (&s);

  printf ("resolver: %d samples, %d in ld.so, %d through the resolver, ",
          atomic_load (&samples), atomic_load (&ldso_samples), atomic_load (&resolver_samples));
  test_report (timed_out);
  return 0;
}
