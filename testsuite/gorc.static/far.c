/* A target out of rel32 range (code mapped far from the program): the
   trampoline becomes `jmp *var(%rip)` and still reaches it; back in range
   it is a `jmp rel32` again.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "support/sc-test.h"

NOIPA static int near_fn (void) { return 1; }
int (*far_op) (void) GORC_STATIC_CALL = near_fn;
extern unsigned char far_tramp[] __asm__ (GORC_SC_TRAMP_PREFIX "far_op")
  __attribute__ ((visibility ("hidden")));
NOIPA static int call_far_op (void) { return far_op (); }

int
main (void)
{
  /* mov $42, %eax; ret  -- at least 4 GiB away from the trampoline.  */
  static const unsigned char code[] = { 0xb8, 42, 0, 0, 0, 0xc3 };
  uintptr_t here = (uintptr_t) far_tramp;
  void *p = MAP_FAILED;
  for (uintptr_t d = (uintptr_t) 1 << 33; p == MAP_FAILED && d <= (uintptr_t) 1 << 44; d <<= 1)
    {
      uintptr_t want = here > d + ((uintptr_t) 1 << 32) ? here - d : here + d;
      want &= ~(uintptr_t) 0xfff;
      p = mmap ((void *) want, 4096, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    }
  CHECK (p != MAP_FAILED, 0);
  int64_t dist = (int64_t) ((uintptr_t) p - here);
  CHECK (dist > INT32_MAX || dist < INT32_MIN, dist);
  memcpy (p, code, sizeof code);
  CHECK (mprotect (p, 4096, PROT_READ | PROT_EXEC) == 0, 0);

  CHECK (call_far_op () == 1, 0);
  CHECK (far_tramp[0] == 0xe9, far_tramp[0]);
  CHECK (gorc_static_call_update (far_op, (int (*) (void)) p) == 0, 0);
  CHECK (far_tramp[0] == 0xff && far_tramp[1] == 0x25, far_tramp[0]);
  CHECK (call_far_op () == 42, call_far_op ());
  CHECK (gorc_static_call_update (far_op, near_fn) == 0, 0);
  CHECK (far_tramp[0] == 0xe9, far_tramp[0]);
  CHECK (call_far_op () == 1, 0);
  return 0;
}
/* { dg-final { gorc-static-direct call_far_op } } */
