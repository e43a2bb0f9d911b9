/* Which modules libgorc takes as never unloaded (runtime/src/permanent.c),
   so that a walk does not ask _dl_find_object about them: the main
   program, the modules it needs (here libdl-lib.so, linked in, and libc),
   the dynamic linker.  Not permanent: a copy of libdl-lib.so dlopened
   under another name, and one dlopened under the same base name from
   another directory (a module loaded later under a needed name is not
   the one the loader met it with).  Walks from inside each must reach
   main.  The program is linked with libgorc.a and its internal headers
   (dg-gorc-runtime internal).  */
/* { dg-do run } */
/* { dg-gorc-runtime internal } */
/* { dg-gorc-runtime-library support/dl-lib.c } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gorc.h"
#include "module.h"
#include "support/rt-copies.h"

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);
int dl_work (int depth, dl_callback cb, void *arg);

static void *main_ra;

static int
permanent_at (const void *addr)
{
  struct gorc_rt_module m;
  CHECK (gorc_rt_module_find ((uint64_t) (uintptr_t) addr, &m) == 0, 0);
  return m.permanent;
}

static int
walk_to_main (void *arg)
{
  void *ips[64];
  int rc = gorc_backtrace (ips, 64), seen = 0;
  CHECK (rc > 3, rc);
  for (int i = 0; i < rc; i++)
    seen |= ips[i] == main_ra;
  CHECK (seen, rc);
  (void) arg;
  return 1;
}

/* A copy of FILE at PATH, dlopened; its dl_work into *WORK.  */
static void *
load_copy (const char *file, const char *path, dl_work_fn *work)
{
  rt_copy_file (file, path);
  void *h = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  CHECK (h != NULL, 0);
  *work = (dl_work_fn) dlsym (h, "dl_work");
  CHECK (*work != NULL, 0);
  return h;
}

__attribute__((noinline, noclone)) static void
check_modules (void)
{
  main_ra = __builtin_return_address (0);
  Dl_info info;
  CHECK (dladdr ((void *) dl_work, &info) != 0 && info.dli_fname, 0);

  CHECK (permanent_at ((void *) check_modules) == 1, 0);   /* the main program */
  CHECK (permanent_at ((void *) dl_work) == 1, 0);         /* needed by it */
  CHECK (permanent_at ((void *) getpid) == 1, 0);          /* libc */
  CHECK (permanent_at ((void *) _dl_find_object) == 1, 0); /* the dynamic linker */
  CHECK (dl_work (3, walk_to_main, NULL) >= 1, 0);

  char dir[] = "/tmp/gorc-perm-XXXXXX", renamed[128], same_base[128], sub[128];
  CHECK (mkdtemp (dir) != NULL, 0);
  dl_work_fn work;
  snprintf (renamed, sizeof renamed, "%s/libother.so", dir);
  void *h1 = load_copy (info.dli_fname, renamed, &work);
  CHECK (permanent_at ((void *) work) == 0, 0);
  CHECK (work (3, walk_to_main, NULL) >= 1, 0);

  snprintf (sub, sizeof sub, "%s/sub", dir);
  CHECK (mkdir (sub, 0700) == 0, 0);
  const char *base = strrchr (info.dli_fname, '/');
  snprintf (same_base, sizeof same_base, "%s%s", sub, base ? base : "/libdl-lib.so");
  void *h2 = load_copy (info.dli_fname, same_base, &work);
  CHECK ((void *) work != (void *) dl_work, 0);
  CHECK (permanent_at ((void *) work) == 0, 0);
  CHECK (work (3, walk_to_main, NULL) >= 1, 0);

  CHECK (dlclose (h1) == 0 && dlclose (h2) == 0, 0);
  unlink (renamed);
  unlink (same_base);
  rmdir (sub);
  rmdir (dir);
}

int
main (void)
{
  check_modules ();
  puts ("permanent-modules: main, its needed modules, libc and ld.so permanent; dlopened copies not");
  return 0;
}
