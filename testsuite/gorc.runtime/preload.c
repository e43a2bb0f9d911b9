/* LD_PRELOAD=libgorc-preload.so makes an unmodified program's calls to
   glibc's backtrace() walk with gorc, with glibc's results.  The test
   re-executes itself with LD_PRELOAD set.  */
/* { dg-do run } */
/* { dg-gorc-runtime preload } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdlib.h>
#include <unistd.h>
#include "support/rt-test.h"

#define DEPTH 30
/* expected[0]: check's return address, then level(0)'s ... level(DEPTH)'s.  */
static void *expected[DEPTH + 2];
volatile int sink;

__attribute__((noinline, noclone)) static void
check (void)
{
  void *ours[64], *glibcs[64];
  typedef int (*bt_fn) (void **, int);
  void *libc = dlopen ("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  bt_fn glibc_backtrace = libc ? (bt_fn) dlsym (libc, "backtrace") : NULL;

  expected[0] = __builtin_return_address (0);
  CHECK (glibc_backtrace != NULL, 0);
  CHECK ((void *) glibc_backtrace != (void *) backtrace, 0); /* preloaded */
  int n = backtrace (ours, 64);
  int g = glibc_backtrace (glibcs, 64);
  /* ours[0] is in check, then the chain's return addresses.  */
  rt_check_chain (ours, n, 1, expected, DEPTH + 2);
  /* Frame for frame what glibc finds (its first entry is at a different
     call site in check, so compare from the caller on).  */
  CHECK (n == g, n - g);
  for (int i = 1; i < n; i++)
    if (ours[i] != glibcs[i])
      FAIL ("differs from glibc at frame", i);
}

__attribute__((noinline, noclone)) static void
level (int d)
{
  expected[d + 1] = __builtin_return_address (0);
  if (d == 0)
    check ();
  else
    level (d - 1);
  sink = d;
}

int
main (int argc, char **argv)
{
  (void) argc;
  if (!getenv ("GORC_TEST_PRELOADED")) {
    /* Find libgorc-preload.so through the rpath, then run again with it.  */
    void *h = dlopen ("libgorc-preload.so", RTLD_NOW | RTLD_LOCAL);
    Dl_info info;
    CHECK (h != NULL, 0);
    CHECK (dladdr (dlsym (h, "gorc_backtrace"), &info) != 0, 0);
    setenv ("LD_PRELOAD", info.dli_fname, 1);
    setenv ("GORC_TEST_PRELOADED", "1", 1);
    execv ("/proc/self/exe", argv);
    FAIL ("execv", 0);
  }
  CHECK (dlsym (RTLD_DEFAULT, "gorc_backtrace") != NULL, 0);
  level (DEPTH);
  return 0;
}
