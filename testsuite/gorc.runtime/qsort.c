/* A trace from inside qsort's comparison callback goes through libc's
   qsort frames (built without the plugin: their .eh_frame, converted)
   back to main, frame for frame as glibc's own backtrace sees it.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include "support/rt-test.h"

static int checked;
static void *sort_them_ra; /* sort_them's return address, into main */

static int
compare (const void *a, const void *b)
{
  if (!checked) {
    void *ours[64], *glibcs[64];
    typedef int (*bt_fn) (void **, int);
    bt_fn glibc_backtrace = (bt_fn) dlsym (RTLD_DEFAULT, "backtrace");
    CHECK (glibc_backtrace != NULL, 0);
    int n = gorc_backtrace (ours, 64);
    int g = glibc_backtrace (glibcs, 64);
    CHECK (n > 3, n);
    /* Both start in compare (at different call sites); from its caller
       (inside libc's qsort) on they must agree.  */
    CHECK (n == g, n - g);
    for (int i = 1; i < n; i++)
      if (ours[i] != glibcs[i])
        FAIL ("differs from glibc at frame", i);
    /* And it got through qsort to sort_them and on into main.  */
    int seen = 0;
    for (int i = 1; i < n; i++)
      seen |= ours[i] == sort_them_ra;
    CHECK (seen, 0);
    checked = 1;
  }
  return *(const int *) a - *(const int *) b;
}

__attribute__((noinline, noclone)) static void
sort_them (int *v, int n)
{
  sort_them_ra = __builtin_return_address (0);
  qsort (v, n, sizeof *v, compare);
  __asm__ volatile ("" ::: "memory");
}

int
main (void)
{
  int v[64];
  for (int i = 0; i < 64; i++)
    v[i] = (i * 37) % 64;
  sort_them (v, 64);
  CHECK (checked, 0);
  for (int i = 1; i < 64; i++)
    CHECK (v[i - 1] <= v[i], i);
  return 0;
}
