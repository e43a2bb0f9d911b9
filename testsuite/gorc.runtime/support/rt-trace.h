/* Traces in the sampling tests of libgorc: a module's code range, traces
   printed from a SIGPROF handler (write (2) only: printf is not
   async-signal-safe there), and nongnu libunwind's walk of the
   interrupted context, the oracle gorc's walk must equal.  Includers
   link -lunwind.  */
#ifndef RT_TRACE_H
#define RT_TRACE_H
#include <link.h>
#include <stdint.h>
#ifndef UNW_LOCAL_ONLY
#define UNW_LOCAL_ONLY
#endif
#include <libunwind.h>
#include "rt-test.h"

struct rt_range { uintptr_t lo, hi; };

/* The code of a module loaded at BASE with program headers PH[0..PHNUM):
   its last executable PT_LOAD segment; { 0, 0 } if it has none.  */
static inline struct rt_range
rt_code_range (uintptr_t base, const ElfW(Phdr) *ph, int phnum)
{
  struct rt_range r = { 0, 0 };
  for (int i = 0; i < phnum; i++)
    if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
      r.lo = base + ph[i].p_vaddr;
      r.hi = r.lo + ph[i].p_memsz;
    }
  return r;
}

static inline void
rt_puthex (uintptr_t v)
{
  char b[19];
  int i = 18;
  b[i] = 0;
  do {
    b[--i] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  b[--i] = 'x';
  b[--i] = '0';
  rt_puts (b + i);
}

/* WHAT and the addresses IPS[0..N) on a line, each that MARK accepts
   followed by TAG (the module the test is about; no tags if MARK is
   NULL).  */
static inline void
rt_dump (const char *what, void **ips, int n, int (*mark) (uintptr_t), const char *tag)
{
  rt_puts (what);
  for (int i = 0; i < n; i++) {
    rt_puts (" ");
    rt_puthex ((uintptr_t) ips[i]);
    if (mark && mark ((uintptr_t) ips[i]))
      rt_puts (tag);
  }
  rt_puts ("\n");
}

/* The addresses of the frames from libunwind's cursor CUR on, into
   IPS[0..MAX); returns how many.  */
static inline int
rt_unw_collect (unw_cursor_t *cur, void **ips, int max)
{
  int m = 0;
  do {
    unw_word_t ip;
    if (unw_get_reg (cur, UNW_REG_IP, &ip) < 0 || m == max)
      break;
    ips[m++] = (void *) ip;
  } while (unw_step (cur) > 0);
  return m;
}

/* libunwind's trace of the signal context UC into IPS[0..MAX); returns
   its length.  The test must have turned libunwind's caches off
   (UNW_CACHE_NONE): they would allocate in the handler.  */
static inline int
rt_unw_trace (void *uc, void **ips, int max)
{
  unw_cursor_t cur;
  CHECK (unw_init_local2 (&cur, (unw_context_t *) uc, UNW_INIT_SIGNAL_FRAME) == 0, 0);
  return rt_unw_collect (&cur, ips, max);
}

/* Whether gorc's walk OURS[0..N), which returned RC, failed or differs
   from THEIRS[0..M).  */
static inline int
rt_traces_differ (int rc, void **ours, int n, void **theirs, int m)
{
  int differ = rc < 0 || n != m;
  for (int i = 0; i < n && i < m && !differ; i++)
    differ = ours[i] != theirs[i];
  return differ;
}

/* WHERE, gorc's return value RC (with its error if negative), and both
   traces, gorc's OURS[0..N) and libunwind's THEIRS[0..M), each address
   that MARK accepts followed by TAG (as rt_dump).  */
static inline void
rt_dump_walks (const char *where, int rc, void **ours, int n, void **theirs, int m,
               int (*mark) (uintptr_t), const char *tag)
{
  rt_puts (where);
  rt_puts (": gorc rc ");
  rt_putn (rc);
  if (rc < 0) {
    rt_puts (" (");
    rt_puts (gorc_strerror (rc));
    rt_puts (")");
  }
  rt_puts ("\n");
  rt_dump ("  gorc:     ", ours, n, mark, tag);
  rt_dump ("  libunwind:", theirs, m, mark, tag);
}

/* The check of the sampling and stepping tests: the signal context UC
   walked by gorc_backtrace_ucontext into OURS[0..MAX) and by libunwind
   into THEIRS[0..MAX) (caches off, see rt_unw_trace).  Returns whether
   gorc's walk failed, is not complete (its return value is not its
   count) or differs from libunwind's; then both are printed first
   (rt_dump_walks), and the caller FAILs.  Gorc's return value goes to
   *RC.  */
static inline int
rt_ucontext_walks_differ (void *uc, void **ours, void **theirs, int max, int *rc,
                          const char *where, int (*mark) (uintptr_t), const char *tag)
{
  *rc = gorc_backtrace_ucontext (uc, ours, max);
  int n = gorc_backtrace_count ();
  int m = rt_unw_trace (uc, theirs, max);
  int differ = rt_traces_differ (*rc, ours, n, theirs, m) || *rc != n;
  if (differ)
    rt_dump_walks (where, *rc, ours, n, theirs, m, mark, tag);
  return differ;
}

#endif
