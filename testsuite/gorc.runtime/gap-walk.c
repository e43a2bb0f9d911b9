/* Walks from code in a gap: one range covers the functions of .text
   (a run), and the bytes between two of them are "no records"
   (gorc_state_is_gap), not the state of the function before.  With
   -fno-toplevel-reorder the two assembly functions below sit in .text
   between C functions, inside such a gap:
     - gap_noinfo_call has no CFI: a walk stops there with -GORC_ENORECORD
       (as outside every range), the addresses before it stored;
     - gap_cfi_call has .eh_frame CFI: libgorc falls back to it and the
       walk goes on to main.
   Were the gap read as the previous function's state (or as "undefined"),
   the first walk would end with another error or a wrong frame, the second
   with -GORC_EUNDEFINED.  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-toplevel-reorder" } */
/* { dg-gorc-runtime static } */

#include "support/rt-test.h"

static void *ips[64];
static int rc_noinfo, n_noinfo, rc_cfi, n_cfi;

__attribute__((noinline, noclone)) static int
walker (void **out, int max)
{
  int rc = gorc_backtrace (out, max);
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
  return rc;
}

/* A C function before the assembly, so that the gap starts at its end.  */
__attribute__((noinline, noclone)) int
before_gap (int x)
{
  volatile char b[64];
  b[x & 63] = (char) x;
  return b[1] + x;
}

/* gap_noinfo_call (out, max, fn) and gap_cfi_call (out, max, fn) return
   fn (out, max); 16 bytes kept on the stack around the call.  */
__asm__ (".text\n\t"
         ".p2align 4\n\t"
         ".globl gap_noinfo_call\n\t"
         ".type gap_noinfo_call, @function\n"
         "gap_noinfo_call:\n\t"
         "push %rbx\n\t"
         "push %rbp\n\t"
         "sub $8, %rsp\n\t"
         "call *%rdx\n\t"
         "add $8, %rsp\n\t"
         "pop %rbp\n\t"
         "pop %rbx\n\t"
         "ret\n\t"
         ".size gap_noinfo_call, .-gap_noinfo_call\n\t"
         ".p2align 4\n\t"
         ".globl gap_cfi_call\n\t"
         ".type gap_cfi_call, @function\n"
         "gap_cfi_call:\n\t"
         ".cfi_startproc\n\t"
         "push %rbx\n\t"
         ".cfi_adjust_cfa_offset 8\n\t"
         "sub $16, %rsp\n\t"
         ".cfi_adjust_cfa_offset 16\n\t"
         "call *%rdx\n\t"
         "add $16, %rsp\n\t"
         ".cfi_adjust_cfa_offset -16\n\t"
         "pop %rbx\n\t"
         ".cfi_adjust_cfa_offset -8\n\t"
         "ret\n\t"
         ".cfi_endproc\n\t"
         ".size gap_cfi_call, .-gap_cfi_call");
int gap_noinfo_call (void **out, int max, int (*fn) (void **, int));
int gap_cfi_call (void **out, int max, int (*fn) (void **, int));

static int
in_fn (void *a, void *fn, int len)
{
  return (char *) a > (char *) fn && (char *) a < (char *) fn + len;
}

__attribute__((noinline, noclone)) int
after_gap (int x)
{
  rc_noinfo = gap_noinfo_call (ips, 64, walker);
  n_noinfo = gorc_backtrace_count ();
  CHECK (rc_noinfo == -GORC_ENORECORD, rc_noinfo);
  CHECK (n_noinfo == 2 && in_fn (ips[1], (void *) gap_noinfo_call, 16), n_noinfo);

  rc_cfi = gap_cfi_call (ips, 64, walker);
  n_cfi = gorc_backtrace_count ();
  CHECK (rc_cfi >= 0, rc_cfi);
  /* walker, gap_cfi_call, after_gap, main, ...  */
  CHECK (n_cfi >= 4 && in_fn (ips[1], (void *) gap_cfi_call, 16), n_cfi);
  CHECK (in_fn (ips[2], (void *) after_gap, 256), 2);
  return before_gap (x);
}

int
main (void)
{
  if (after_gap (3) != 3)
    return 1;
  return 0;
}
