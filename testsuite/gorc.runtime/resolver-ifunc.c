/* Samples inside an IFUNC resolver that glibc's lazy-binding resolver
   calls.  Like resolver.c (the machinery is support/resolver-sampler.h), but the lazily
   bound functions are dl_ifunc_0 .. dl_ifunc_3 of libgorc-dlifunc.so
   (support/dl-ifunc.c, built with the plugin): their IFUNC resolver spins,
   so most samples land in it, called from _dl_fixup, called from
   _dl_runtime_resolve_* (CFA = rbx + 16).  The IFUNC resolver has gorc
   records, which say nothing about rbx: the walk must get rbx back from a
   frame further up (_dl_fixup's .eh_frame) to step through the
   resolver.  Every sample's gorc_backtrace_ucontext trace must equal the
   cursor walk's and libunwind's and reach main; WANT samples must be in
   the IFUNC resolver with the lazy-binding resolver above it (else
   UNSUPPORTED, after at most 20 s).  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-builtin" } */
/* { dg-additional-options "-Wl,-z,lazy -Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "[exec -ignorestderr $::GORC_CC -O2 -fPIC -shared -fplugin=$::gorc_plugin [file dirname $prog]/support/dl-ifunc.c -o $::gorc_dltest_dir/libgorc-dlifunc.so] -Wl,--no-as-needed -L$::gorc_dltest_dir -Wl,-rpath,$::gorc_dltest_dir -lgorc-dlifunc" } */
/* { dg-final { upvar 1 output out name tn; if { ![info exists out] || ![regexp {resolver: } $out] } { unresolved "$tn IFUNC resolver frames sampled (the program did not finish)" } elseif { [regexp {UNSUPPORTED: ([^\n]*)} $out -> why] } { unsupported "$tn IFUNC resolver frames sampled: $why" } elseif { [regexp {resolver: [0-9]+ samples, [0-9]+ in ld.so, [1-9][0-9]* through the resolver, [1-9][0-9]* in the IFUNC resolver} $out] } { pass "$tn IFUNC resolver frames sampled" } else { fail "$tn IFUNC resolver frames sampled" } } } */

#define _GNU_SOURCE
#include <stdint.h>

#define WANT 200

/* ---- the lazily bound calls ---- */

static const char *const lazy_names[] = {
  "dl_ifunc_0", "dl_ifunc_1", "dl_ifunc_2", "dl_ifunc_3",
};

int dl_ifunc_0 (int);
int dl_ifunc_1 (int);
int dl_ifunc_2 (int);
int dl_ifunc_3 (int);
void dl_ifunc_resolver_range (void **lo, void **hi);

__attribute__((noinline, noclone)) static double
call_all (void)
{
  return dl_ifunc_0 (1) + dl_ifunc_1 (2) + dl_ifunc_2 (3) + dl_ifunc_3 (4);
}

#include "support/resolver-sampler.h"

static struct range ifunc_resolver;     /* the IFUNC resolver's code */
static atomic_int ifunc_samples;

static void
test_setup (void)
{
  void *lo, *hi;
  dl_ifunc_resolver_range (&lo, &hi);
  ifunc_resolver.lo = (uintptr_t) lo;
  ifunc_resolver.hi = (uintptr_t) hi;
}

static void
count_sample (void **ours, uintptr_t ip, int resolver_at)
{
  (void) ours;
  if (resolver_at >= 0 && in_ranges (&ifunc_resolver, 1, ip))
    atomic_fetch_add (&ifunc_samples, 1);
}

static int
enough_samples (void)
{
  return atomic_load (&ifunc_samples) >= WANT;
}

static void
test_report (int timed_out)
{
  printf ("%d in the IFUNC resolver, %d in the PLT, %d rounds\n",
          atomic_load (&ifunc_samples), atomic_load (&plt_samples), rounds);
  if (timed_out)
    printf ("UNSUPPORTED: fewer than %d samples in the IFUNC resolver in 20 s\n", WANT);
}
