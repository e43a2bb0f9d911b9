/* libgorc: the extent of the calling thread's stack, as the kernel maps
   it, for the crash handler (stack.h).  The walk's own bounds
   (bounds.c) are what it can know without a system call: the main
   thread's RLIMIT_STACK below __libc_stack_end, another thread's stack
   from its sp up to its thread pointer.  After a stack overflow the
   interrupted sp lies below the mapped stack, in the guard area, and
   those bounds start nowhere; /proc/self/maps says where the stack is
   mapped, growth included.  Async-signal-safe: open and read into a
   buffer on the stack, no allocation.  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "stack.h"

extern void *__libc_stack_end;

/* The kernel keeps other mappings this far below a stack that grows
   down (stack_guard_gap, 256 pages by default): the main thread's guard
   area.  */
#define MAIN_GUARD_GAP (256 * 4096)

struct maps_reader {
  int fd;
  size_t len, pos;
  char buf[2048];
};

/* The next character of /proc/self/maps, -1 at its end.  */
static int maps_char(struct maps_reader *r)
{
  if (r->pos == r->len) {
    ssize_t got;
    do
      got = read(r->fd, r->buf, sizeof r->buf);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
      return -1;
    r->len = (size_t)got;
    r->pos = 0;
  }
  return (unsigned char)r->buf[r->pos++];
}

/* A hexadecimal number ended by END; -1 when there is none.  */
static int maps_hex(struct maps_reader *r, int end, uint64_t *v)
{
  int c, digits = 0;
  *v = 0;
  while ((c = maps_char(r)) != end) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0 || digits++ == 16)
      return -1;
    *v = *v << 4 | (uint64_t)d;
  }
  return digits ? 0 : -1;
}

/* One line's mapping: [start, end), readable and writable or not at
   all.  Returns 1, 0 at the end (or a line it cannot read).  */
struct mapping {
  uint64_t start, end;
  int rw, none;
};

static int maps_next(struct maps_reader *r, struct mapping *m)
{
  char perms[4];
  int c;
  if (maps_hex(r, '-', &m->start) || maps_hex(r, ' ', &m->end))
    return 0;
  for (int i = 0; i < 4; i++)
    if ((c = maps_char(r)) < 0)
      return 0;
    else
      perms[i] = (char)c;
  while ((c = maps_char(r)) != '\n')
    if (c < 0)
      return 0;
  m->rw = perms[0] == 'r' && perms[1] == 'w';
  m->none = perms[0] == '-' && perms[1] == '-' && perms[2] == '-';
  return 1;
}

/* The stack mapping that holds ANCHOR, and its guard area: the
   PROT_NONE mapping right below it (a thread's guard pages), else, for
   the main thread (MAIN), the kernel's gap up to the mapping below.  */
static int stack_holding(uint64_t anchor, int main, struct gorc_rt_stack *s)
{
  struct maps_reader r;
  struct mapping m, prev = { 0, 0, 0, 0 };
  int found = 0;
  do
    r.fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  while (r.fd < 0 && errno == EINTR);
  if (r.fd < 0)
    return -1;
  r.len = r.pos = 0;
  while (maps_next(&r, &m)) {
    if (anchor >= m.start && anchor < m.end) {
      found = m.rw;
      s->lo = m.start;
      s->hi = m.end;
      if (prev.none && prev.end == m.start)
        s->guard_lo = prev.start;
      else if (main)
        s->guard_lo = m.start - prev.end > MAIN_GUARD_GAP ? m.start - MAIN_GUARD_GAP : prev.end;
      else
        s->guard_lo = m.start;
      break;
    }
    prev = m;
  }
  close(r.fd);
  return found ? 0 : -1;
}

int gorc_rt_stack_of_thread(struct gorc_rt_stack *s)
{
  int saved_errno = errno;   /* the interrupted code's */
  int main = syscall(SYS_gettid) == getpid();
  uint64_t anchor = main ? (uint64_t)(uintptr_t)__libc_stack_end
                         : (uint64_t)(uintptr_t)__builtin_thread_pointer();
  int rc = anchor ? stack_holding(anchor, main, s) : -1;
  errno = saved_errno;
  return rc;
}
