/* The PC cache across an unload (lookup.h): states cached for one module
   must never be used for another loaded at the same address.
   libgorc-variant0.so and libgorc-variant1.so (support/dl-variant.c) have
   their functions at the same offsets but different frame sizes.  They
   are dlopened in turn, each after the other was dlclosed, 20 times; the
   loader maps each where the previous one was (else the round is retried,
   at most 5 times, and the program says so).  In each round the library
   calls back into this program, which walks (the library's states go
   into the cache):
   - gorc_backtrace, against libunwind's unw_step walk from the same place
     (not unw_backtrace: its trace cache keeps the unloaded library's
     states);
   - raise (SIGPROF) inside the library's deepest function's callee: the
     handler's gorc_backtrace_ucontext against libunwind's walk of the
     same context.
   Every walk must be complete and equal to libunwind's.  If the loader
   never reuses the address, the program says "UNSUPPORTED: ..." and
   dg-final reports that.  */
/* { dg-do run } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime dlopen } */
/* { dg-additional-options "[exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin -DVARIANT=0 [file dirname $prog]/support/dl-variant.c -o $::gorc_dltest_dir/libgorc-variant0.so][exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin -DVARIANT=1 [file dirname $prog]/support/dl-variant.c -o $::gorc_dltest_dir/libgorc-variant1.so]" } */
/* { dg-final { upvar 1 output out name tn; if { [info exists out] && [regexp {UNSUPPORTED: ([^\n]*)} $out -> why] } { unsupported "$tn same-address reload: $why" } } } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-sampler.h"
#include "support/rt-trace.h"

#define ROUNDS 20
#define RETRIES 5
#define MAX 64

typedef int (*dl_callback) (void *arg);
typedef int (*dl_variant_fn) (dl_callback cb, void *arg);

static struct rt_range lib;
static int handler_walks;

static int
in_lib (uintptr_t a)
{
  return a > lib.lo && a <= lib.hi;
}

static void
on_sigprof (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  void *ours[MAX], *theirs[MAX];
  int rc;
  if (rt_ucontext_walks_differ (uc, ours, theirs, MAX, &rc, "from the signal handler", in_lib,
                                "(lib)"))
    FAIL ("a walk through the library loaded at the old one's address differs", rc);
  handler_walks++;
}

/* libunwind's walk from its caller: [0] in the caller, then the return
   addresses.  */
__attribute__((noinline, noclone)) static int
unw_walk (void **ips, int max)
{
  unw_context_t ctx;
  unw_cursor_t cur;
  CHECK (unw_getcontext (&ctx) == 0 && unw_init_local (&cur, &ctx) == 0, 0);
  /* this function's own frame first */
  CHECK (unw_step (&cur) > 0, 0);
  return rt_unw_collect (&cur, ips, max);
}

/* Called by the library's deepest function.  */
__attribute__((noinline, noclone)) static int
walk_cb (void *arg)
{
  void *ours[MAX], *theirs[MAX];
  int rc = gorc_backtrace (ours, MAX);
  int m = unw_walk (theirs, MAX);
  (void) arg;
  /* [0] are the two calls' return addresses; from [1] on the callers.  */
  if (rc < 0 || rc != m || rt_traces_differ (rc, ours + 1, rc - 1, theirs + 1, m - 1)) {
    rt_dump_walks ("gorc_backtrace", rc, ours, gorc_backtrace_count (), theirs, m, in_lib,
                   "(lib)");
    FAIL ("a walk through the library loaded at the old one's address differs", rc);
  }
  CHECK (in_lib ((uintptr_t) ours[2]), 0);
  raise (SIGPROF);
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
  return 1;
}

/* Load VARIANT; returns its handle and its base in *BASE.  */
static void *
load (int variant, uintptr_t *base)
{
  char name[64];
  struct link_map *lm;
  snprintf (name, sizeof name, "libgorc-variant%d.so", variant);
  void *h = dlopen (name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    rt_puts (dlerror ());
    FAIL (" (dlopen)", variant);
  }
  CHECK (dlinfo (h, RTLD_DI_LINKMAP, &lm) == 0, 0);
  *base = lm->l_addr;
  return h;
}

int
main (void)
{
  /* libunwind's caches would allocate in the handler, and keep states of
     the unloaded library.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  rt_on_sigprof (on_sigprof);
  uintptr_t first = 0;
  int same = 0, moved = 0;
  for (int round = 0; round < ROUNDS; round++) {
    uintptr_t base;
    void *h = load (round % 2, &base);
    for (int retry = 0; round > 0 && base != first && retry < RETRIES; retry++) {
      moved++;
      CHECK (dlclose (h) == 0, round);
      h = load (round % 2, &base);
    }
    if (round == 0)
      first = base;
    else
      same += base == first;
    struct link_map *lm;
    CHECK (dlinfo (h, RTLD_DI_LINKMAP, &lm) == 0, 0);
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *) lm->l_addr;
    lib = rt_code_range (lm->l_addr, (const ElfW(Phdr) *) (lm->l_addr + eh->e_phoff),
                         eh->e_phnum);
    dl_variant_fn work = (dl_variant_fn) dlsym (h, "dl_variant_work");
    CHECK (work != NULL, round);
    CHECK (work (walk_cb, NULL) >= 1, round);
    CHECK (dlclose (h) == 0, round);
  }
  printf ("cache-unload: %d rounds, %d of %d reloads at the first address (%d retries), "
          "%d handler walks\n", ROUNDS, same, ROUNDS - 1, moved, handler_walks);
  CHECK (handler_walks == ROUNDS, handler_walks);
  if (same == 0)
    printf ("UNSUPPORTED: the loader never mapped a variant where the other had been\n");
  return 0;
}
