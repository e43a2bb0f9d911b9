/* -flto: the records are made by the LTO link-time compilation (lto1),
   so the plugin must be (and is, by the harness) on the link line too.
   Two translation units, cross-module inlining possible.  */
/* { dg-do run } */
/* { dg-options "-O2 -flto" } */
/* { dg-additional-sources "support/partial-b.c" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { gorc-sections-ok } } */
/* { dg-final { scan-gorc-dump {\yb_big\y} } } */

extern void abort (void);
extern long b_func (long);
extern long b_big (int);

int
main (void)
{
  if (b_func (2) != 10 || b_big (3) != 3)
    abort ();
  return 0;
}
