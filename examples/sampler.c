/* Linked into demo-sampled: samples the program while it runs and, at
   exit, prints how many samples gorc and libunwind walked to the same
   trace, and a few traces side by side.

   A helper thread sends the main thread SIGPROF every 20 microseconds;
   the handler walks the interrupted context twice, with
   gorc_backtrace_ucontext and with libunwind (the reference), into a
   static buffer (no allocation, no I/O in the handler).  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "gorc.h"

#define MAX_SAMPLES 4096
#define MAX_FRAMES 48

struct sample {
  int n_gorc, n_unw, rc;
  void *gorc[MAX_FRAMES];
  void *unw[MAX_FRAMES];
};

static struct sample samples[MAX_SAMPLES];
static atomic_int n_samples, stop;
static pthread_t target, ticker;

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
  (void)sig;
  (void)si;
  int i = atomic_load(&n_samples);
  if (i >= MAX_SAMPLES)
    return;
  struct sample *s = &samples[i];
  s->rc = gorc_backtrace_ucontext(uc, s->gorc, MAX_FRAMES);
  s->n_gorc = gorc_backtrace_count();
  unw_cursor_t c;
  s->n_unw = 0;
  if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
    do {
      unw_word_t ip;
      if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0)
        break;
      s->unw[s->n_unw++] = (void *)ip;
    } while (s->n_unw < MAX_FRAMES && unw_step(&c) > 0);
  }
  atomic_store(&n_samples, i + 1);
}

static void *tick(void *arg)
{
  (void)arg;
  struct timespec ts = { 0, 20000 };
  while (!atomic_load(&stop)) {
    pthread_kill(target, SIGPROF);
    nanosleep(&ts, NULL);
  }
  return NULL;
}

__attribute__((constructor)) static void sampler_start(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, NULL);
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE);
  /* Let libgorc read the tables now, from normal context, rather than
     sample while its constructor may still be running.  */
  void *warm[4];
  gorc_backtrace(warm, 4);
  target = pthread_self();
  pthread_create(&ticker, NULL, tick, NULL);
}

static const char *name_of(void *ip, char *buf, size_t len)
{
  Dl_info info;
  if (dladdr(ip, &info) && info.dli_sname)
    snprintf(buf, len, "%s+%#lx", info.dli_sname,
             (unsigned long)((char *)ip - (char *)info.dli_saddr));
  else if (dladdr(ip, &info) && info.dli_fname)
    snprintf(buf, len, "%s+%#lx", strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1
                                                              : info.dli_fname,
             (unsigned long)((char *)ip - (char *)info.dli_fbase));
  else
    snprintf(buf, len, "%p", ip);
  return buf;
}

static int distinct(const struct sample *s)
{
  int d = 0;
  for (int i = 0; i < s->n_gorc; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = s->gorc[j] == s->gorc[i];
    d += !seen;
  }
  return d;
}

static int same(const struct sample *s)
{
  return s->rc >= 0 && s->n_gorc == s->n_unw
         && memcmp(s->gorc, s->unw, s->n_gorc * sizeof(void *)) == 0;
}

__attribute__((destructor)) static void sampler_report(void)
{
  atomic_store(&stop, 1);
  pthread_join(ticker, NULL);
  int n = atomic_load(&n_samples), equal = 0, early = 0, richest = -1, other = -1;
  for (int i = 0; i < n; i++) {
    if (same(&samples[i]))
      equal++;
    else if (samples[i].rc == -GORC_EINIT)
      early++; /* taken while libgorc was still reading the tables */
    else if (other < 0)
      other = i;
    if (richest < 0 || distinct(&samples[i]) > distinct(&samples[richest]))
      richest = i;
  }
  fprintf(stderr, "sampler: %d samples: %d identical to libunwind's traces, %d taken before "
          "libgorc had its tables (%s), %d different\n", n, equal, early,
          gorc_strerror(GORC_EINIT), n - equal - early);
  /* The sample through the most different functions, and the first one
     that differs, if any.  */
  int show[2] = { richest, other };
  for (int j = 0; j < 2 && n > 0; j++) {
    int k = show[j];
    if (k < 0)
      continue;
    const struct sample *s = &samples[k];
    if (same(s))
      fprintf(stderr, "\nsample %d (identical):\n", k);
    else
      fprintf(stderr, "\nsample %d (different: gorc stopped with \"%s\"):\n", k,
              s->rc < 0 ? gorc_strerror(s->rc) : "a shorter walk");
    fprintf(stderr, "  %-40s %s\n", "gorc", "libunwind");
    int frames = s->n_gorc > s->n_unw ? s->n_gorc : s->n_unw;
    for (int f = 0; f < frames; f++) {
      char a[80] = "", b[80] = "";
      if (frames > 16 && f == 8) {
        fprintf(stderr, "  ... %d more frames ...\n", frames - 14);
        f = frames - 7;
      }
      if (f < s->n_gorc)
        name_of(s->gorc[f], a, sizeof a);
      if (f < s->n_unw)
        name_of(s->unw[f], b, sizeof b);
      fprintf(stderr, "  %-40s %s\n", a, b);
    }
  }
}
