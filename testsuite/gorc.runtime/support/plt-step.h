/* Walks from every instruction of calls through PLT stubs (issue 10,
   item 4), for plt-step-*.c.  The test's step function (STEPPED) is run
   single-stepped (support/single-step.h): at every instruction, the
   program's own code, the PLT stubs, ld.so's lazy-binding resolver and
   libc included, gorc_backtrace_ucontext must succeed and equal nongnu
   libunwind's walk of the same context, address for address, to the
   outermost frame.  The steps are counted by where they are (.plt,
   .plt.sec, .plt.got of the program, ld.so), so each test asserts that
   it really went through the stubs it is about.  The tests step the same
   calls (plt_step_run_calls); only their links and so the stubs they
   expect differ.  Includers link -lunwind.  */
#ifndef PLT_STEP_H
#define PLT_STEP_H
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include "rt-trace.h"
#include "single-step.h"

#define MAX 128

enum stub_kind { K_PLT, K_PLT_SEC, K_PLT_GOT, K_LD_SO, K_OTHER, K_KINDS };
static const char *const kind_name[K_KINDS] = { ".plt", ".plt.sec", ".plt.got", "ld.so", "other" };
static struct rt_range stub_range[K_PLT_GOT + 1];
static struct rt_range ld_so_range;
static unsigned long steps_in[K_KINDS];

/* The program's section NAME, as run-time addresses (BIAS added).  */
static struct rt_range
exe_section (const char *name, uintptr_t bias)
{
  static char buf[4 << 20];
  struct rt_range r = { 0, 0 };
  int fd = open ("/proc/self/exe", O_RDONLY);
  CHECK (fd >= 0, 0);
  ssize_t len = read (fd, buf, sizeof buf);
  close (fd);
  CHECK (len > (ssize_t) sizeof (Elf64_Ehdr) && len < (ssize_t) sizeof buf, len);
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *) buf;
  const Elf64_Shdr *sh = (const Elf64_Shdr *) (buf + eh->e_shoff);
  const char *names = buf + sh[eh->e_shstrndx].sh_offset;
  for (int i = 0; i < eh->e_shnum; i++)
    if (strcmp (names + sh[i].sh_name, name) == 0) {
      r.lo = bias + sh[i].sh_addr;
      r.hi = r.lo + sh[i].sh_size;
    }
  return r;
}

/* The program's load bias: AT_PHDR less PT_PHDR's address.  */
static uintptr_t
exe_bias (void)
{
  const Elf64_Phdr *ph = (const Elf64_Phdr *) getauxval (AT_PHDR);
  for (unsigned i = 0; i < getauxval (AT_PHNUM); i++)
    if (ph[i].p_type == PT_PHDR)
      return (uintptr_t) ph - ph[i].p_vaddr;
  return 0;
}

static int
find_ld_so (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (info->dlpi_name && strstr (info->dlpi_name, "ld-linux"))
    ld_so_range = rt_code_range (info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
  return 0;
}

static enum stub_kind
kind_of (uintptr_t ip)
{
  for (int k = K_PLT; k <= K_PLT_GOT; k++)
    if (ip >= stub_range[k].lo && ip < stub_range[k].hi)
      return (enum stub_kind) k;
  if (ip >= ld_so_range.lo && ip < ld_so_range.hi)
    return K_LD_SO;
  return K_OTHER;
}

static int
in_stub (uintptr_t ip)
{
  return kind_of (ip) != K_OTHER;
}

static void
check_step (const ucontext_t *uc, void *arg)
{
  void *ours[MAX], *theirs[MAX];
  uintptr_t ip = (uintptr_t) uc->uc_mcontext.gregs[REG_RIP];
  int rc;
  (void) arg;
  steps_in[kind_of (ip)]++;
  if (rt_ucontext_walks_differ ((void *) uc, ours, theirs, MAX, &rc, kind_name[kind_of (ip)],
                                in_stub, " (stub or ld.so)")) {
    rt_puts ("  interrupted at ");
    rt_puthex (ip);
    rt_puts ("\n");
    FAIL ("a walk from a single-stepped instruction differs from libunwind's", rc);
  }
}

/* Step STEPPED and check every instruction; print the counts.  */
static void
plt_step_run (void (*stepped) (void))
{
  uintptr_t bias = exe_bias ();
  stub_range[K_PLT] = exe_section (".plt", bias);
  stub_range[K_PLT_SEC] = exe_section (".plt.sec", bias);
  stub_range[K_PLT_GOT] = exe_section (".plt.got", bias);
  dl_iterate_phdr (find_ld_so, NULL);
  CHECK (ld_so_range.hi > ld_so_range.lo, 0);
  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  unsigned long total = gorc_single_step (stepped, check_step, NULL);
  CHECK (total > 0, total);
  printf ("%lu instructions stepped:", total);
  for (int k = 0; k < K_KINDS; k++)
    printf (" %s %lu", kind_name[k], steps_in[k]);
  printf ("\n");
}

volatile long sink;
long (*volatile taken) (void);

/* The calls the plt-step tests step: strverscmp twice (lazily bound,
   the first call goes through its .plt entry, PLT0 and ld.so's resolver,
   the second straight through the entry) and lrand48, whose address the
   program also takes, so that its call goes through .plt.got.  */
__attribute__((noinline, noclone)) static void
plt_step_calls (void)
{
  sink = strverscmp ("gorc-1.9", "gorc-1.10");
  sink += strverscmp ("a", "b");
  sink += lrand48 ();
}

/* Step plt_step_calls and check every instruction; the test then checks
   steps_in[] for the stubs its link made.  */
static void
plt_step_run_calls (void)
{
  taken = lrand48;
  plt_step_run (plt_step_calls);
}
#endif
