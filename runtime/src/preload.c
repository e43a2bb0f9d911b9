/* libgorc-preload.so: LD_PRELOAD it and existing calls to glibc's
   backtrace(3) walk the stack with gorc.

   backtrace() here keeps glibc's contract: BUFFER[0] is the return address
   into backtrace's caller, at most SIZE entries, and it never fails (it
   returns what it found).  When gorc finds nothing past the caller (a
   stack it cannot walk at all), it falls back to glibc's own backtrace,
   looked up once at load time, never from the unwind path.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include "gorc.h"
#include "internal.h"

typedef int (*backtrace_fn)(void **, int);
static backtrace_fn glibc_backtrace;

__attribute__((constructor)) static void preload_init(void)
{
  glibc_backtrace = (backtrace_fn)dlsym(RTLD_NEXT, "backtrace");
}

__attribute__((visibility("default"), noinline)) int backtrace(void **buffer, int size)
{
  struct gorc_cursor c;
  int n = 0;

  if (size <= 0 || !buffer)
    return 0;
  /* The cursor starts in this function; its first step reaches the caller.  */
  if (gorc_cursor_init(&c) == 0)
    while (n < size && gorc_cursor_step(&c) == 1)
      buffer[n++] = (void *)c.ip;
  if (n == 0 && glibc_backtrace)
    return glibc_backtrace(buffer, size);
  return n;
}
