/* Unwinding through static calls.  A backtrace taken in a target called
   through a trampoline goes straight from the target to the caller (the
   trampoline jumped, so it is no frame) and on into main.  And a context
   stopped on the trampoline's instruction itself (rip = trampoline, as a
   signal could catch it) unwinds with the trampoline's records: the
   return address at sp, cfa = sp + 8.  The same for the return-0 stub.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#define _GNU_SOURCE
#include <string.h>
#include <ucontext.h>
#include <gorc.h>
#include "support/sc-test.h"

static void *ips[64];
static int nips;
static void *target_ra;		/* the target's return address (in caller) */
static void *caller_ra;		/* the caller's return address (in main) */

NOIPA static int target (int x)
{
  nips = gorc_backtrace (ips, 64);
  target_ra = __builtin_return_address (0);
  return x + 1;
}
NOIPA static int other (int x) { return x; }
int (*bt_op) (int) GORC_STATIC_CALL = target;
void (*bt_nothing) (void) GORC_STATIC_CALL;

NOIPA static int caller (int x)
{
  caller_ra = __builtin_return_address (0);
  int r = bt_op (x);
  return r * 2;		/* not a tail call: caller stays on the stack */
}

/* The trampolines (hidden, in this module; global variables' trampolines
   are named after them alone).  */
extern char tramp_op[] __asm__ (GORC_SC_TRAMP_PREFIX "bt_op")
  __attribute__ ((visibility ("hidden")));
extern char tramp_nothing[] __asm__ (GORC_SC_TRAMP_PREFIX "bt_nothing")
  __attribute__ ((visibility ("hidden")));

static void
check_stopped_at (unsigned long ip)
{
  ucontext_t uc;
  unsigned long stack[4];
  CHECK (getcontext (&uc) == 0, 0);
  stack[0] = (unsigned long) caller_ra;	/* a return address in main */
  uc.uc_mcontext.gregs[REG_RIP] = ip;
  uc.uc_mcontext.gregs[REG_RSP] = (unsigned long) &stack[0];
  struct gorc_cursor c;
  int r = gorc_cursor_init_ucontext (&c, &uc);
  CHECK (r == 0, r);
  CHECK (c.ip == ip, 0);
  r = gorc_cursor_step (&c);
  CHECK (r == 1, r);
  CHECK (c.ip == (unsigned long) caller_ra, 0);
  CHECK (c.sp == (unsigned long) &stack[1], (long) (c.sp - (unsigned long) &stack[0]));
}

int
main (void)
{
  CHECK (caller (1) == 4, 0);
  CHECK (nips >= 3, nips);
  /* ips[0]: in target; ips[1]: in caller (no trampoline frame); ips[2]:
     in main.  */
  CHECK (ips[1] == target_ra, 1);
  CHECK (ips[2] == caller_ra, 2);

  /* Again after an update (to NULL and back).  */
  CHECK (gorc_static_call_update (bt_op, other) == 0, 0);
  CHECK (caller (1) == 2, 0);
  CHECK (gorc_static_call_update (bt_op, target) == 0, 0);
  nips = 0;
  CHECK (caller (5) == 12, 0);
  CHECK (nips >= 3 && ips[1] == target_ra && ips[2] == caller_ra, nips);

  /* Stopped on the trampoline and on the return-0 stub.  */
  unsigned char *t = (unsigned char *) tramp_op;
  CHECK (t[0] == 0xe9, t[0]);
  check_stopped_at ((unsigned long) t);
  gorc_static_call_update (bt_nothing, NULL);
  unsigned char *n = (unsigned char *) tramp_nothing;
  CHECK (n[0] == 0xe9, n[0]);
  unsigned char *stub = n + 5 + (long) (int) (n[1] | n[2] << 8 | n[3] << 16 | (unsigned) n[4] << 24);
  CHECK (stub[0] == 0x31 && stub[1] == 0xc0 && stub[2] == 0xc3, stub[0]);
  check_stopped_at ((unsigned long) stub);
  check_stopped_at ((unsigned long) stub + 2);	/* on the ret */
  return 0;
}
/* { dg-final { gorc-static-direct caller } } */
/* { dg-final { gorc-static-check } } */
