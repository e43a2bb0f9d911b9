/* Realigned frames with a DRAP register (a 64-byte-aligned local and
   alloca), single-stepped (support/rt-step.h): at every instruction of
   them, gorc_backtrace_ucontext's trace must be the KNOWN chain, not
   merely agree with another unwinder.  GCC's CFI for such a frame says
   "the caller's rbp is saved at [rbp+0]" until the function returns, also
   after the epilogue restored rbp (leave or pop %rbp; then
   lea -8(%r10),%rsp; ret).  Records that copy it read the caller's
   caller's rbp there: a caller that keeps a frame pointer loses its own
   caller (one frame short, and libunwind gives the same wrong trace), an
   -fomit-frame-pointer caller stops the walk (GORC_EBADFRAME).  The
   plugin records what the code does instead.  The epilogues: leave; pops
   of callee-saved registers and pop %rbp; two of them in one function.

   The chain is known without unwinding: each function stores its own
   __builtin_return_address (0), call after call, in a first, unstepped
   run; the stepped run makes the same calls.  The trace at a function's first instruction must
   hold those return addresses, and the trace at each later instruction of
   it must equal that one from frame 1 on.  Run with callers that keep a
   frame pointer and with callers that do not.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include "../support/rt-step.h"

#define MAX 64
#define CALLERS 2   /* caller1, caller2: their return addresses */

/* The stepped functions alone in this section, so that a pc is known to
   be in one of them.  */
#define DRAP_SECTION "gorc_drap_text"
extern const char __start_gorc_drap_text[], __stop_gorc_drap_text[];
#define DRAP __attribute__((noinline, noclone, section (DRAP_SECTION)))

enum { F_LEAVE, F_POPS, F_TWO_RETURNS, N_FUNCS };
#define N_CALLS 4                    /* calls of them in call_all */
static void *call_ra[N_CALLS];       /* their return addresses, in call order */
static int n_calls;                  /* calls recorded, or entered when stepped */
static void *known[CALLERS];
static int recording;                /* the unstepped run: store the chain */

/* The trace at the last entry into one of them, and the checks against
   it.  */
static void *entry_ips[MAX];
static int entry_n;
static long checked, wrong;

#define RECORD(slot) \
  do { if (recording) (slot) = __builtin_return_address (0); } while (0)
#define RECORD_CALL() \
  do { if (recording && n_calls < N_CALLS) call_ra[n_calls++] = __builtin_return_address (0); } \
  while (0)

__attribute__((noinline, noclone)) void
use (void *p)
{
  __asm__ volatile ("" : : "r" (p) : "memory");
}

/* Epilogue: leave; lea -8(%r10),%rsp; ret.  */
DRAP int
drap_leave (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  RECORD_CALL ();
  x[0] = n;
  use (x);
  use (p);
  if (((unsigned long) x & 63) != 0)
    abort ();
  return x[0];
}

/* Callee-saved registers: lea -k(%rbp),%rsp; pops; pop %rbp; lea; ret.  */
DRAP int
drap_pops (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  long a = n * 3, b = n * 5, c = n ^ 7, d = n - 1, e = n + 1;
  RECORD_CALL ();
  x[0] = n;
  use (x);
  use (p);
  __asm__ volatile ("" : "+r" (a), "+r" (b), "+r" (c), "+r" (d), "+r" (e)
                    : : "rbx", "r12", "r13", "r14", "r15");
  return x[0] + (int) (a + b + c + d + e) - (int) (n * 3 + n * 5 + (n ^ 7) + 2 * n);
}

/* Two epilogues (GCC's CFI: remember_state, restore_state).  */
DRAP int
drap_two_returns (int n)
{
  int x[16] __attribute__((aligned (64)));
  char *p = __builtin_alloca (n);
  RECORD_CALL ();
  x[0] = n;
  x[1] = n & 1;
  use (x);
  if (x[1]) {
    use (x);
    return x[0] - 1;
  }
  use (p);
  return x[0];
}

static int (*const funcs[N_FUNCS]) (int) = {
  [F_LEAVE] = drap_leave, [F_POPS] = drap_pops, [F_TWO_RETURNS] = drap_two_returns,
};

/* Each returns n; both paths of drap_two_returns are taken.  Inlined, so
   that the chain is the same at every -O level.  */
static inline __attribute__((always_inline)) int
call_all (int n)
{
  return drap_leave (n) + drap_pops (n) + drap_two_returns (n) + drap_two_returns (n + 1);
}

/* Callers that keep a frame pointer (CFA = rbp + 16): an unwinder that
   takes a wrong rbp from a DRAP frame takes a wrong CFA for them.  */
__attribute__((noinline, noclone, optimize ("no-omit-frame-pointer"))) int
fp_caller1 (int n)
{
  RECORD (known[0]);
  return call_all (n) + 1;
}

__attribute__((noinline, noclone, optimize ("no-omit-frame-pointer"))) int
fp_caller2 (int n)
{
  RECORD (known[1]);
  return fp_caller1 (n) + 1;
}

/* Callers built as the test is (-fomit-frame-pointer at -O1 and up).  */
__attribute__((noinline, noclone)) int
caller1 (int n)
{
  RECORD (known[0]);
  return call_all (n) + 1;
}

__attribute__((noinline, noclone)) int
caller2 (int n)
{
  RECORD (known[1]);
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
  rt_puts ("gorc_drap_text+");
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

/* The entry of one of the functions: cfa = rsp + 8, nothing of its own
   frame to read.  The trace must hold the known chain; it is what the
   function's other instructions are compared with.  */
static void
check_entry (void **ips, int rc)
{
  CHECK (rc > 1 + 1 + CALLERS && rc < MAX, rc);
  CHECK (n_calls < N_CALLS, n_calls);
  if (ips[1] != call_ra[n_calls++])
    FAIL ("the trace at a function's entry misses its return address, call", n_calls);
  for (int i = 0; i < CALLERS; i++)
    if (ips[2 + i] != known[i])
      FAIL ("the trace at a function's entry misses a caller at frame", 2 + i);
  memcpy (entry_ips, ips, sizeof ips[0] * (size_t) rc);
  entry_n = rc;
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
  for (int f = 0; f < N_FUNCS; f++)
    if (pc == (const char *) funcs[f]) {
      check_entry (ips, rc);
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
  if (fp_caller2 (40) != 4 * 40 + 2)
    abort ();
}

static void
run_callers (void *arg)
{
  (void) arg;
  if (caller2 (40) != 4 * 40 + 2)
    abort ();
}

/* Step RUN's chain; returns the number of instructions with a wrong trace.  */
static long
step_chain (const char *name, void (*run) (void *))
{
  n_calls = 0;
  recording = 1;
  run (NULL);
  recording = 0;
  CHECK (n_calls == N_CALLS, n_calls);
  n_calls = 0;
  entry_n = 0;
  checked = wrong = 0;
  rt_step_run (run, NULL, on_step);
  rt_puts (name);
  rt_puts (": ");
  rt_putn (checked);
  rt_puts (" instructions checked, ");
  rt_putn (wrong);
  rt_puts (" wrong\n");
  CHECK (n_calls == N_CALLS, n_calls);
  CHECK (checked > 80, checked);
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
