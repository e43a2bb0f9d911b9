/* A corrupted stack: return addresses and saved frame pointers of live
   frames overwritten with garbage (deterministic cases with the exact
   error expected, then 3000 random corruptions of the frames above).
   libgorc must stop with an error code, never crash or read outside the
   stack, and never store a return address that is no code of a loaded
   module (such an address ends the walk with -GORC_EBADFRAME); after the
   stack is restored, the walk must be complete again.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <alloca.h>
#include <link.h>
#include "support/rt-test.h"

#define DEPTH 10
#define MAX 64
static void **ra_slot[DEPTH + 1], **bp_slot[DEPTH + 1];
static void *exp_ra[DEPTH + 1];
static void *ips[MAX];
volatile int sink;

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand (void)
{
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return rng;
}

static int valid_rc (int rc)
{
  return rc >= 0 || (rc <= -GORC_ENORECORD && rc >= -GORC_EDIRECTION);
}

/* The executable segments of the loaded modules (collected in main).  */
static struct { uintptr_t lo, hi; } code[64];
static int ncode;

static int
note_code (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)
        && ncode < 64) {
      code[ncode].lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      code[ncode].hi = code[ncode].lo + info->dlpi_phdr[i].p_memsz;
      ncode++;
    }
  return 0;
}

/* Is the return address A (the call is at A - 1) code of a module?  */
static int is_code (void *a)
{
  for (int i = 0; i < ncode; i++)
    if ((uintptr_t) a - 1 >= code[i].lo && (uintptr_t) a - 1 < code[i].hi)
      return 1;
  return 0;
}

static int rec (int n);

/* The parts of experiment () below are inlined into it: each walk starts
   in experiment's frame, so the frame numbers they check hold.  */
static inline __attribute__((always_inline)) void
corrupt_return_address (void)
{
  int rc;
  void *save;

  /* A: a return address outside every module: the walk ends there with
     -GORC_EBADFRAME, the address not stored (ips[7] would be it).  */
  save = *ra_slot[5];
  *ra_slot[5] = (void *) 0x1234567;
  rc = gorc_backtrace (ips, MAX);
  CHECK (rc == -GORC_EBADFRAME, rc);
  CHECK (gorc_backtrace_count () == 7, gorc_backtrace_count ());
  CHECK (ips[6] == exp_ra[4], 0);
  /* B: a return address pointing at the stack.  */
  *ra_slot[5] = (void *) &save;
  rc = gorc_backtrace (ips, MAX);
  CHECK (rc == -GORC_EBADFRAME, rc);
  CHECK (gorc_backtrace_count () == 7, gorc_backtrace_count ());
  *ra_slot[5] = save;
}

static inline __attribute__((always_inline)) void
corrupt_saved_fp (void)
{
  int rc;
  void *save;

  /* C: the saved rbp of level 4 (every level has a frame pointer, so
     level 5's CFA is computed from it): outside the stack.  */
  save = *bp_slot[4];
  *bp_slot[4] = (void *) 0x4141414141414140ull;
  rc = gorc_backtrace (ips, MAX);
  CHECK (rc == -GORC_EBADFRAME, rc);
  /* level 4 itself unwinds (ips[6] = its return address into level 5).  */
  CHECK (gorc_backtrace_count () == 7, gorc_backtrace_count ());
  CHECK (ips[6] == exp_ra[4], 0);
  /* ... misaligned, and below the current frame (wrong direction).  */
  *bp_slot[4] = (char *) save + 3;
  rc = gorc_backtrace (ips, MAX);
  CHECK (rc == -GORC_EBADFRAME, rc);
  *bp_slot[4] = (void *) &rc;
  rc = gorc_backtrace (ips, MAX);
  CHECK (rc == -GORC_EDIRECTION || rc == -GORC_EBADFRAME, rc);
  *bp_slot[4] = save;
}

static inline __attribute__((always_inline)) void
corrupt_random_words (void)
{
  int rc;

  /* D: random words of the frames of levels 1..DEPTH.  */
  uint64_t *lo = (uint64_t *) (ra_slot[0] + 1), *hi = (uint64_t *) ra_slot[DEPTH];
  size_t nw = (size_t) (hi - lo);
  CHECK (nw > 20 && nw < 4096, nw);
  static uint64_t copy[4096];
  int errors = 0;
  for (int it = 0; it < 3000; it++)
    {
      memcpy (copy, lo, nw * 8);
      int k = 1 + (int) (next_rand () % 4);
      for (int j = 0; j < k; j++)
	{
	  uint64_t r = next_rand (), v;
	  switch (r % 6)
	    {
	    case 0: v = next_rand (); break;
	    case 1: v = (uint64_t) (lo + next_rand () % (nw + 64)) + (next_rand () % 3 == 0 ? 4 : 0); break;
	    case 2: v = (uint64_t) (char *) rec + next_rand () % 512; break;
	    case 3: v = next_rand () % 64; break;
	    case 4: v = 0; break;
	    default: v = lo[next_rand () % nw]; break;
	    }
	  lo[(r >> 8) % nw] = v;
	}
      rc = gorc_backtrace (ips, MAX);
      int cnt = gorc_backtrace_count ();
      memcpy (lo, copy, nw * 8);
      CHECK (valid_rc (rc), rc);
      CHECK (cnt >= 0 && cnt <= MAX, cnt);
      CHECK (rc < 0 || rc == cnt, cnt);
      for (int i = 0; i < cnt; i++)
        if (!is_code (ips[i]))
          FAIL ("a stored return address is no code, at frame", i);
      errors += rc < 0;
    }
  CHECK (errors > 300, errors);
}

__attribute__((noinline, noclone)) static void
experiment (void)
{
  int rc;

  /* The frames as they are.  */
  rc = gorc_backtrace (ips, MAX);
  CHECK (rc > DEPTH + 2, rc);
  rt_check_chain (ips, rc, 2, exp_ra, DEPTH + 1);

  corrupt_return_address ();
  corrupt_saved_fp ();
  corrupt_random_words ();

  /* Restored: complete again.  */
  rc = gorc_backtrace (ips, MAX);
  CHECK (rc > DEPTH + 2, rc);
  rt_check_chain (ips, rc, 2, exp_ra, DEPTH + 1);
}

__attribute__((noinline, noclone)) static int
rec (int n)
{
  char *p = alloca (16 + n * 8);	/* a frame pointer in every level */
  p[0] = (char) n;
  __asm__ volatile ("" : : "r" (p) : "memory");
  exp_ra[n] = __builtin_return_address (0);
  ra_slot[n] = (void **) __builtin_dwarf_cfa () - 1;
  bp_slot[n] = (void **) __builtin_frame_address (0);
  CHECK (*ra_slot[n] == exp_ra[n], n);
  CHECK ((char *) bp_slot[n] == (char *) __builtin_dwarf_cfa () - 16, n);
  int r;
  if (n == 0)
    {
      experiment ();
      r = 0;
    }
  else
    r = rec (n - 1);
  sink += r + p[0];
  return r + 1;
}

int
main (void)
{
  dl_iterate_phdr (note_code, NULL);
  rec (DEPTH);
  return 0;
}
