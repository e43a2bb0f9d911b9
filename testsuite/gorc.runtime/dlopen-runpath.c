/* libgorc.so's dlopen wrapper calls libc's dlopen, so glibc sees libgorc
   as the caller and would search libgorc's DT_RUNPATH instead of the
   program's.  A program whose DT_RUNPATH ($ORIGIN/dltest) is the only way
   to find libgorc-dltest.so must still load it by bare name, and libgorc
   must know the library at once (a trace through its frames right after
   dlopen, no rescan needed).  A name found nowhere must still fail with
   glibc's own dlerror() message.  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */
/* { dg-additional-options {-ldl -Wl,--enable-new-dtags -Wl,-rpath,$ORIGIN/dltest} } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "support/rt-test.h"

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

static void *lib_lo, *lib_hi;
static int in_lib;

static int callback (void *arg)
{
  void *ips[64];
  (void) arg;
  int n = gorc_backtrace (ips, 64);
  CHECK (n > 6, n);
  for (int i = 0; i < n; i++)
    if (ips[i] >= lib_lo && ips[i] < lib_hi)
      in_lib++;
  return 0;
}

int main (void)
{
  void *h = dlopen ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    {
      printf ("dlopen: %s\n", dlerror ());
      return 1;
    }
  dl_work_fn work = (dl_work_fn) dlsym (h, "dl_work");
  CHECK (work != NULL, 0);
  Dl_info info;
  CHECK (dladdr ((void *) work, &info) != 0, 0);
  lib_lo = info.dli_fbase;
  lib_hi = (char *) info.dli_fbase + (64 << 20);
  work (4, callback, NULL);
  CHECK (in_lib >= 5, in_lib);     /* dl_level x5 and dl_work */
  dlclose (h);

  CHECK (dlopen ("libgorc-no-such-library.so", RTLD_NOW) == NULL, 0);
  const char *err = dlerror ();
  CHECK (err && strstr (err, "libgorc-no-such-library.so"), 0);
  printf ("runpath ok\n");
  return 0;
}
/* { dg-output "runpath ok" } */
