/* Samples inside glibc's lazy-binding resolver.  The program is linked
   lazily (-z lazy, LD_BIND_NOW removed by re-executing itself), and its
   main thread calls 60 libm functions through the PLT over and over; before
   each round the PLT's GOT slots of those functions are put back to their
   lazy values, so every call goes through _dl_runtime_resolve_* (which
   keeps its CFA in rbx: push %rbx; mov %rsp,%rbx; and $-64,%rsp), _dl_fixup
   and the symbol lookup again.  Another thread sends the main thread
   SIGPROF every few microseconds; the handler walks the interrupted context
   with gorc_backtrace_ucontext, with gorc_cursor_init_ucontext and
   gorc_cursor_step, and with nongnu libunwind (unw_init_local2 (...,
   UNW_INIT_SIGNAL_FRAME)); it also calls gorc_backtrace, whose trace
   crosses the signal frame.  In every sample the traces must be equal,
   address for address (gorc_backtrace's from the interrupted ip on), and
   while the workload runs gorc's must reach main.

   The run goes on until at least WANT samples were taken inside ld.so,
   WANT went through a resolver frame (a return address in ld.so followed
   by one in the program's own code: the PLT call site) and WANT_DEEPER of
   those were interrupted below the resolver (in _dl_fixup or what it
   calls, so that rbx had to be followed through those frames), at most
   20 s; if the machine cannot produce them, the program says
   "UNSUPPORTED: ..." and dg-final reports that.

   PLT stubs (the program's, libm's, ...) are the only code where gorc and
   libunwind may differ: the linker's .eh_frame rule for .plt is a DWARF
   expression (CFA = rsp + 8 + 8 * ((rip & 15) >= 11)), which gorc does
   not evaluate, so a sample interrupted there may end with
   -GORC_EUNDEFINED at the first step (counted, not compared); anything
   else there is compared too.  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-builtin" } */
/* { dg-additional-options "-Wl,-z,lazy -Wl,--no-as-needed -lunwind -lm" } */
/* { dg-gorc-runtime static } */
/* { dg-final { upvar 1 output out name tn; if { ![info exists out] || ![regexp {resolver: } $out] } { unresolved "$tn resolver frames sampled (the program did not finish)" } elseif { [regexp {UNSUPPORTED: ([^\n]*)} $out -> why] } { unsupported "$tn resolver frames sampled: $why" } elseif { [regexp {resolver: [0-9]+ samples, [1-9][0-9]* in ld.so, [1-9][0-9]* through the resolver, [1-9][0-9]* below it} $out] } { pass "$tn resolver frames sampled" } else { fail "$tn resolver frames sampled" } } } */

#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>

#define WANT 300
#define WANT_DEEPER 50

/* ---- the lazily bound calls ---- */

static const char *const lazy_names[] = {
  "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
  "tanh", "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2",
  "log10", "log1p", "pow", "cbrt", "hypot", "erf", "erfc", "lgamma",
  "tgamma", "j0", "j1", "y0", "y1", "fmod", "remainder", "nextafter",
  "logb", "fdim", "sinf", "cosf", "tanf", "expf", "logf", "powf", "atanf",
  "sqrtf", "cbrtf", "erff", "log2f", "exp2f", "sinhf", "coshf", "tanhf",
  "asinf", "acosf", "hypotf", "fmodf", "log10f", "expm1f", "log1pf",
  "atan2f", "lgammaf",
};

static volatile double dx = 0.375, dy = 1.625;
static volatile float fx = 0.25f, fy = 1.5f;

__attribute__((noinline, noclone)) static double
call_all (void)
{
  double x = dx, y = dy, s = 0;
  float f = fx, g = fy;
  s += sin (x) + cos (x) + tan (x) + asin (x) + acos (x) + atan (x) + atan2 (x, y);
  s += sinh (x) + cosh (x) + tanh (x) + asinh (x) + acosh (y) + atanh (x);
  s += exp (x) + exp2 (x) + expm1 (x) + log (y) + log2 (y) + log10 (y) + log1p (x);
  s += pow (x, y) + cbrt (x) + hypot (x, y) + erf (x) + erfc (x) + lgamma (y);
  s += tgamma (y) + j0 (x) + j1 (x) + y0 (y) + y1 (y) + fmod (y, x);
  s += remainder (y, x) + nextafter (x, y) + logb (y) + fdim (y, x);
  s += sinf (f) + cosf (f) + tanf (f) + expf (f) + logf (g) + powf (f, g) + atanf (f);
  s += sqrtf (g) + cbrtf (f) + erff (f) + log2f (g) + exp2f (f) + sinhf (f);
  s += coshf (f) + tanhf (f) + asinf (f) + acosf (f) + hypotf (f, g) + fmodf (g, f);
  s += log10f (g) + expm1f (f) + log1pf (f) + atan2f (f, g) + lgammaf (g);
  return s;
}

#include "support/resolver-sampler.h"

static atomic_int deeper_samples;

static void
test_setup (void)
{
}

static void
count_sample (void **ours, uintptr_t ip, int resolver_at)
{
  (void) ip;
  /* Interrupted below the resolver (in _dl_fixup or what it calls): rbx
     had to be followed through those frames.  */
  if (resolver_at >= 2 && in_ranges (ldso, n_ldso, (uintptr_t) ours[0]))
    atomic_fetch_add (&deeper_samples, 1);
}

static int
enough_samples (void)
{
  return atomic_load (&ldso_samples) >= WANT && atomic_load (&resolver_samples) >= WANT
         && atomic_load (&deeper_samples) >= WANT_DEEPER;
}

static void
test_report (int timed_out)
{
  printf ("%d below it, %d in the PLT, %d rounds\n", atomic_load (&deeper_samples),
          atomic_load (&plt_samples), rounds);
  if (timed_out)
    printf ("UNSUPPORTED: fewer than %d samples in ld.so / through the resolver, or %d "
            "below it, in 20 s\n", WANT, WANT_DEEPER);
}
