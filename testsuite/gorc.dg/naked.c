/* A naked function: no prologue or epilogue from GCC, its asm body is
   opaque to both the CFI and the records (CFA stays sp+8).  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((naked, noinline)) long
naked_add1 (long x)
{
  __asm__ ("lea 1(%rdi), %rax\n\tret");
}

int
main (void)
{
  if (naked_add1 (41) != 42)
    abort ();
  return 0;
}
