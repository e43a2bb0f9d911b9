/* Walks that meet code without unwind information inside a known module:
   noinfo_call below is assembly without CFI, so neither the program's
   gorc records nor its .eh_frame cover it, though it lies inside the
   program's code (between ranges that are covered).  Real code like
   that: crtstuff's __do_global_dtors_aux, frame_dummy,
   deregister_tm_clones have no .eh_frame, and a walk interrupting a
   library's destructors (dlclose) has __do_global_dtors_aux among its
   callers (modules-handler.c meets it).  The walk must stop there with
   -GORC_ENORECORD, the addresses before it stored:
     1. gorc_backtrace called directly from noinfo_call: count 1;
     2. called from a C function that noinfo_call calls: count 2;
     3. gorc_cursor_init / gorc_cursor_step from that C function: one
        step, then -GORC_ENORECORD.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include "support/rt-test.h"

/* noinfo_call (ips, max, fn) returns fn (ips, max), called from the middle
   of 257 bytes without unwind information.  */
__asm__ (".text\n\t"
         ".p2align 6\n\t"
         ".globl noinfo_call\n\t"
         ".type noinfo_call, @function\n"
         "noinfo_call:\n\t"
         "push %rbx\n\t"
         ".skip 128, 0x90\n\t"
         "call *%rdx\n\t"
         ".skip 128, 0x90\n\t"
         "pop %rbx\n\t"
         "ret\n\t"
         ".size noinfo_call, .-noinfo_call\n\t"
         ".p2align 4");
int noinfo_call (void **ips, int max, int (*fn) (void **, int));

__attribute__((noinline, noclone)) static int
c_walker (void **ips, int max)
{
  int rc = gorc_backtrace (ips, max);
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
  return rc;
}

static void *cursor_ips[4];

__attribute__((noinline, noclone)) static int
c_cursor (void **ips, int max)
{
  struct gorc_cursor c;
  int rc = gorc_cursor_init (&c), n = 0;
  (void) ips;
  (void) max;
  if (rc == 0) {
    cursor_ips[n++] = (void *) c.ip;
    while (n < 4 && (rc = gorc_cursor_step (&c)) == 1)
      cursor_ips[n++] = (void *) c.ip;
  }
  __asm__ volatile ("" ::: "memory");
  return rc == 1 ? -100 - n : rc;
}

static int
in_noinfo (void *a)
{
  return (char *) a > (char *) noinfo_call && (char *) a < (char *) noinfo_call + 261;
}

int
main (void)
{
  void *ips[64];

  /* 1 */
  int rc = noinfo_call (ips, 64, gorc_backtrace);
  int n = gorc_backtrace_count ();
  CHECK (rc == -GORC_ENORECORD, rc);
  CHECK (n == 1 && in_noinfo (ips[0]), n);

  /* 2 */
  rc = noinfo_call (ips, 64, c_walker);
  n = gorc_backtrace_count ();
  CHECK (rc == -GORC_ENORECORD, rc);
  CHECK (n == 2 && in_noinfo (ips[1]), n);

  /* 3 */
  rc = noinfo_call (ips, 64, c_cursor);
  CHECK (rc == -GORC_ENORECORD, rc);
  CHECK (in_noinfo (cursor_ips[1]), 0);
  return 0;
}
