/* Return addresses that are no code (issue 12 item 6): in a chain of
   DEPTH + 1 frames, one frame's return address slot is overwritten with
     - an address in this program's data (a module's mapping, not code),
     - an address in the middle of libc's data (stdout's FILE),
     - an address in a page just unmapped,
     - a heap address.
   The walk must end with -GORC_EBADFRAME, not a count, having stored the
   addresses before the bad one and nothing after: through
   gorc_backtrace (also with MAX ending just where the bad address would
   go), gorc_cursor_step (which fails at that step), and
   gorc_backtrace_ucontext from a signal handler raised inside the chain.
   After the slot is restored the walk is complete again.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "support/rt-test.h"

#define DEPTH 8
#define BAD 5            /* the level whose return address is replaced */
#define MAX 64
static void **ra_slot[DEPTH + 1];
static void *exp_ra[DEPTH + 1];
static void *ips[MAX];
static long data_word = 42;
volatile int sink;

/* A walk from one_case: ips[0] into one_case, [1] into experiment, [2]
   into rec (0), [3 + k] exp_ra[k].  So the bad address would be
   ips[3 + BAD].  */
#define AT (3 + BAD)

/* The handler's walk of the interrupted context: [0] is in raise's code,
   then its callers up to experiment; where those are is found from the
   first walk.  */
static volatile int handler_rc, handler_n, handler_ok;
static void *handler_ips[MAX];

static void
on_sigusr1 (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  handler_rc = gorc_backtrace_ucontext (uc, handler_ips, MAX);
  handler_n = gorc_backtrace_count ();
}

/* The position of exp_ra[0] in the handler's trace (the frames above it
   are raise's and experiment's).  */
static int
handler_base (void)
{
  for (int i = 0; i < handler_n; i++)
    if (handler_ips[i] == exp_ra[0])
      return i;
  FAIL ("the handler's walk does not reach the chain", handler_n);
}

__attribute__((noinline, noclone)) static void
one_case (void *bad, const char *what)
{
  int rc, n;
  void *save = *ra_slot[BAD];
  *ra_slot[BAD] = bad;

  rc = gorc_backtrace (ips, MAX);
  n = gorc_backtrace_count ();
  if (rc != -GORC_EBADFRAME || n != AT) {
    rt_puts (what);
    rt_puts (": count ");
    rt_putn (n);
    FAIL (": gorc_backtrace", rc);
  }
  CHECK (ips[AT - 1] == exp_ra[BAD - 1], 0);

  /* MAX ends where the bad address would be stored.  */
  rc = gorc_backtrace (ips, AT + 1);
  n = gorc_backtrace_count ();
  if (rc != -GORC_EBADFRAME || n != AT) {
    rt_puts (what);
    rt_puts (": max just past it: count ");
    rt_putn (n);
    rt_puts (", last ");
    rt_putn ((long) ips[n - 1]);
    FAIL (": gorc_backtrace", rc);
  }

  /* The cursor: AT - 1 steps, then the step to the bad address fails.  */
  struct gorc_cursor c;
  CHECK (gorc_cursor_init (&c) == 0, 0);
  int steps = 0;
  while ((rc = gorc_cursor_step (&c)) == 1 && steps < MAX)
    if ((void *) c.ip == bad) {
      /* a step may give the bad address; the next must then fail */
      rc = gorc_cursor_step (&c);
      break;
    } else
      steps++;
  if (rc != -GORC_EBADFRAME) {
    rt_puts (what);
    FAIL (": the cursor", rc);
  }

  /* From a signal handler.  */
  handler_rc = 1;
  raise (SIGUSR1);
  if (handler_rc != -GORC_EBADFRAME) {
    rt_puts (what);
    FAIL (": gorc_backtrace_ucontext in the handler", handler_rc);
  }
  for (int i = 0; i < handler_n; i++)
    CHECK (handler_ips[i] != bad, i);
  CHECK (handler_ips[handler_n - 1] == exp_ra[BAD - 1], handler_n);

  *ra_slot[BAD] = save;
  printf ("bogus-ra: %s: -GORC_EBADFRAME after %d addresses, everywhere\n", what, AT);
}

__attribute__((noinline, noclone)) static void
experiment (void)
{
  int rc = gorc_backtrace (ips, MAX);
  CHECK (rc > DEPTH + 2, rc);
  rt_check_chain (ips, rc, 2, exp_ra, DEPTH + 1);
  raise (SIGUSR1);
  CHECK (handler_rc > DEPTH + 2, handler_rc);
  handler_base ();

  long page = sysconf (_SC_PAGESIZE);
  char *gone = mmap (NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK (gone != MAP_FAILED && munmap (gone, page) == 0, 0);
  char *heap = malloc (64);
  CHECK (heap != NULL, 0);

  one_case (&data_word, "this program's data");
  one_case ((char *) stdout + 8, "libc's data (stdout)");
  one_case (gone + 256, "an unmapped page");
  one_case (heap + 16, "the heap");
  free (heap);

  rc = gorc_backtrace (ips, MAX);
  CHECK (rc > DEPTH + 2, rc);
  rt_check_chain (ips, rc, 2, exp_ra, DEPTH + 1);
}

__attribute__((noinline, noclone)) static int
rec (int n)
{
  char *p = alloca (16 + n * 8);
  p[0] = (char) n;
  __asm__ volatile ("" : : "r" (p) : "memory");
  exp_ra[n] = __builtin_return_address (0);
  ra_slot[n] = (void **) __builtin_dwarf_cfa () - 1;
  CHECK (*ra_slot[n] == exp_ra[n], n);
  int r;
  if (n == 0) {
    experiment ();
    r = 0;
  } else
    r = rec (n - 1);
  sink += r + p[0];
  return r + 1;
}

int
main (void)
{
  rt_on_signal (SIGUSR1, on_sigusr1, 0);
  rec (DEPTH);
  return 0;
}
