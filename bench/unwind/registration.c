/* make bench: what libgorc's table set-up costs for a module with many
   records.  Loads a generated library with libc's own dlopen (so nothing
   is scanned yet), then times the rescan that registers it, against a
   rescan with nothing new (the cost of the scan itself).  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include "gorc.h"
#include "internal.h"

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: registration LIBRARY\n");
    return 2;
  }
  void *ips[4];
  gorc_backtrace(ips, 4); /* libgorc set up for what is loaded now */
  typedef void *(*dlopen_fn)(const char *, int);
  dlopen_fn libc_dlopen = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
  if (!libc_dlopen || !libc_dlopen(argv[1], RTLD_NOW)) {
    fprintf(stderr, "registration: cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  double t0 = now_ns();
  gorc_rt_rescan_wait(); /* reads the new module's records and .eh_frame */
  double t1 = now_ns();
  gorc_rt_rescan_wait(); /* nothing new: the scan alone */
  double t2 = now_ns();
  unsigned records = 0, ehframe = 0;
  unsigned n = atomic_load(&gorc_rt_n_slots);
  for (unsigned i = 0; i < n; i++) {
    const struct gorc_rt_module *m = atomic_load(&gorc_rt_slots[i]);
    if (m && m->records_entries > records) {
      records = m->records_entries;
      ehframe = m->ehframe_entries;
    }
  }
  printf("%u %u %.0f %.0f\n", records, ehframe, t1 - t0, t2 - t1);
  return 0;
}
