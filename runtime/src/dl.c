/* libgorc: modules loaded and unloaded at run time are picked up without
   the user registering anything.  libgorc defines dlopen and dlclose;
   linked into a program (or preloaded) they come before libc's, call it,
   and then rescan the loaded modules from this normal context, so a
   signal handler never has to scan (dl_iterate_phdr takes the loader's
   lock: scanning from a handler that interrupted dlopen would deadlock).

   A module removed by dlclose is unpublished by the rescan; its entries
   live on in libgorc's memory, so an unwind that looked it up just before
   still reads valid memory.  Modules the C library loads itself (NSS,
   iconv) do not go through dlopen and are found by the next rescan.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include "internal.h"

typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);

static dlopen_fn next_dlopen;
static dlclose_fn next_dlclose;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
  next_dlopen = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
  next_dlclose = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
  pthread_once(&next_once, find_next);
  if (!next_dlopen)
    return NULL;
  void *handle = next_dlopen(file, mode);
  if (handle && gorc_rt_initialized())
    gorc_rt_rescan_wait();
  return handle;
}

__attribute__((visibility("default"))) int dlclose(void *handle)
{
  pthread_once(&next_once, find_next);
  if (!next_dlclose)
    return -1;
  int rc = next_dlclose(handle);
  if (gorc_rt_initialized())
    gorc_rt_rescan_wait();
  return rc;
}
