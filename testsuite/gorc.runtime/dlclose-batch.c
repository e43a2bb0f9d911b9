/* dlclose in batches: 300 copies of libgorc-dltest.so (distinct modules)
   are dlopened, each unwound from inside, then all dlclosed, 40 times:
   more modules than libgorc has slots (256), so slots are taken over by
   other modules all the time, and every walk must still be complete.
   libgorc keeps nothing per module beyond its slots, so after the first
   cycles, neither the number of mappings
   (/proc/self/maps lines) nor the process's virtual size (statm) nor its
   RSS may keep growing: between cycle 5 and cycle 40 each may grow by a
   small slack only.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include "support/rt-memory.h"
#include "support/rt-copies.h"

#define COPIES 300
#define CYCLES 40
#define DEPTH 4
#define MAPS_SLACK 8
#define VSZ_SLACK (1L << 20)
#define RSS_SLACK (1L << 20)

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

static char tmpdir[] = "/tmp/gorc-batch-XXXXXX";
static char paths[COPIES][128];
static void *main_ra;

static int
deep (void *arg)
{
  void *ips[64];
  int rc = gorc_backtrace (ips, 64), seen = 0;
  CHECK (rc >= DEPTH + 4, rc);
  for (int i = 0; i < rc; i++)
    seen |= ips[i] == main_ra;
  CHECK (seen, rc);
  (void) arg;
  return 1;
}

__attribute__((noinline, noclone)) static void
cycles (void)
{
  void *h[COPIES];
  long vsz0 = 0, rss0 = 0, vsz, rss;
  int maps0 = 0;
  main_ra = __builtin_return_address (0);
  for (int c = 0; c < CYCLES; c++) {
    for (int i = 0; i < COPIES; i++) {
      h[i] = dlopen (paths[i], RTLD_NOW | RTLD_LOCAL);
      CHECK (h[i] != NULL, i);
      dl_work_fn work = (dl_work_fn) dlsym (h[i], "dl_work");
      CHECK (work != NULL && work (DEPTH, deep, NULL) >= 1, i);
    }
    for (int i = 0; i < COPIES; i++)
      CHECK (dlclose (h[i]) == 0, i);
    if (c + 1 == 5) {
      rt_statm (&vsz0, &rss0);
      maps0 = rt_maps_lines ();
    }
  }
  rt_statm (&vsz, &rss);
  int maps = rt_maps_lines ();
  printf ("dlclose-batch: %d cycles of %d modules; since cycle 5: mappings %+d, "
          "virtual size %+ld KiB, RSS %+ld KiB\n", CYCLES, COPIES, maps - maps0,
          (vsz - vsz0) >> 10, (rss - rss0) >> 10);
  fflush (stdout);
  rt_dltest_copies_remove (tmpdir, COPIES, paths);
  CHECK (maps - maps0 <= MAPS_SLACK, maps - maps0);
  CHECK (vsz - vsz0 <= VSZ_SLACK, (vsz - vsz0) >> 10);
  CHECK (rss - rss0 <= RSS_SLACK, (rss - rss0) >> 10);
}

int
main (void)
{
  rt_dltest_copies (tmpdir, "c", COPIES, paths);
  cycles ();
  return 0;
}
