/* Over-aligned locals: stack realignment through the frame pointer, and
   through a dynamic realignment argument pointer (DRAP, r10) when the
   function also uses alloca or has stack arguments.  After a DRAP
   epilogue restored rbp, the records say rbp=same, not GCC's "saved at
   [rbp+0]" (drap-epilogue.c has more such epilogues).  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump-not {cfa=sp\+8 +bp=\[bp[-+]} } } */

extern void abort (void);

__attribute__((noinline, noclone)) void
use (void *p)
{
  if (((unsigned long) p & 31) != 0)
    abort ();
  __asm__ volatile ("" : : "r" (p) : "memory");
}

__attribute__((noinline, noclone)) int
fp_realign (int n)
{
  int x[8] __attribute__((aligned (32)));
  x[0] = n;
  use (x);
  return x[0];
}

__attribute__((noinline, noclone)) int
drap_alloca (int n)
{
  int x[8] __attribute__((aligned (32)));
  char *p = __builtin_alloca (n);
  x[0] = n;
  p[0] = 1;
  use (x);
  __asm__ volatile ("" : : "r" (p) : "memory");
  return x[0] + p[0];
}

__attribute__((noinline, noclone)) int
drap_stack_args (int a1, int a2, int a3, int a4, int a5, int a6, int a7,
                 int a8)
{
  int x[8] __attribute__((aligned (32)));
  char *p = __builtin_alloca (a8);
  x[0] = a7;
  x[1] = a8;
  use (x);
  __asm__ volatile ("" : : "r" (p) : "memory");
  return x[0] + x[1] + a1 + a2 + a3 + a4 + a5 + a6;
}

int
main (void)
{
  if (fp_realign (3) != 3)
    abort ();
  if (drap_alloca (16) != 17)
    abort ();
  if (drap_stack_args (1, 2, 3, 4, 5, 6, 7, 8) != 36)
    abort ();
  return 0;
}
