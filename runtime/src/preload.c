/* libgorc-preload.so: LD_PRELOAD it and existing calls to glibc's
   backtrace(3) walk the stack with gorc.

   backtrace() here keeps glibc's contract: BUFFER[0] is the return address
   into backtrace's caller, at most SIZE entries, and it never fails (it
   returns what it found).  When gorc finds nothing past the caller (a
   stack it cannot walk at all), it falls back to glibc's own backtrace,
   looked up once at load time, never from the unwind path.

   Also, from the environment:
     GORC_CRASH_TRACE=1   install gorc_install_crash_handler() (crash.c)
     GORC_PROF_OUT=PATH   sample every thread for tools/gorc-prof (prof.c);
                          libgorc's pthread_create (thread.c) arms new threads  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "gorc.h"
#include "internal.h"

typedef int (*backtrace_fn)(void **, int);
static backtrace_fn glibc_backtrace;

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static create_fn real_create;

GORC_HIDDEN void gorc_prof_start(create_fn real);
GORC_HIDDEN void gorc_prof_stop(void);
GORC_HIDDEN int gorc_prof_active(void);

__attribute__((constructor)) static void preload_init(void)
{
  glibc_backtrace = (backtrace_fn)dlsym(RTLD_NEXT, "backtrace");
  /* glibc's, for the profiler's own thread.  */
  real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
  const char *crash = getenv("GORC_CRASH_TRACE");
  if (crash && strcmp(crash, "1") == 0)
    gorc_install_crash_handler();
  gorc_prof_start(real_create);
}

__attribute__((destructor)) static void preload_fini(void)
{
  gorc_prof_stop();
}

__attribute__((visibility("default"), noinline)) int backtrace(void **buffer, int size)
{
  struct gorc_cursor c;
  int n = 0;

  if (size <= 0 || !buffer)
    return 0;
  /* The cursor starts in this function; its first step reaches the caller.  */
  if (gorc_cursor_init(&c) == 0)
    while (n < size && gorc_cursor_step(&c) == 1)
      buffer[n++] = (void *)c.ip;
  if (n == 0 && glibc_backtrace)
    return glibc_backtrace(buffer, size);
  return n;
}
