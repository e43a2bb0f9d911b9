/* A -fPIC shared library: the records must need no dynamic relocations
   (PC-relative only), the table must be read-only, the note reachable
   through PT_NOTE; a program linked against it runs.  */
/* { dg-do link } */
/* { dg-options "-O2 -fPIC -shared" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { gorc-sections-ok } } */
/* { dg-final { gorc-run-with-library support/shared-main.c } } */

__attribute__((noinline)) long
lib_leaf (long x)
{
  __asm__ volatile ("" : "+r" (x));
  return x * 3;
}

long lib_counter;

long
lib_entry (long n)
{
  volatile char buf[5000];
  buf[n] = (char) n;
  lib_counter += n;
  return lib_leaf (n) + buf[n];
}

static long
lib_static (long n)
{
  return lib_leaf (n) + 1;
}

long (*lib_fp) (long) = lib_static;
