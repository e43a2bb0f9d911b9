/* Stack realignment with a DRAP register: an over-aligned local plus
   alloca.  GCC's CFI goes cfa=r10+0 after "lea 8(%rsp),%r10", then
   cfa=[rbp-8] (DW_CFA_def_cfa_expression) once r10 is saved.  After the
   epilogue's leave restored rbp, GCC's CFI still says "rbp saved at
   [rbp+0]"; the records say rbp=same (docs/FORMAT.md, "Where gorc's
   records differ from GCC's CFI"), so no state reads rbp through rbp at
   the ret.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {cfa=r10\+0\y} } } */
/* { dg-final { scan-gorc-dump {cfa=\[bp-8\]} } } */
/* { dg-final { scan-gorc-dump-not {cfa=sp\+8 +bp=\[bp[-+]} } } */

extern void abort (void);

__attribute__((noinline, noclone)) void
use (void *p)
{
  *(int *) p = 0;
  __asm__ volatile ("" : : "r" (p) : "memory");
}

__attribute__((noinline, noclone)) int
drap (int n)
{
  int x[8] __attribute__((aligned (32)));
  char *p = __builtin_alloca (n);
  x[0] = n;
  use (x);
  use (p);
  return x[0];
}

int
main (void)
{
  if (drap (40) != 0)
    abort ();
  return 0;
}
