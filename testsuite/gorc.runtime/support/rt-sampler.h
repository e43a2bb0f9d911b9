/* Sampling for the libgorc tests: run WORKER in a thread while another
   thread sends it SIGPROF every INTERVAL_NS, HANDLER catching them.
   Returns when WORKER returns.  */
#ifndef RT_SAMPLER_H
#define RT_SAMPLER_H
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include "rt-test.h"

struct rt_sampler {
  pthread_t target;
  long interval_ns;
  atomic_int stop;
};

static void *
rt_sampler_main (void *arg)
{
  struct rt_sampler *s = arg;
  struct timespec ts = { 0, s->interval_ns };
  while (!atomic_load (&s->stop)) {
    pthread_kill (s->target, SIGPROF);
    nanosleep (&ts, NULL);
  }
  return NULL;
}

/* HANDLER for SIGPROF.  */
static inline void
rt_on_sigprof (void (*handler) (int, siginfo_t *, void *))
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  CHECK (sigaction (SIGPROF, &sa, NULL) == 0, 0);
}

static void
rt_run_sampled (void *(*worker) (void *), long interval_ns,
                void (*handler) (int, siginfo_t *, void *))
{
  struct rt_sampler s;
  pthread_t sampler;

  rt_on_sigprof (handler);
  s.interval_ns = interval_ns;
  atomic_init (&s.stop, 0);
  CHECK (pthread_create (&s.target, NULL, worker, NULL) == 0, 0);
  CHECK (pthread_create (&sampler, NULL, rt_sampler_main, &s) == 0, 0);
  pthread_join (s.target, NULL);
  atomic_store (&s.stop, 1);
  pthread_join (sampler, NULL);
}

/* The same with WORKER run by the calling thread.  */
static inline void
rt_run_sampled_here (void *(*worker) (void *), long interval_ns,
                     void (*handler) (int, siginfo_t *, void *))
{
  struct rt_sampler s;
  pthread_t sampler;

  rt_on_sigprof (handler);
  s.target = pthread_self ();
  s.interval_ns = interval_ns;
  atomic_init (&s.stop, 0);
  CHECK (pthread_create (&sampler, NULL, rt_sampler_main, &s) == 0, 0);
  worker (NULL);
  atomic_store (&s.stop, 1);
  pthread_join (sampler, NULL);
}
#endif
