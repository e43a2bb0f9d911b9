/* Version 1 objects are never misread (issue 10): a shared library whose
   .note.gorc is version 1 (support/v1-module.s, hand-written: its
   gorc_unwind holds v1 ranges, which read as version 2 give wrong CFA
   offsets) is walked through from callbacks it calls.  libgorc must
   ignore its records and follow its .eh_frame: every walk equals
   libunwind's (which reads .eh_frame only), frame for frame, to the
   outermost frame.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-gorc-runtime-library "support/v1-module.s" } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-test.h"

int v1_frame (int (*cb) (void));
int v1_bp (int (*cb) (void));

#define MAX 64
static int walks;

/* gorc's walk from here against libunwind's: the same return addresses
   (libunwind's first entry is this function's own pc, so from the second
   on), both ending at the outermost frame.  */
__attribute__((noinline, noclone)) static int
compare_walks (void)
{
  void *ours[MAX], *theirs[MAX];
  int rc = gorc_backtrace (ours, MAX);
  int m = unw_backtrace (theirs, MAX);
  if (rc < 0) {
    rt_puts (gorc_strerror (rc));
    FAIL (": gorc_backtrace through the version 1 module, frames", gorc_backtrace_count ());
  }
  CHECK (m >= 4 && m < MAX, m);
  CHECK (rc == m, rc - m);
  for (int i = 1; i < m; i++)
    if (ours[i] != theirs[i])
      FAIL ("gorc and libunwind differ at frame", i);
  /* The frame above this one is the version 1 module's.  */
  Dl_info info;
  CHECK (dladdr (ours[1], &info) && info.dli_fname && strstr (info.dli_fname, "libv1-module"), 0);
  walks++;
  return rc;
}

__attribute__((noinline, noclone)) static int
nested (void)
{
  return v1_bp (compare_walks) + 1;
}

int
main (void)
{
  int total = v1_frame (compare_walks) + v1_bp (compare_walks) + v1_frame (nested);
  CHECK (walks == 3, walks);
  printf ("3 walks through a version 1 module, %d frames\n", total);
  return 0;
}
