/* gorc tools: files mapped for reading, arrays (see mapped.h).  */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mapped.h"

/* The files mapped now, for the SIGBUS handler (which only reads the
   list: it changes in normal context, and SIGBUS is raised by a read of a
   mapping, never while the list changes).  */
struct mapped {
  uintptr_t lo, hi;
  char *path;
  struct mapped *next;
};

static struct mapped *mapped_files;

static void say(const char *s)
{
  (void)!write(2, s, strlen(s));
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
  uintptr_t a = (uintptr_t)si->si_addr;
  (void)sig, (void)uc;
  for (const struct mapped *m = mapped_files; m; m = m->next)
    if (a >= m->lo && a < m->hi) {
      say(program_invocation_short_name);
      say(": ");
      say(m->path);
      say(": the file shrank while it was being read (changed on disk?)\n");
      _exit(2);
    }
  /* Not one of ours: the default action, as if no handler were here.  */
  signal(SIGBUS, SIG_DFL);
  raise(SIGBUS);
}

static void watch_sigbus(void)
{
  static int installed;
  struct sigaction sa;
  if (installed)
    return;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  installed = sigaction(SIGBUS, &sa, NULL) == 0;
}

void *gorc_map_file(int fd, size_t len, int writable, int flags, const char *path)
{
  struct mapped *m = malloc(sizeof *m);
  char *name = strdup(path);
  if (!m || !name) {
    free(m);
    free(name);
    errno = ENOMEM;
    return MAP_FAILED;
  }
  void *addr = mmap(NULL, len, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                    MAP_PRIVATE | flags, fd, 0);
  if (addr == MAP_FAILED) {
    int e = errno;
    free(m);
    free(name);
    errno = e;
    return MAP_FAILED;
  }
  watch_sigbus();
  m->lo = (uintptr_t)addr;
  m->hi = (uintptr_t)addr + len;
  m->path = name;
  m->next = mapped_files;
  mapped_files = m;
  return addr;
}

void gorc_unmap_file(void *addr, size_t len)
{
  for (struct mapped **p = &mapped_files; *p; p = &(*p)->next)
    if ((*p)->lo == (uintptr_t)addr) {
      struct mapped *m = *p;
      *p = m->next;
      free(m->path);
      free(m);
      break;
    }
  munmap(addr, len);
}

void *gorc_alloc_huge(size_t n)
{
  void *p;
  if (posix_memalign(&p, GORC_HUGE_PAGE, n ? n : 1) != 0)
    return NULL;
  madvise(p, n, MADV_HUGEPAGE);   /* a hint: without it, small pages */
  return p;
}

void *gorc_alloc_array(size_t bytes, size_t small)
{
  return bytes < small ? malloc(bytes) : gorc_alloc_huge(gorc_huge_round(bytes));
}

void *gorc_grow_array(void *v, size_t *cap, size_t min, size_t size, size_t first,
                      size_t huge)
{
  size_t n = *cap;
  if (min <= n)
    return v;
  for (n = n ? n : first ? first : 1; n < min; n *= 2)
    if (n > SIZE_MAX / 2 / size)
      return NULL;
  size_t bytes = n * size;
  if (bytes <= huge) {
    void *grown = realloc(v, bytes ? bytes : 1);
    if (grown)
      *cap = n;
    return grown;
  }
  bytes = gorc_huge_round(bytes);
  void *grown = gorc_alloc_huge(bytes);
  if (!grown)
    return NULL;
  if (*cap)
    memcpy(grown, v, *cap * size);
  free(v);
  *cap = bytes / size;
  return grown;
}
