/* ld -r (issue 10): objects whose functions lie in .text, .text.unlikely
   (cold functions and the cold parts of split ones) and .text.startup
   (main, constructors) are merged with ld -r and then linked
   (gorc-partial-link).  ld -r joins each object's gorc_unwind_index
   pieces into one, which the final link cannot reorder: before binutils
   2.47 that index is not sorted; 2.47's ld -r sorts it.  The walks run
   with an unsorted index whatever ld did: when the program finds its
   index sorted, it runs a copy of itself whose index is reversed
   (rt_reverse_index_in_self).  Walks through every function, records
   only (no .eh_frame to fall back on), must still give every return
   address of the chain exactly and reach the outermost frame.  (Sorted
   indexes are what every other runtime test walks.)  */
/* { dg-do link } */
/* { dg-options "-O2 -fno-asynchronous-unwind-tables" } */
/* { dg-gorc-runtime internal } */
/* { dg-additional-sources "support/partial-b.c" } */
/* { dg-final { gorc-partial-link records-only } } */

#define _GNU_SOURCE
#include <stdio.h>
#include "support/gorc-index.h"
#include "support/partial-chain.h"

void *chain_ra[CHAIN_MAX];
int chain_n;
volatile int chain_sink;
static int walks;

/* Every function's return address, innermost first, follows the
   gorc_backtrace caller's own address.  */
__attribute__((noinline, noclone)) int
probe (int x)
{
  void *ips[64];
  rt_push ();
  int rc = gorc_backtrace (ips, 64);
  if (rc < 0) {
    rt_puts (gorc_strerror (rc));
    FAIL (": the walk failed after frames", gorc_backtrace_count ());
  }
  CHECK (rc == gorc_backtrace_count (), rc);
  CHECK (rc >= chain_n + 1, rc);
  for (int i = 0; i < chain_n; i++)
    if (ips[1 + i] != chain_ra[chain_n - 1 - i])
      FAIL ("wrong return address at frame", 1 + i);
  walks++;
  rt_pop ();
  return x + rc;
}

/* STEPS names the functions still to call: t c s (b_text, b_cold,
   b_split), T C S (a_text, a_cold, a_split); at the end, probe.  A
   split function with steps left calls its file's cold function
   first.  */
int
chain_next (const char *steps, int x)
{
  switch (steps[0]) {
  case 't': return b_text (steps + 1, x);
  case 'c': return b_cold (steps + 1, x);
  case 's': return b_split (steps + 1, x);
  case 'T': return a_text (steps + 1, x);
  case 'C': return a_cold (steps + 1, x);
  case 'S': return a_split (steps + 1, x);
  default: return probe (x);
  }
}

__attribute__((noinline, noclone)) int
a_text (const char *steps, int x)
{
  volatile int pad[10];
  rt_push ();
  pad[x % 10] = x;
  int r = chain_next (steps, x - 1) + pad[x % 10];
  rt_pop ();
  return r;
}

__attribute__((noinline, noclone, cold)) int
a_cold (const char *steps, int x)
{
  rt_push ();
  int r = chain_next (steps, x ^ 5);
  rt_pop ();
  return r - 1;
}

/* Its call on goes through a cold function: GCC moves that path to
   a_split.cold (.text.unlikely).  */
__attribute__((noinline, noclone)) int
a_split (const char *steps, int x)
{
  int r;
  rt_push ();
  if (steps[0] != 0) {
    volatile long big[6];
    big[x % 6] = x;
    r = a_cold (steps, x + 4) + (int) big[x % 6];
  } else {
    r = probe (x);
  }
  rt_pop ();
  return r * 3;
}

__attribute__((constructor)) static void
a_ctor (void)
{
  rt_push ();
  chain_sink = chain_next ("CtST", 1);
  rt_pop ();
}

/* This program with its index reversed, run: its exit status.  */
static int
run_reversed_copy (const struct rt_module_records *r)
{
  char dir[] = "/tmp/gorc-partial-link-XXXXXX", path[64];
  CHECK (mkdtemp (dir) != NULL, 0);
  snprintf (path, sizeof path, "%s/exe", dir);
  long len = rt_read_self ();
  rt_reverse_index_in_self (r);
  rt_write_self_copy (path, len);
  fflush (stdout);
  int status = rt_run_copy (path, "reversed", NULL);
  unlink (path);
  rmdir (dir);
  CHECK (WIFEXITED (status), status);
  return WEXITSTATUS (status);
}

int
main (int argc, char **argv)
{
  struct rt_module_records r;
  (void) argv;
  rt_push ();
  rt_module_records ((void *) main, &r);
  /* A range for each code section of each object (its functions share
     it): .text, .text.unlikely, .text.startup, twice.  */
  CHECK (rt_index_count (&r) >= 6, rt_index_count (&r));
  if (rt_index_sorted (&r)) {
    /* ld sorted it; the reversed copy must not find it sorted.  */
    CHECK (argc == 1, argc);
    printf ("ld -r sorted the index: the walks run in a copy with it reversed\n");
    return run_reversed_copy (&r);
  }
  /* Every order of the six, so each is a caller of each kind.  */
  static const char *const chains[] = { "TtCcSs", "scSCtT", "CsTcSt", "tTsScC", "S", "c", "" };
  /* Each chain ends in one walk.  */
  for (unsigned i = 0; i < sizeof chains / sizeof chains[0]; i++)
    chain_sink += chain_next (chains[i], (int) i);
  CHECK (walks == 2 + (int) (sizeof chains / sizeof chains[0]), walks);
  rt_pop ();
  printf ("%d walks through an unsorted index of %zu entries\n", walks, rt_index_count (&r));
  return 0;
}
