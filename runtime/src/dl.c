/* libgorc: modules loaded and unloaded at run time are picked up without
   the user registering anything.  libgorc defines dlopen and dlclose;
   linked into a program (or preloaded) they come before libc's, call it,
   and then rescan the loaded modules from this normal context, so a
   signal handler never has to scan (dl_iterate_phdr takes the loader's
   lock: scanning from a handler that interrupted dlopen would deadlock).

   A module removed by dlclose is unpublished by the rescan and its
   tables zero-filled, never unmapped, so an unwind that looked it up just
   before still reads valid memory.  Modules the C library loads itself
   (NSS, iconv) do not go through dlopen and are found by the rescan a
   walk asks for (api.c).  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
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

/* glibc searches the DT_RUNPATH of the object that called dlopen, which
   is now libgorc, not the program.  When the plain call fails for a bare
   name, try the directories of the real caller's DT_RUNPATH ($ORIGIN
   expanded), as glibc would have.  (DT_RPATH needs no help: glibc also
   searches the executable's.)  One difference remains: glibc tries the
   caller's RUNPATH before ld.so.cache and the default directories, this
   tries it after them.  */
static void *open_from_runpath(const void *caller, const char *file, int mode)
{
  Dl_info info;
  struct link_map *lm = NULL;
  if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_ld)
    return NULL;
  const char *strtab = NULL;
  ElfW(Xword) runpath = 0;
  int have_runpath = 0;
  for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
    if (d->d_tag == DT_STRTAB)
      strtab = (const char *)d->d_un.d_ptr;
    else if (d->d_tag == DT_RUNPATH) {
      runpath = d->d_un.d_val;
      have_runpath = 1;
    }
  }
  if (!strtab || !have_runpath)
    return NULL;
  if ((uintptr_t)strtab < lm->l_addr)      /* not relocated by ld.so */
    strtab += lm->l_addr;
  /* $ORIGIN: the directory of the calling object.  */
  char origin[PATH_MAX];
  if (lm->l_name && lm->l_name[0]) {
    snprintf(origin, sizeof origin, "%s", lm->l_name);
  } else {
    ssize_t r = readlink("/proc/self/exe", origin, sizeof origin - 1);
    origin[r > 0 ? r : 0] = 0;
  }
  char *slash = strrchr(origin, '/');
  if (slash)
    *slash = 0;
  const char *p = strtab + runpath;
  while (*p) {
    size_t len = strcspn(p, ":");
    char path[PATH_MAX];
    int n;
    if (len >= 9 && strncmp(p, "${ORIGIN}", 9) == 0)
      n = snprintf(path, sizeof path, "%s%.*s/%s", origin, (int)(len - 9), p + 9, file);
    else if (len >= 7 && strncmp(p, "$ORIGIN", 7) == 0)
      n = snprintf(path, sizeof path, "%s%.*s/%s", origin, (int)(len - 7), p + 7, file);
    else
      n = snprintf(path, sizeof path, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", file);
    if (n > 0 && (size_t)n < sizeof path) {
      void *h = next_dlopen(path, mode);
      if (h)
        return h;
    }
    p += len;
    if (*p == ':')
      p++;
  }
  return NULL;
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
  const void *caller = __builtin_return_address(0);
  pthread_once(&next_once, find_next);
  if (!next_dlopen)
    return NULL;
  void *handle = next_dlopen(file, mode);
  if (!handle && file && !strchr(file, '/')) {
    handle = open_from_runpath(caller, file, mode);
    if (!handle)
      handle = next_dlopen(file, mode);    /* dlerror() says why, as before */
  }
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
