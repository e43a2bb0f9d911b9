/* -fno-dwarf2-cfi-asm: GCC writes .eh_frame itself instead of .cfi_*
   directives; the records must agree all the same.  */
/* { dg-do run } */
/* { dg-options "-O2 -fno-dwarf2-cfi-asm" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

/* noipa: no IPA register allocation, so callers save what they keep.  */
__attribute__((noipa)) long
ext (long x)
{
  __asm__ volatile ("" : "+r" (x));
  return x;
}

__attribute__((noinline, noclone)) long
f (long a, long b)
{
  char *p = __builtin_alloca (a);
  p[0] = 1;
  __asm__ volatile ("" : : "r" (p) : "memory");
  return ext (a) + ext (b) + p[0];
}

int
main (void)
{
  if (f (10, 20) != 31)
    abort ();
  return 0;
}
