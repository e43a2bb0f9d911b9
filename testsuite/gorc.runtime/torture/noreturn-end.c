/* A function whose last instruction is a call to a noreturn function:
   its return address is the first byte of the NEXT function, whose state
   is different.  The unwinder must look up ip - 1 for call frames, or the
   walk goes wrong right there.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <stdlib.h>
#include "../support/rt-test.h"

static void *expected[4];
volatile int sink;

__attribute__((noreturn, noinline, noclone)) static void
stop (void)
{
  void *ips[16];
  /* ips[0] is in stop itself; ips[1] must be the return address after
     ends_in_noreturn's last call.  */
  expected[0] = __builtin_return_address (0);
  gorc_backtrace (ips, 16);
  rt_check_chain (ips, gorc_backtrace_count (), 1, expected, 4);
  _exit (0);
}

/* Ends with `call stop` and no epilogue: a frame of its own (the
   buffer), so the return address it pushes points past its end.  */
__attribute__((noinline, noclone)) static void
ends_in_noreturn (int x)
{
  volatile char buf[64];
  buf[x & 63] = (char) x;
  sink = buf[(x + 1) & 63];
  expected[1] = __builtin_return_address (0);
  stop ();
}

/* Right after ends_in_noreturn in the object: a different frame shape.  */
__attribute__((noinline, noclone)) void
next_function (int *p)
{
  volatile char big[512];
  big[*p & 511] = 1;
  sink = big[0];
}

__attribute__((noinline, noclone)) static void
middle (int x)
{
  expected[2] = __builtin_return_address (0);
  ends_in_noreturn (x);
  sink = x; /* not reached */
}

__attribute__((noinline, noclone)) static void
outer (int x)
{
  expected[3] = __builtin_return_address (0);
  middle (x);
  sink = x;
}

int
main (int argc, char **argv)
{
  (void) argv;
  int v = argc;
  next_function (&v);
  outer (argc);
  return 1; /* not reached: stop exits */
}
