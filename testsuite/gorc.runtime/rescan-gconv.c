/* A module the C library loads itself: iconv_open ("IBM037", ...) makes
   glibc dlopen gconv/IBM037.so through its internal path, which libgorc's
   interposed dlopen never sees.  A worker thread converts text with it in
   a loop while another thread sends it SIGPROF; the handler walks with
   gorc_backtrace_ucontext and nongnu libunwind.  Until the main thread
   calls gorc_backtrace once, samples may fail with -GORC_ENORECORD (the
   module is unknown; such a walk asks for a rescan); from then on every
   sample must be complete and equal to libunwind's, until 200 samples
   were taken with the interrupted instruction inside IBM037.so.  */
/* { dg-do run } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <iconv.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-sampler.h"
#include "support/rt-trace.h"

#define MAX 128
#define WANT 200

static struct rt_range module;   /* IBM037.so's code */
static atomic_int phase, misses1, samples1, samples2, in_module2, stop;
static iconv_t cd;

static int
in_module (uintptr_t a)
{
  return a >= module.lo && a < module.hi;
}

static void
on_sigprof (int sig, siginfo_t *si, void *ucv)
{
  (void) sig;
  (void) si;
  ucontext_t *uc = ucv;
  void *ours[MAX];
  int ph = atomic_load (&phase);
  uintptr_t ip = (uintptr_t) uc->uc_mcontext.gregs[REG_RIP];
  int rc = gorc_backtrace_ucontext (uc, ours, MAX);
  int n = gorc_backtrace_count ();
  CHECK (n >= 1 && n <= MAX, n);
  if (ph == 1) {
    CHECK (rc >= 0 || rc == -GORC_ENORECORD, rc);
    atomic_fetch_add (&samples1, 1);
    if (rc < 0)
      atomic_fetch_add (&misses1, 1);
    return;
  }
  if (ph != 2)
    return;
  rt_check_sample_after_rescan (uc, rc, ours, n, MAX, in_module, "(IBM037)");
  atomic_fetch_add (&samples2, 1);
  if (in_module (ip))
    atomic_fetch_add (&in_module2, 1);
}

static int
find_module (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (!info->dlpi_name || !strstr (info->dlpi_name, "/IBM037.so"))
    return 0;
  module = rt_code_range (info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
  return 1;
}

static char text[1 << 16];
static char out[1 << 16];

static void *
worker_main (void *arg)
{
  (void) arg;
  while (!atomic_load (&stop)) {
    char *in = text, *o = out;
    size_t inleft = sizeof text, outleft = sizeof out;
    CHECK (iconv (cd, &in, &inleft, &o, &outleft) != (size_t) -1, inleft);
  }
  return NULL;
}

int
main (void)
{
  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  for (size_t i = 0; i < sizeof text; i++)
    text[i] = (char) ('A' + i % 26);
  cd = iconv_open ("IBM037", "ISO-8859-1");
  if (cd == (iconv_t) -1) {
    printf ("no IBM037 conversion: nothing to test\n");
    return 0;
  }
  dl_iterate_phdr (find_module, NULL);
  CHECK (module.hi > module.lo, 0);

  rt_on_sigprof (on_sigprof);
  atomic_store (&phase, 1);
  pthread_t worker;
  struct rt_sampler sampler;
  CHECK (pthread_create (&worker, NULL, worker_main, NULL) == 0, 0);
  rt_sampler_start (&sampler, worker, 20000);
  rt_wait_for (&samples1, 50, "before the rescan");
  /* A walk in normal context: it rescans if a sample asked for it.  */
  void *ips[MAX];
  CHECK (gorc_backtrace (ips, MAX) >= 2, 0);
  atomic_store (&phase, 2);
  rt_wait_for (&in_module2, WANT, "in IBM037.so after the rescan");
  atomic_store (&stop, 1);
  rt_sampler_stop (&sampler);
  pthread_join (worker, NULL);
  printf ("rescan-gconv: before the rescan %d samples, %d missed; after it %d samples, "
          "%d in IBM037.so\n", atomic_load (&samples1), atomic_load (&misses1),
          atomic_load (&samples2), atomic_load (&in_module2));
  iconv_close (cd);
  return 0;
}
