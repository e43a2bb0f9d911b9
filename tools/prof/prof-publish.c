/* gorc-prof --unwind=bpf: the walker's map of tables updated by a
   thread of its own (see prof-publish.h).  */

#define _GNU_SOURCE
#include "prof-publish.h"

#ifdef GORC_HAVE_BPF
#include <bpf/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "prof-data.h"

/* A table to put.  */
struct entry {
  uint32_t key;
  int fd;
  size_t tag;
};

struct prof_publisher {
  int map_fd;
  int event_fd;
  pthread_t thread;
  int started;
  pthread_mutex_t lock;
  pthread_cond_t work;        /* tables queued, or stop */
  pthread_cond_t idle;        /* none queued, none being put */
  int stop;
  int busy;                   /* the thread is putting some */
  struct entry *queued;
  size_t nqueued, cap_queued;
  struct prof_published *done;
  size_t ndone, cap_done;
};

/* TAG said done (OK: put), under the lock.  */
static void said_done(struct prof_publisher *p, size_t tag, int ok)
{
  p->done = prof_xgrow(p->done, &p->cap_done, p->ndone + 1, sizeof *p->done, 16, SIZE_MAX);
  p->done[p->ndone++] = (struct prof_published){ tag, ok };
}

/* The N tables at E into the map, in one update (one grace period),
   then said done.  */
static void put(struct prof_publisher *p, const struct entry *e, size_t n)
{
  uint32_t *keys = prof_xmalloc(n * sizeof *keys);
  int *fds = prof_xmalloc(n * sizeof *fds);
  for (size_t i = 0; i < n; i++) {
    keys[i] = e[i].key;
    fds[i] = e[i].fd;
  }
  uint32_t count = (uint32_t)n;
  /* on an error, count is how many were put (libbpf's contract) */
  if (bpf_map_update_batch(p->map_fd, keys, fds, &count, NULL) != 0 && count == n)
    count = 0;
  free(keys);
  free(fds);
  pthread_mutex_lock(&p->lock);
  for (size_t i = 0; i < n; i++)
    said_done(p, e[i].tag, i < count);
  p->busy = 0;
  pthread_cond_broadcast(&p->idle);
  pthread_mutex_unlock(&p->lock);
  eventfd_write(p->event_fd, 1);
}

static void *publish(void *arg)
{
  struct prof_publisher *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->stop && p->nqueued == 0)
      pthread_cond_wait(&p->work, &p->lock);
    if (p->stop)
      break;
    /* all that is queued, in one update: the queue starts anew */
    struct entry *taken = p->queued;
    size_t n = p->nqueued;
    p->queued = NULL;
    p->nqueued = p->cap_queued = 0;
    p->busy = 1;
    pthread_mutex_unlock(&p->lock);
    put(p, taken, n);
    free(taken);
    pthread_mutex_lock(&p->lock);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

/* The thread started: 1, or 0.  It takes no signal (gorc-prof's
   handlers must wake the loop's poll, not it), and runs as an ordinary
   task whatever the loop's policy then (a started program's start is
   followed at real-time priority: see prof-record.c).  */
static int start_thread(struct prof_publisher *p)
{
  pthread_attr_t attr;
  struct sched_param param = { 0 };
  sigset_t all, old;
  int ok;
  if (pthread_attr_init(&attr) != 0)
    return 0;
  pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
  pthread_attr_setschedparam(&attr, &param);
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  ok = pthread_create(&p->thread, &attr, publish, p) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  return ok;
}

struct prof_publisher *prof_publisher_new(int map_fd)
{
  struct prof_publisher *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->map_fd = map_fd;
  p->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (p->event_fd < 0) {
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->idle, NULL);
  return p;
}

void prof_publisher_queue(struct prof_publisher *p, uint32_t key, int inner_fd, size_t tag)
{
  pthread_mutex_lock(&p->lock);
  if (!p->started)
    p->started = start_thread(p);
  if (p->started) {
    p->queued = prof_xgrow(p->queued, &p->cap_queued, p->nqueued + 1, sizeof *p->queued, 16,
                           SIZE_MAX);
    p->queued[p->nqueued++] = (struct entry){ key, inner_fd, tag };
    pthread_cond_signal(&p->work);
  } else {                    /* no thread: done, not put */
    said_done(p, tag, 0);
    eventfd_write(p->event_fd, 1);
  }
  pthread_mutex_unlock(&p->lock);
}

size_t prof_publisher_done(struct prof_publisher *p, struct prof_published *out, size_t max)
{
  eventfd_t unused;
  pthread_mutex_lock(&p->lock);
  size_t n = p->ndone < max ? p->ndone : max;
  if (n > 0) {                /* (none yet: no array) */
    memcpy(out, p->done, n * sizeof *out);
    memmove(p->done, p->done + n, (p->ndone - n) * sizeof *p->done);
    p->ndone -= n;
  }
  if (p->ndone == 0)
    eventfd_read(p->event_fd, &unused);   /* (readable again at the next put) */
  pthread_mutex_unlock(&p->lock);
  return n;
}

void prof_publisher_wait(struct prof_publisher *p)
{
  pthread_mutex_lock(&p->lock);
  while (p->nqueued > 0 || p->busy)
    pthread_cond_wait(&p->idle, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

int prof_publisher_fd(const struct prof_publisher *p)
{
  return p->event_fd;
}

void prof_publisher_free(struct prof_publisher *p)
{
  if (!p)
    return;
  if (p->started) {
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
  }
  free(p->queued);
  free(p->done);
  close(p->event_fd);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->idle);
  free(p);
}
#endif
