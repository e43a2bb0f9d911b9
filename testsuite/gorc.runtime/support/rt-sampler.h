/* Sampling for the libgorc tests: a thread that sends another SIGPROF
   every INTERVAL_NS (rt_sampler_start, rt_sampler_stop), and
   rt_run_sampled, which samples a thread running WORKER until WORKER
   returns, HANDLER catching the signals.  Inline: not every includer
   uses them all.  */
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
  pthread_t thread;     /* the sampler's own */
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
  rt_on_signal (SIGPROF, handler, SA_RESTART);
}

/* Sample TARGET every INTERVAL_NS until rt_sampler_stop (S).  */
static inline void
rt_sampler_start (struct rt_sampler *s, pthread_t target, long interval_ns)
{
  s->target = target;
  s->interval_ns = interval_ns;
  atomic_init (&s->stop, 0);
  CHECK (pthread_create (&s->thread, NULL, rt_sampler_main, s) == 0, 0);
}

static inline void
rt_sampler_stop (struct rt_sampler *s)
{
  atomic_store (&s->stop, 1);
  pthread_join (s->thread, NULL);
}

static inline void
rt_run_sampled (void *(*worker) (void *), long interval_ns,
                void (*handler) (int, siginfo_t *, void *))
{
  struct rt_sampler s;
  pthread_t target;

  rt_on_sigprof (handler);
  CHECK (pthread_create (&target, NULL, worker, NULL) == 0, 0);
  rt_sampler_start (&s, target, interval_ns);
  pthread_join (target, NULL);
  rt_sampler_stop (&s);
}

/* The same with WORKER run by the calling thread.  */
static inline void
rt_run_sampled_here (void *(*worker) (void *), long interval_ns,
                     void (*handler) (int, siginfo_t *, void *))
{
  struct rt_sampler s;

  rt_on_sigprof (handler);
  rt_sampler_start (&s, pthread_self (), interval_ns);
  worker (NULL);
  rt_sampler_stop (&s);
}

static inline long long
rt_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
