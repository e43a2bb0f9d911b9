/* A realigned frame with a DRAP register (a 64-byte-aligned local and
   alloca), single-stepped (support/rt-step.h): at every instruction of it,
   gorc_backtrace_ucontext's trace must be the KNOWN chain, not merely agree
   with another unwinder.  GCC's CFI for such a frame says "the caller's rbp
   is saved at [rbp+0]" until the function returns, also after the epilogue
   restored rbp (leave or pop %rbp; then lea -8(%r10),%rsp; ret).  Records
   that copy it read the caller's caller's rbp there: a caller that keeps a
   frame pointer loses its own caller (one frame short, and libunwind gives
   the same wrong trace), an -fomit-frame-pointer caller stops the walk
   (GORC_EBADFRAME).  The plugin records what the code does instead.

   The chain is known without unwinding: each function stores its own
   __builtin_return_address (0) in a first, unstepped run; the stepped run
   makes the same calls.  The trace at drap's first instruction must hold
   those return addresses, and the trace at each later instruction of drap
   must equal it from frame 1 on.  Run with callers that keep a frame
   pointer and with callers that do not.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include "../support/rt-step.h"

#define MAX 64
#define CHAIN 3   /* drap, caller1, caller2: their return addresses */

/* drap alone in this section, so that a pc is known to be in it.  */
#define DRAP_SECTION "gorc_drap_text"
extern const char __start_gorc_drap_text[], __stop_gorc_drap_text[];

static void *known[CHAIN];
static int recording;          /* the unstepped run: store the chain */

/* The trace at drap's entry, and the checks against it.  */
static void *entry_ips[MAX];
static int entry_n;
static long checked, wrong;

__attribute__((noinline, noclone)) void
use (void *p)
{
  __asm__ volatile ("" : : "r" (p) : "memory");
}

__attribute__((noinline, noclone, section (DRAP_SECTION))) int
drap (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  if (recording)
    known[0] = __builtin_return_address (0);
  x[0] = n;
  use (x);
  use (p);
  if (((unsigned long) x & 63) != 0)
    abort ();
  return x[0];
}

/* Callers that keep a frame pointer (CFA = rbp + 16): an unwinder that
   takes a wrong rbp from drap's frame takes a wrong CFA for them.  */
__attribute__((noinline, noclone, optimize ("no-omit-frame-pointer"))) int
fp_caller1 (int n)
{
  if (recording)
    known[1] = __builtin_return_address (0);
  return drap (n) + 1;
}

__attribute__((noinline, noclone, optimize ("no-omit-frame-pointer"))) int
fp_caller2 (int n)
{
  if (recording)
    known[2] = __builtin_return_address (0);
  return fp_caller1 (n) + 1;
}

/* Callers built as the test is (-fomit-frame-pointer at -O1 and up).  */
__attribute__((noinline, noclone)) int
caller1 (int n)
{
  if (recording)
    known[1] = __builtin_return_address (0);
  return drap (n) + 1;
}

__attribute__((noinline, noclone)) int
caller2 (int n)
{
  if (recording)
    known[2] = __builtin_return_address (0);
  return caller1 (n) + 1;
}

static void
put_hex (unsigned long v)
{
  char b[20];
  int k = 19;
  b[k] = 0;
  do b[--k] = "0123456789abcdef"[v & 15]; while (v >>= 4);
  rt_puts ("0x");
  rt_puts (b + k);
}

static void
report (const char *what, const char *pc, int rc, int n)
{
  rt_puts ("drap+");
  put_hex ((unsigned long) (pc - __start_gorc_drap_text));
  rt_puts (": ");
  rt_puts (what);
  rt_puts (": rc ");
  rt_putn (rc);
  rt_puts (", ");
  rt_putn (n);
  rt_puts (" frames of ");
  rt_putn (entry_n);
  rt_puts ("\n");
}

static void
on_step (ucontext_t *uc)
{
  const char *pc = (const char *) uc->uc_mcontext.gregs[REG_RIP];
  void *ips[MAX];

  if (pc < __start_gorc_drap_text || pc >= __stop_gorc_drap_text)
    return;
  int rc = gorc_backtrace_ucontext (uc, ips, MAX);
  int n = gorc_backtrace_count ();
  if (pc == (const char *) drap) {
    /* The entry: cfa = rsp + 8, nothing of drap's own frame to read.  */
    CHECK (rc > CHAIN && rc < MAX, rc);
    for (int i = 0; i < CHAIN; i++)
      if (ips[1 + i] != known[i])
        FAIL ("the trace at drap's entry misses a known return address at frame", 1 + i);
    memcpy (entry_ips, ips, sizeof ips[0] * (size_t) rc);
    entry_n = rc;
    return;
  }
  CHECK (entry_n > 0, entry_n);
  checked++;
  int same = rc == entry_n;
  for (int i = 1; same && i < rc; i++)
    same = ips[i] == entry_ips[i];
  if (!same) {
    wrong++;
    report (rc < 0 ? "walk stopped" : "trace differs from the known chain", pc, rc, n);
  }
}

static void
run_fp_callers (void *arg)
{
  (void) arg;
  if (fp_caller2 (40) != 42)
    abort ();
}

static void
run_callers (void *arg)
{
  (void) arg;
  if (caller2 (40) != 42)
    abort ();
}

/* Step RUN's chain; returns the number of instructions with a wrong trace.  */
static long
step_chain (const char *name, void (*run) (void *))
{
  recording = 1;
  run (NULL);
  recording = 0;
  entry_n = 0;
  checked = wrong = 0;
  rt_step_run (run, NULL, on_step);
  rt_puts (name);
  rt_puts (": ");
  rt_putn (checked);
  rt_puts (" instructions of drap checked, ");
  rt_putn (wrong);
  rt_puts (" wrong\n");
  CHECK (entry_n > 0, entry_n);
  CHECK (checked > 10, checked);
  return wrong;
}

int
main (void)
{
  long bad = step_chain ("callers with a frame pointer", run_fp_callers);
  bad += step_chain ("callers without a frame pointer", run_callers);
  CHECK (bad == 0, bad);
  return 0;
}
