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

volatile int sink;
static char *self;

__attribute__((noinline)) int recurse(int n)
{
  volatile char b[256];
  b[0] = (char)n;
  return recurse(n + 1) + b[0];
}

__attribute__((noinline)) static void *overflowing_thread(void *unused)
{
  (void)unused;
  sink = recurse(0);
  return NULL;
}

/* In the child: this program again, preloaded, to overflow in WHERE.  */
static void run_preloaded(void *where)
{
  char *argv[] = { self, where, NULL };
  execv("/proc/self/exe", argv);
  FAIL("execv", 0);
}

static char trace[64 * 1024];

static void check_runs(const char *where, const char *const *tail, int ntail)
{
  for (int run = 0; run < 10; run++) {
    size_t total;
    int status = crash_child(run_preloaded, (void *)where, trace, sizeof trace, &total);
    const char *why = !WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV
                          ? "the child did not die by SIGSEGV"
                          : total >= sizeof trace ? "the trace is too long"
                          : crash_trace_problem(trace, "recurse", 5000, tail, ntail, 1);
    if (why) {
      rt_puts(trace);
      rt_puts(why);
      rt_puts("\n");
      FAIL("run", run);
    }
  }
  rt_puts(trace);
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
      sink = recurse(0);
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
  check_runs("main", main_tail, 2);
  check_runs("thread", thread_tail, 3);
  return 0;
}
