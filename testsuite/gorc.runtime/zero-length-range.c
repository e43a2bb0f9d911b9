/* One function can no longer make a whole module's records unusable
   (issue 12, item 7): at -O3 -fwrapv GCC reduces `never' to nothing (or a
   single call), and the plugin gave it a range that ends where it
   starts.  A reader must keep every other range: in a records-only
   program gorc_backtrace gives the whole chain, to the outermost frame.
   (The reproducer of the issue, with the chain checked.)  */
/* { dg-do run } */
/* { dg-options "-O3 -fwrapv -fno-asynchronous-unwind-tables" } */
/* { dg-gorc-runtime static } */

#include <stdlib.h>
#include "support/rt-test.h"

static void *main_ra;

__attribute__((noinline)) int
leaf (int x)
{
  void *a[32];
  int rc = gorc_backtrace (a, 32);
  if (rc < 0) {
    rt_puts (gorc_strerror (rc));
    FAIL (": gorc_backtrace, frames", gorc_backtrace_count ());
  }
  /* leaf's caller (main), main's caller (libc), and on to _start.  */
  CHECK (rc >= 4 && rc < 32, rc);
  CHECK (a[1] == __builtin_return_address (0), 0);
  CHECK (a[2] == main_ra, 0);
  return rc + x;
}

__attribute__((noinline)) int
never (int x)
{
  if (x / 1 != x)
    abort ();
  __builtin_unreachable ();
}

int
main (int argc, char **argv)
{
  (void) argv;
  main_ra = __builtin_return_address (0);
  if (argc > 5)
    return never (argc);
  return leaf (0) < 4;
}
