/* One range covers the functions of one code section (a run); between two
   of them a gap entry says "no records".  Here a toplevel asm function
   without CFI sits in .text between C functions (-fno-toplevel-reorder
   keeps the source order): the gap before it must cover it, never the
   state of the function before, gorc-check must agree (the asm has no
   CFI: its bytes are nothing on both sides) and the C functions share
   one range.  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-toplevel-reorder" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* The gap runs from the end of before to the start of after, over
   asm_between: no entry of its own.  */
/* { dg-final { scan-gorc-dump {^  \S+ before\+0x[0-9a-f]+ +gap: no records\n  \S+ after\+0x0 } } } */
/* { dg-final { scan-gorc-dump-not {asm_between} } } */
/* { dg-final { scan-gorc-dump {^range \S+ before \(\.text\)$} } } */
/* { dg-final { scan-gorc-dump-not {^range \S+ (after|last) } } } */
/* { dg-final { scan-gorc-dump {^  \S+ after\+0x0 +cfa=sp\+8 +bp=same$} } } */

extern void abort (void);

__attribute__((noinline, noclone)) long
before (long x)
{
  volatile char b[40];
  b[x & 31] = (char) x;
  return b[1] + x;
}

/* 20 bytes of code without CFI that keeps 16 bytes on the stack.  */
__asm__ (".text\n\t"
         ".p2align 4\n\t"
         ".globl asm_between\n\t"
         ".type asm_between, @function\n"
         "asm_between:\n\t"
         "push %rbx\n\t"
         "push %rbp\n\t"
         "lea 1(%rdi), %rax\n\t"
         ".skip 8, 0x90\n\t"
         "pop %rbp\n\t"
         "pop %rbx\n\t"
         "ret\n\t"
         ".size asm_between, .-asm_between");
long asm_between (long);

__attribute__((noinline, noclone)) long
after (long x)
{
  return before (x) * 3 + asm_between (x);
}

__attribute__((noinline, noclone)) long
last (long x)
{
  volatile char b[300];
  b[x & 255] = (char) x;
  return after (b[2]) + 1;
}

int
main (void)
{
  if (asm_between (4) != 5 || last (0) != 0 * 3 + 1 + 1)
    abort ();
  return 0;
}
