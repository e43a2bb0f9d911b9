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
#include <time.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-test.h"

#define MAX 128
#define WANT 200

static uintptr_t mod_lo, mod_hi;
static atomic_int phase, misses1, samples1, samples2, in_module2, stop;
static iconv_t cd;

static void
put_hex (uintptr_t v)
{
  char b[19];
  int i = 18;
  b[i] = 0;
  do {
    b[--i] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  b[--i] = 'x';
  b[--i] = '0';
  rt_puts (b + i);
}

static void
dump (const char *what, void **ips, int n)
{
  rt_puts (what);
  for (int i = 0; i < n; i++) {
    rt_puts (" ");
    put_hex ((uintptr_t) ips[i]);
    if ((uintptr_t) ips[i] >= mod_lo && (uintptr_t) ips[i] < mod_hi)
      rt_puts ("(IBM037)");
  }
  rt_puts ("\n");
}

static void
on_sigprof (int sig, siginfo_t *si, void *ucv)
{
  (void) sig;
  (void) si;
  ucontext_t *uc = ucv;
  void *ours[MAX], *theirs[MAX];
  unw_cursor_t cur;
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
  int m = 0;
  CHECK (unw_init_local2 (&cur, (unw_context_t *) uc, UNW_INIT_SIGNAL_FRAME) == 0, 0);
  do {
    unw_word_t uip;
    if (unw_get_reg (&cur, UNW_REG_IP, &uip) < 0 || m == MAX)
      break;
    theirs[m++] = (void *) uip;
  } while (unw_step (&cur) > 0);
  int differ = rc < 0 || n != m;
  for (int i = 0; i < n && i < m && !differ; i++)
    differ = ours[i] != theirs[i];
  if (differ) {
    rt_puts ("a sample after the rescan: gorc rc ");
    rt_putn (rc);
    rt_puts ("\n");
    dump ("  gorc:     ", ours, n);
    dump ("  libunwind:", theirs, m);
    FAIL ("a sample after the rescan differs from libunwind", rc);
  }
  atomic_fetch_add (&samples2, 1);
  if (ip >= mod_lo && ip < mod_hi)
    atomic_fetch_add (&in_module2, 1);
}

static int
find_module (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (!info->dlpi_name || !strstr (info->dlpi_name, "/IBM037.so"))
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
      mod_lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      mod_hi = mod_lo + info->dlpi_phdr[i].p_memsz;
    }
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

static void *
sampler_main (void *arg)
{
  pthread_t target = *(pthread_t *) arg;
  struct timespec ts = { 0, 20000 };
  while (!atomic_load (&stop)) {
    pthread_kill (target, SIGPROF);
    nanosleep (&ts, NULL);
  }
  return NULL;
}

static long long
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
wait_for (atomic_int *v, int want, const char *what)
{
  long long t0 = now_ns ();
  struct timespec ts = { 0, 1000000 };
  while (atomic_load (v) < want) {
    if (now_ns () - t0 > 10000000000LL) {
      rt_puts (what);
      FAIL (": too few samples", atomic_load (v));
    }
    nanosleep (&ts, NULL);
  }
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
  CHECK (mod_hi > mod_lo, 0);

  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  CHECK (sigaction (SIGPROF, &sa, NULL) == 0, 0);
  atomic_store (&phase, 1);
  pthread_t worker, sampler;
  CHECK (pthread_create (&worker, NULL, worker_main, NULL) == 0, 0);
  CHECK (pthread_create (&sampler, NULL, sampler_main, &worker) == 0, 0);
  wait_for (&samples1, 50, "before the rescan");
  /* A walk in normal context: it rescans if a sample asked for it.  */
  void *ips[MAX];
  CHECK (gorc_backtrace (ips, MAX) >= 2, 0);
  atomic_store (&phase, 2);
  wait_for (&in_module2, WANT, "in IBM037.so after the rescan");
  atomic_store (&stop, 1);
  pthread_join (worker, NULL);
  pthread_join (sampler, NULL);
  printf ("rescan-gconv: before the rescan %d samples, %d missed; after it %d samples, "
          "%d in IBM037.so\n", atomic_load (&samples1), atomic_load (&misses1),
          atomic_load (&samples2), atomic_load (&in_module2));
  iconv_close (cd);
  return 0;
}
