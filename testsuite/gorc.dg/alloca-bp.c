/* alloca forces a frame pointer: the CFA is rbp+16 in the body.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {cfa=bp\+16\y} } } */
/* { dg-final { scan-gorc-dump {cfa=sp\+16 +bp=\[cfa-16\]} } } */

extern void abort (void);

__attribute__((noinline, noclone)) void
fill (char *p, int n)
{
  for (int i = 0; i < n; i++)
    p[i] = (char) i;
}

__attribute__((noinline, noclone)) int
with_alloca (int n)
{
  char *p = __builtin_alloca (n);
  fill (p, n);
  return p[n - 1];
}

__attribute__((noinline, noclone)) int
with_vla (int n)
{
  char v[n];
  fill (v, n);
  return v[n - 1];
}

int
main (void)
{
  if (with_alloca (50) != 49 || with_vla (20) != 19)
    abort ();
  return 0;
}
