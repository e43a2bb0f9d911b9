/* A position-independent executable: no dynamic relocations against
   gorc_unwind, no text relocations, the note in a PT_NOTE segment.  */
/* { dg-do run } */
/* { dg-options "-O2 -fPIE -pie" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-sections-ok } } */

extern void abort (void);

__attribute__((noinline)) int
f (int x)
{
  __asm__ volatile ("" : "+r" (x));
  return x + 1;
}

int
main (void)
{
  if (f (1) != 2)
    abort ();
  return 0;
}
