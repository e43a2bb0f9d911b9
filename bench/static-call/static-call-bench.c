/* make bench: the cost of a call through a gorc static call against a
   direct call, a plain indirect call and a retpoline, as ns per call and
   as ratios to the direct call measured in the same run; a call site
   patched in place (gorc_static_call_patch_sites) against a direct call
   of the same code layout; then the cost of one gorc_static_call_update
   by each method (bench_updates).  */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <gorc/static_call.h>

int bench_target (int), bench_other (int);
extern int (*bench_static_ptr) (int);
long direct_loop_plain (long), indirect_loop_plain (long);
long direct_loop_retpo (long), indirect_loop_retpo (long), static_loop_retpo (long);
long static_loop_0_retpo (long), static_loop_1_retpo (long), static_loop_2_retpo (long),
  static_loop_3_retpo (long), static_loop_4_retpo (long), static_loop_5_retpo (long),
  static_loop_6_retpo (long), static_loop_7_retpo (long);
long direct_loop_0_retpo (long), direct_loop_1_retpo (long), direct_loop_2_retpo (long),
  direct_loop_3_retpo (long), direct_loop_4_retpo (long), direct_loop_5_retpo (long),
  direct_loop_6_retpo (long), direct_loop_7_retpo (long);
static long (*const direct_loops[8]) (long) = {
  direct_loop_0_retpo, direct_loop_1_retpo, direct_loop_2_retpo, direct_loop_3_retpo,
  direct_loop_4_retpo, direct_loop_5_retpo, direct_loop_6_retpo, direct_loop_7_retpo
};
static long (*const site_loops[8]) (long) = {
  static_loop_0_retpo, static_loop_1_retpo, static_loop_2_retpo, static_loop_3_retpo,
  static_loop_4_retpo, static_loop_5_retpo, static_loop_6_retpo, static_loop_7_retpo
};

/* Which call site a loop uses: a target that records its return address.  */
static uintptr_t probe_site;
__attribute__ ((noipa)) static int
probe_target (int x)
{
  probe_site = (uintptr_t) __builtin_return_address (0) - 5;
  return x + 1;
}

/* Which of the eight loops have a call site libgorc patches in place
   (rel32 inside one aligned 8-byte word): a bit mask, and their sites.  */
static uintptr_t loop_site[8];
static int
patchable_loops (void)
{
  int mask = 0;
  gorc_static_call_update (bench_static_ptr, probe_target);
  for (int k = 0; k < 8; k++)
    {
      probe_site = 0;
      site_loops[k] (1);
      loop_site[k] = probe_site;
      if (probe_site && ((unsigned char *) probe_site)[0] == 0xe8
	  && (probe_site + 1) % 8 <= 4)
	mask |= 1 << k;
    }
  gorc_static_call_update (bench_static_ptr, bench_target);
  return mask;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best of REPS runs of N calls, in ns per call.  */
static double
time_loop (long (*loop) (long), long n, int reps)
{
  double best = 1e30;
  volatile long sink;
  for (int r = 0; r < reps; r++)
    {
      double t0 = now ();
      sink = loop (n);
      double t = (now () - t0) / n * 1e9;
      if (t < best)
	best = t;
    }
  (void) sink;
  return best;
}

/* Loop K through its static-call site over the same loop calling
   directly: the best of three rounds of N calls each, interleaved.  */
static double
site_over_direct (int k, long n)
{
  double best_s = 1e30, best_d = 1e30;
  for (int round = 0; round < 3; round++)
    {
      double t = time_loop (site_loops[k], n, 3);
      best_s = t < best_s ? t : best_s;
      t = time_loop (direct_loops[k], n, 3);
      best_d = t < best_d ? t : best_d;
    }
  return best_s / best_d;
}

/* N updates (alternating targets), in us per update.  */
static double
time_updates (int n)
{
  double t0 = now ();
  for (int i = 0; i < n; i++)
    if (gorc_static_call_update (bench_static_ptr, (i & 1) ? bench_other : bench_target) != 0)
      {
	fprintf (stderr, "update failed\n");
	exit (1);
      }
  double t = (now () - t0) / n * 1e6;
  gorc_static_call_update (bench_static_ptr, bench_target);
  return t;
}

/* N getppid system calls, in us per call: the anchor the update costs
   are given against (a machine- and load-dependent unit).  */
static double
time_syscalls (int n)
{
  double t0 = now ();
  for (int i = 0; i < n; i++)
    syscall (SYS_getppid);
  return (now () - t0) / n * 1e6;
}

/* A thread calling through the static call while updates run: mprotect
   and membarrier may have to interrupt the CPU it runs on.  */
static volatile int caller_stop;
static void *
caller (void *arg)
{
  while (!caller_stop)
    static_loop_retpo (1000);
  return arg;
}

/* One round: the best so far of N updates alone (BEST[0]) and with a
   thread calling (BEST[1]).  */
static void
update_round (double best[2], int n)
{
  double t = time_updates (n);
  best[0] = t < best[0] ? t : best[0];
  pthread_t th;
  caller_stop = 0;
  if (pthread_create (&th, NULL, caller, NULL) != 0)
    exit (1);
  t = time_updates (n);
  best[1] = t < best[1] ? t : best[1];
  caller_stop = 1;
  pthread_join (th, NULL);
}

/* The update cost of both methods in one run: this process updates
   through the memfd alias, a child forked before any update, with
   GORC_STATIC_CALL_NO_ALIAS=1, through mprotect; they take turns, round
   by round (a token over two pipes), so both see the same machine load.
   Best of ROUNDS rounds each, against a system call timed alongside.  */
static int
bench_updates (void)
{
  enum { ROUNDS = 5, UPDATES = 5000 };
  int to_child[2], to_parent[2];
  char tok = 0;
  if (pipe (to_child) != 0 || pipe (to_parent) != 0)
    return 1;
  fflush (stdout);
  pid_t pid = fork ();
  if (pid < 0)
    return 1;
  if (pid == 0)
    {
      setenv ("GORC_STATIC_CALL_NO_ALIAS", "1", 1);
      double best[2] = { 1e30, 1e30 };
      for (int r = 0; r < ROUNDS; r++)
	{
	  if (read (to_child[0], &tok, 1) != 1)
	    _exit (1);
	  update_round (best, UPDATES);
	  if (write (to_parent[1], &tok, 1) != 1)
	    _exit (1);
	}
      /* The result goes back as text over the same pipe.  */
      dprintf (to_parent[1], "%.17g %.17g %d\n", best[0], best[1],
	       gorc_static_call_last_method ());
      _exit (0);
    }
  double alias[2] = { 1e30, 1e30 }, mprot[2], sys = 1e30;
  int mprot_method = 0;
  for (int r = 0; r < ROUNDS; r++)
    {
      update_round (alias, UPDATES);
      double t = time_syscalls (UPDATES * 10);
      sys = t < sys ? t : sys;
      if (write (to_child[1], &tok, 1) != 1 || read (to_parent[0], &tok, 1) != 1)
	return 1;
    }
  int alias_method = gorc_static_call_last_method ();
  char buf[128] = "";
  ssize_t len = read (to_parent[0], buf, sizeof buf - 1);
  int st;
  waitpid (pid, &st, 0);
  if (len <= 0 || sscanf (buf, "%lf %lf %d", &mprot[0], &mprot[1], &mprot_method) != 3
      || !WIFEXITED (st) || WEXITSTATUS (st) != 0)
    {
      fprintf (stderr, "update: the mprotect child failed\n");
      return 1;
    }
  const char *method[] = { "none", "memfd alias", "mprotect" };
  const char *with[] = { "alone", "1 thread calling" };
  printf ("update: one gorc_static_call_update, best of %d interleaved rounds of %d, in us\n"
	  "update: and in getppid() system calls timed alongside (%.3f us each here)\n",
	  ROUNDS, UPDATES, sys);
  for (int k = 0; k < 2; k++)
    {
      printf ("update: %-12s %-17s %7.2f us %7.1f syscalls\n", method[alias_method], with[k],
	      alias[k], alias[k] / sys);
      printf ("update: %-12s %-17s %7.2f us %7.1f syscalls  %.1fx the memfd alias\n",
	      method[mprot_method], with[k], mprot[k], mprot[k] / sys, mprot[k] / alias[k]);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "update") == 0)
    return bench_updates ();
  long n = argc > 1 ? atol (argv[1]) : 50000000;
  /* The first update maps the alias; calls measured after it.  */
  gorc_static_call_update (bench_static_ptr, bench_target);
  if (static_loop_retpo (1000) != direct_loop_plain (1000))
    {
      fprintf (stderr, "static call loop computes something else\n");
      return 1;
    }
  double d = 0, i = 0, dr = 0, ir = 0, s = 0;
  /* Interleaved rounds, best of each: the machine is shared.  */
  for (int round = 0; round < 3; round++)
    {
      double t;
      t = time_loop (direct_loop_plain, n, 3);  d = round ? (t < d ? t : d) : t;
      t = time_loop (indirect_loop_plain, n, 3); i = round ? (t < i ? t : i) : t;
      t = time_loop (direct_loop_retpo, n, 3);  dr = round ? (t < dr ? t : dr) : t;
      t = time_loop (indirect_loop_retpo, n, 3); ir = round ? (t < ir ? t : ir) : t;
      t = time_loop (static_loop_retpo, n, 3);  s = round ? (t < s ? t : s) : t;
    }
  printf ("calls: ns per call (loop included), best of 9 runs of %ld calls; ratio to the\n"
	  "calls: direct call (and, in brackets, to the direct call of the same retpoline build)\n", n);
  printf ("calls: direct                        %6.2f ns  1.00x\n", d);
  printf ("calls: plain indirect                %6.2f ns  %.2fx\n", i, i / d);
  printf ("calls: direct (retpoline build)      %6.2f ns  %.2fx  [1.00x]\n", dr, dr / d);
  printf ("calls: retpoline indirect            %6.2f ns  %.2fx  [%.2fx]\n", ir, ir / d, ir / dr);
  printf ("calls: gorc static call (retpoline)  %6.2f ns  %.2fx  [%.2fx]  (bar: <= 1.10x)\n",
	  s, s / d, s / dr);

  /* Call sites patched in place: each of the eight loop layouts whose
     site is patchable against its direct-call twin of the same layout
     (code placement moves these loops by 10-30%, so only twins compare).  */
  int mask = patchable_loops ();
  double ratios[8], tramp_ratios[8];
  int nr = 0;
  gorc_static_call_patch_sites (1);
  gorc_static_call_update (bench_static_ptr, bench_target);
  long sites = gorc_static_call_sites_patched ();
  for (int k = 0; k < 8; k++)
    {
      if (!(mask & (1 << k)))
	continue;
      int32_t rel;
      memcpy (&rel, (void *) (loop_site[k] + 1), 4);
      if (loop_site[k] + 5 + rel != (uintptr_t) bench_target)
	{
	  fprintf (stderr, "loop %d: its call site was not patched\n", k);
	  return 1;
	}
      ratios[nr] = site_over_direct (k, n / 2);
      nr++;
    }
  gorc_static_call_patch_sites (0);
  gorc_static_call_update (bench_static_ptr, bench_target);
  /* The same layouts through the trampoline, for comparison.  */
  int nt = 0;
  for (int k = 0; k < 8; k++)
    {
      if (!(mask & (1 << k)))
	continue;
      tramp_ratios[nt++] = site_over_direct (k, n / 2);
    }
  if (nr > 0)
    {
      qsort (ratios, nr, sizeof *ratios, cmp_double);
      qsort (tramp_ratios, nt, sizeof *tramp_ratios, cmp_double);
      printf ("calls: call site patched in place: %.2fx its direct twin (median of %d layouts,"
	      " %.2f-%.2f; %ld sites patched)\n", ratios[nr / 2], nr, ratios[0], ratios[nr - 1], sites);
      printf ("calls: the same layouts through the trampoline: %.2fx (%.2f-%.2f)\n",
	      tramp_ratios[nt / 2], tramp_ratios[0], tramp_ratios[nt - 1]);
    }
  else
    printf ("calls: call site patched in place: no loop layout with a patchable site\n");
  return 0;
}
