/* -mstackrealign with an incoming stack boundary of 8 bytes: every
   function that needs 16-byte alignment (or more) realigns its frame,
   main included.  aligned32 uses DRAP: after its epilogue restored rbp
   the records say rbp=same, not GCC's "saved at [rbp+0]".  */
/* { dg-do run } */
/* { dg-options "-O2 -mstackrealign -mincoming-stack-boundary=3" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump-not {cfa=sp\+8 +bp=\[bp[-+]} } } */

extern void abort (void);

__attribute__((noinline, noclone)) void
use (void *p)
{
  if (((unsigned long) p & 15) != 0)
    abort ();
  __asm__ volatile ("" : : "r" (p) : "memory");
}

__attribute__((noinline, noclone)) int
aligned16 (int x)
{
  int v[4] __attribute__((aligned (16))) = { x, x, x, x };
  use (v);
  return v[0] + v[3];
}

__attribute__((noinline, noclone)) int
aligned32 (int x, int n)
{
  int v[8] __attribute__((aligned (32))) = { x };
  char *p = __builtin_alloca (n);
  use (v);
  __asm__ volatile ("" : : "r" (p) : "memory");
  return v[0];
}

int
main (void)
{
  if (aligned16 (2) != 4 || aligned32 (3, 10) != 3)
    abort ();
  return 0;
}
