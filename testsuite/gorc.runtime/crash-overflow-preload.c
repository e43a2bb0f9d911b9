/* An unmodified program under LD_PRELOAD=libgorc-preload.so with
   GORC_CRASH_TRACE=1 (issue 23's new user): a stack overflow in the
   main thread, and in a thread made by pthread_create, each traced
   whole, the recursion collapsed, to _start and to clone3.  Each run is
   a child process that executes this program again with the preload
   and an argument naming the overflow; 10 runs of each.  */
/* { dg-do run } */
/* { dg-gorc-runtime preload } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include "support/crash-child.h"

static char *self;

__attribute__((noinline)) static void *overflowing_thread(void *unused)
{
  (void)unused;
  crash_sink = recurse(0);
  return NULL;
}

/* In the child: this program again, preloaded, to overflow in WHERE.  */
static void run_preloaded(void *where)
{
  char *argv[] = { self, where, NULL };
  execv("/proc/self/exe", argv);
  FAIL("execv", 0);
}

int main(int argc, char **argv)
{
  static const char *const main_tail[] = { "main", "_start" };
  static const char *const thread_tail[] = { "overflowing_thread", "start_thread", "clone3" };
  if (argc > 1) {
    /* Preloaded (the parent checked): overflow.  */
    if (strcmp(argv[1], "thread") == 0) {
      pthread_t t;
      CHECK(pthread_create(&t, NULL, overflowing_thread, NULL) == 0, 0);
      pthread_join(t, NULL);
    } else {
      crash_limit_stack();
      crash_sink = recurse(0);
    }
    return 0;
  }
  /* Find libgorc-preload.so through the rpath.  */
  void *h = dlopen("libgorc-preload.so", RTLD_NOW | RTLD_LOCAL);
  Dl_info info;
  CHECK(h != NULL, 0);
  CHECK(dladdr(dlsym(h, "gorc_backtrace"), &info) != 0, 0);
  setenv("LD_PRELOAD", info.dli_fname, 1);
  setenv("GORC_CRASH_TRACE", "1", 1);
  self = argv[0];
  crash_check_overflows(10, run_preloaded, "main", 5000, main_tail, 2);
  crash_check_overflows(10, run_preloaded, "thread", 5000, thread_tail, 3);
  return 0;
}
