/* libgorc's pthread_create, in libgorc.so and libgorc-preload.so: a
   thread it starts while libgorc needs something of each thread runs
   its start routine through gorc_rt_thread_start, which sets that up first, in
   the new thread, and undoes it when the thread ends (returns, calls
   pthread_exit or is cancelled):
   - the crash handler's alternate signal stack (crash.c), once the
     handler is installed: a stack overflow of the thread is traced;
   - the profiler's CPU-time timer (prof.c, libgorc-preload.so with
     GORC_PROF_OUT).
   Otherwise it is glibc's pthread_create (looked up with RTLD_NEXT),
   called straight.  Not in libgorc.a: a static program's libc defines
   pthread_create too.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "internal.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

GORC_HIDDEN int gorc_prof_active(void);
GORC_HIDDEN void gorc_prof_thread_begin(void);
GORC_HIDDEN void gorc_prof_thread_end(void);

struct thread_start {
  void *(*fn)(void *);
  void *arg;
  int prof;   /* arm the profiler's timer */
};

/* What gorc_rt_thread_start set up for its thread, undone at its end.  */
struct thread_setup {
  int prof;
  void *altstack;   /* gorc_rt_crash_thread_begin's */
};

static void thread_end(void *arg)
{
  struct thread_setup *setup = arg;
  if (setup->prof)
    gorc_prof_thread_end();
  gorc_rt_crash_thread_end(setup->altstack);
}

static void *gorc_rt_thread_start(void *p)
{
  struct thread_start s = *(struct thread_start *)p;
  struct thread_setup setup = { s.prof, NULL };
  void *ret;
  free(p);
  setup.altstack = gorc_rt_crash_thread_begin();
  if (s.prof)
    gorc_prof_thread_begin();
  pthread_cleanup_push(thread_end, &setup);
  ret = s.fn(s.arg);
  pthread_cleanup_pop(1);
  return ret;
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *thread,
                                                          const pthread_attr_t *attr,
                                                          void *(*fn)(void *), void *arg)
{
  static create_fn real_create;
  create_fn real = __atomic_load_n(&real_create, __ATOMIC_ACQUIRE);
  if (!real) {
    real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (!real)
      return EAGAIN;
    __atomic_store_n(&real_create, real, __ATOMIC_RELEASE);
  }
  int prof = gorc_prof_active();
  if (prof || gorc_rt_crash_installed()) {
    struct thread_start *s = malloc(sizeof *s);
    if (s) {
      s->fn = fn;
      s->arg = arg;
      s->prof = prof;
      int rc = real(thread, attr, gorc_rt_thread_start, s);
      if (rc != 0)
        free(s);
      return rc;
    }
  }
  return real(thread, attr, fn, arg);
}
