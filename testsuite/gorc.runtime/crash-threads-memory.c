/* 10,000 threads started and joined, one after the other, under the
   crash handler: each has libgorc's alternate signal stack (checked)
   and takes a signal on it (its pages touched); each is freed when its
   thread ends, so the process's resident and mapped sizes
   (/proc/self/statm) end within 1 MiB of where they were after the
   first 100 threads (glibc caches thread stacks).  A correctness check
   on memory, not a timing one.  */
/* { dg-do run } */
/* { dg-gorc-runtime shared } */

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include "support/rt-test.h"

#define THREADS 10000
#define WARMUP 100

static int with_altstack;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
  volatile char touch[8192];
  stack_t cur;
  (void)sig, (void)si, (void)uc;
  touch[0] = touch[sizeof touch - 1] = 1;
  CHECK(sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_ONSTACK), cur.ss_flags);
}

static void *thread(void *unused)
{
  stack_t cur;
  (void)unused;
  if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
    __atomic_add_fetch(&with_altstack, 1, __ATOMIC_RELAXED);
  raise(SIGUSR1);
  return NULL;
}

/* The process's total and resident sizes, in pages.  */
static void statm(long *size, long *resident)
{
  char buf[128];
  int fd = open("/proc/self/statm", O_RDONLY);
  CHECK(fd >= 0, fd);
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  CHECK(n > 0, n);
  buf[n] = 0;
  CHECK(sscanf(buf, "%ld %ld", size, resident) == 2, 0);
}

static void start_and_join(int n)
{
  for (int i = 0; i < n; i++) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread, NULL) == 0, i);
    CHECK(pthread_join(t, NULL) == 0, i);
  }
}

int main(void)
{
  long size0, rss0, size1, rss1, page = sysconf(_SC_PAGESIZE), mib = (1 << 20) / page;
  CHECK(gorc_install_crash_handler() == 0, 0);
  rt_on_signal(SIGUSR1, on_usr1, SA_ONSTACK);
  start_and_join(WARMUP);
  statm(&size0, &rss0);
  start_and_join(THREADS);
  statm(&size1, &rss1);
  printf("threads with libgorc's altstack: %d of %d; size %+ld KiB, resident %+ld KiB\n",
         with_altstack, WARMUP + THREADS, (size1 - size0) * page / 1024,
         (rss1 - rss0) * page / 1024);
  CHECK(with_altstack == WARMUP + THREADS, with_altstack);
  CHECK(size1 - size0 <= mib, (size1 - size0) * page / 1024);
  CHECK(rss1 - rss0 <= mib, (rss1 - rss0) * page / 1024);
  return 0;
}
