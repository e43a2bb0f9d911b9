/* libgorc on aarch64: x30 holds a return address only in the innermost
   frame and in a frame a signal interrupted.  bad_frame (assembly) keeps
   its return address in x19 across a call and its .eh_frame says
   nothing of x30 (so: "still in x30"); met as an outer frame, that rule
   must end the walk with GORC_EUNDEFINED after the frames before it,
   never use whatever x30 holds (libgcc's unwinder does).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <stdio.h>
#include "oracle.h"

#define NIPS 64

void bad_frame (void (*fn) (void));
__asm__ (".text\n\t"
	 ".globl bad_frame\n\t"
	 ".globl bad_frame_ret\n\t"
	 ".hidden bad_frame_ret\n\t"
	 ".type bad_frame, %function\n\t"
	 ".p2align 2\n"
	 "bad_frame:\n\t"
	 ".cfi_startproc\n\t"
	 "hint 34\n\t"			/* bti c */
	 "stp x19, x20, [sp, #-16]!\n\t"
	 ".cfi_def_cfa_offset 16\n\t"
	 ".cfi_offset x19, -16\n\t"
	 ".cfi_offset x20, -8\n\t"
	 "mov x19, x30\n\t"
	 "blr x0\n"
	 "bad_frame_ret:\n\t"
	 "mov x30, x19\n\t"
	 "ldp x19, x20, [sp], #16\n\t"
	 ".cfi_def_cfa_offset 0\n\t"
	 ".cfi_restore x19\n\t"
	 ".cfi_restore x20\n\t"
	 "ret\n\t"
	 ".cfi_endproc\n\t"
	 ".size bad_frame, .-bad_frame\n\t");
extern char bad_frame_ret[] __attribute__((visibility("hidden")));

static void *ips[NIPS];
static volatile int called;

__attribute__((noinline, noclone)) static void
capture (void)
{
  int rc = gorc_backtrace (ips, NIPS);
  if (rc != -GORC_EUNDEFINED)
    {
      fprintf (stderr, "gorc_backtrace: %d (%s) after %d frames\n", rc,
	       rc < 0 ? gorc_strerror (rc) : "no error", gorc_backtrace_count ());
      FAIL ("not GORC_EUNDEFINED", rc);
    }
  /* capture, then bad_frame's return address: the walk stops there.  */
  CHECK (gorc_backtrace_count () == 2, gorc_backtrace_count ());
  CHECK (ips[1] == (void *) bad_frame_ret, 1);

  struct gorc_cursor c;
  CHECK (gorc_cursor_init (&c) == 0, 0);
  CHECK (gorc_cursor_step (&c) == 1, 1);	/* into bad_frame */
  CHECK ((void *) c.ip == (void *) bad_frame_ret, 2);
  int s = gorc_cursor_step (&c);
  CHECK (s == -GORC_EUNDEFINED, s);
  called = 1;
}

int
main (void)
{
  bad_frame (capture);
  CHECK (called, 0);
  return 0;
}
