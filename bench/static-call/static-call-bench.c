/* make bench: the cost of a call through a gorc static call against a
   direct call, a plain indirect call and a retpoline, as ns per call and
   as ratios to the direct call measured in the same run; then the cost of
   one gorc_static_call_update.  */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gorc/static_call.h>

long direct_loop_plain (long), indirect_loop_plain (long);
long direct_loop_retpo (long), indirect_loop_retpo (long), static_loop_retpo (long);
int bench_target (int), bench_other (int);
extern int (*bench_static_ptr) (int);

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

static double
time_updates (int n)
{
  double best = 1e30;
  for (int r = 0; r < 5; r++)
    {
      double t0 = now ();
      for (int i = 0; i < n; i++)
	if (gorc_static_call_update (bench_static_ptr, (i & 1) ? bench_other : bench_target) != 0)
	  {
	    fprintf (stderr, "update failed\n");
	    exit (1);
	  }
      double t = (now () - t0) / n * 1e6;
      if (t < best)
	best = t;
    }
  gorc_static_call_update (bench_static_ptr, bench_target);
  return best;
}

int
main (int argc, char **argv)
{
  const char *method[] = { "none", "memfd alias", "mprotect" };
  if (argc > 1 && strcmp (argv[1], "update") == 0)
    {
      double us = time_updates (20000);
      printf ("update: %.2f us per gorc_static_call_update (%s)\n", us,
	      method[gorc_static_call_last_method ()]);
      return 0;
    }
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
  printf ("calls: ns per call (loop included), ratio to the direct call; %ld calls, best of 9\n", n);
  printf ("calls: direct                        %6.2f ns  1.00x\n", d);
  printf ("calls: plain indirect                %6.2f ns  %.2fx\n", i, i / d);
  printf ("calls: direct (retpoline build)      %6.2f ns  %.2fx\n", dr, dr / d);
  printf ("calls: retpoline indirect            %6.2f ns  %.2fx\n", ir, ir / d);
  printf ("calls: gorc static call (retpoline)  %6.2f ns  %.2fx  (bar: <= 1.10x)\n", s, s / d);
  return 0;
}
