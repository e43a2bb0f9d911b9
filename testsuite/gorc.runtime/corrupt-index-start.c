/* A corrupted range start (issue 12, item 5): a copy of this program,
   built with records only, has the start field of victim's index entry
   moved 0x7fff0000 bytes up (far outside the module), and is run.  Walks
   through the intact functions must still be exact; the walk at victim
   must stop with -GORC_ECORRUPT (there is no .eh_frame to fall back on)
   and report no wrong frame; and the corrupt copy's peak RSS may exceed
   the intact run's by 4 MB at most (it once cost hundreds of MB).  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-asynchronous-unwind-tables" } */
/* { dg-gorc-runtime internal } */

#define _GNU_SOURCE
#include <stdio.h>
#include <sys/stat.h>
#include "support/gorc-index.h"

#define MAX 64
#define RSS_SLACK_KB 4096
static void *ra[8];
static int nra, corrupt, expect_corrupt;

#define PUSH() (ra[nra++] = __builtin_return_address (0))
#define POP() (nra--)

/* The walk: every noted return address, innermost first, after this
   function's own.  */
__attribute__((noinline, noclone)) static int
probe (int x)
{
  void *ips[MAX];
  PUSH ();
  int rc = gorc_backtrace (ips, MAX), n = gorc_backtrace_count ();
  /* A walk may stop early, but what it reports is exact.  */
  for (int i = 0; i < nra && 1 + i < n; i++)
    if (ips[1 + i] != ra[nra - 1 - i])
      FAIL ("wrong return address at frame", 1 + i);
  if (expect_corrupt) {
    /* Stopped at victim's frame: its return address was not reported.  */
    CHECK (rc == -GORC_ECORRUPT, rc);
    CHECK (n == 2, n);
  } else {
    if (rc < 0) {
      rt_puts (gorc_strerror (rc));
      FAIL (": a walk through intact ranges, frames", n);
    }
    CHECK (rc == n && n >= nra + 2, n);
  }
  POP ();
  return x + rc;
}

__attribute__((noinline, noclone)) static int
intact_a (int x)
{
  volatile char pad[40];
  PUSH ();
  pad[x & 31] = (char) x;
  int r = probe (x) + pad[x & 31];
  POP ();
  return r;
}

/* In a section of its own, so that its range is its own too (the
   functions of .text share one).  */
__attribute__((noinline, noclone, section (".text.victim"))) static int
victim (int x)
{
  volatile long pad[6];
  PUSH ();
  pad[x % 6] = x;
  int r = (corrupt ? probe (x) : intact_a (x)) + (int) pad[x % 6];
  POP ();
  return r;
}

__attribute__((noinline, noclone)) static int
intact_b (int x)
{
  PUSH ();
  int r = intact_a (x + 1) * 2;
  POP ();
  return r;
}

static long
vm_hwm_kb (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[128];
  long kb = -1;
  CHECK (f != NULL, 0);
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "VmHWM: %ld kB", &kb) == 1)
      break;
  fclose (f);
  CHECK (kb > 0, kb);
  return kb;
}

/* A copy of this program with victim's range start moved, in DIR.  */
static void
write_corrupt_copy (const char *path)
{
  struct rt_module_records r;
  rt_module_records ((void *) victim, &r);
  long i = rt_index_of (&r, (void *) victim);
  CHECK (i >= 0, i);
  long at = rt_file_offset (&r, rt_index_entry (&r, (size_t) i));
  long len = rt_read_self ();
  CHECK (at > 0 && len > at + 4, len);
  int32_t field;
  memcpy (&field, rt_self + at, 4);
  field += 0x7fff0000;
  memcpy (rt_self + at, &field, 4);
  rt_write_self_copy (path, len);
}

/* Walks through intact_a, intact_b, victim, and main.  */
static int
walks (void)
{
  int r = intact_b (1) + intact_a (2);
  expect_corrupt = corrupt;
  r += victim (3);
  expect_corrupt = 0;
  return r + intact_b (4);
}

int
main (int argc, char **argv)
{
  PUSH ();
  corrupt = argc == 3;
  int r = walks ();
  long hwm = vm_hwm_kb ();
  if (corrupt) {
    CHECK (hwm <= atol (argv[2]) + RSS_SLACK_KB, hwm - atol (argv[2]));
    printf ("corrupt copy: %d, peak RSS %ld kB\n", r, hwm);
    return 0;
  }
  char dir[] = "/tmp/gorc-corrupt-start-XXXXXX", path[64], hwm_s[24];
  CHECK (mkdtemp (dir) != NULL, 0);
  snprintf (path, sizeof path, "%s/exe", dir);
  snprintf (hwm_s, sizeof hwm_s, "%ld", hwm);
  write_corrupt_copy (path);
  int status = rt_run_copy (path, "corrupt", hwm_s);
  unlink (path);
  rmdir (dir);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, status);
  printf ("intact: %d, peak RSS %ld kB\n", r, hwm);
  return 0;
}
