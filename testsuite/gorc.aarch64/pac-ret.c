/* Signed return addresses (-mbranch-protection=standard: paciasp in the
   prologue, autiasp before each return, DW_CFA_GNU_window_save in the
   CFI): the records say where x30 and its saved copy are signed, also in
   a shrink-wrapped function with several epilogues and in the cold
   partition.  gorc-check compares the rest with libdw and the signed flag
   with the code.  */
/* { dg-do run } */
/* { dg-options "-O2 -mbranch-protection=standard -freorder-blocks-and-partition" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {ra=x30 signed} } } */
/* { dg-final { scan-gorc-dump {ra=\[cfa-[0-9]+\] signed} } } */
/* { dg-final { scan-gorc-dump {cfa=sp\+0 +fp=same ra=x30$} } } */

extern void abort (void);

__attribute__((noipa)) long
ext (long x)
{
  __asm__ volatile ("" : "+r" (x));
  return x;
}

/* Shrink-wrapped: the fast path returns before paciasp.  */
__attribute__((noinline, noclone)) long
wrapped (long a, long b)
{
  if (a == 0)
    return b;
  long t = ext (a) + ext (b);
  if (t > 100)
    return t - ext (t);
  return ext (t * 2) + a;
}

__attribute__((noinline, noclone)) long
with_cold (long a)
{
  long r = ext (a);
  if (__builtin_expect (r < 0, 0)) {
    r = ext (-r) + ext (r * 3);
    if (r == 7)
      abort ();
  }
  return r + 1;
}

int
main (void)
{
  if (wrapped (0, 5) != 5 || wrapped (60, 50) != 0 || wrapped (1, 2) != 7)
    abort ();
  if (with_cold (4) != 5 || with_cold (-2) != 2 + -6 + 1)
    abort ();
  return 0;
}
