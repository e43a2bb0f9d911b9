/* ld -r: the partially linked object keeps every record.  ld -r merges
   the gorc_unwind_index pieces of .text, .text.startup and
   .text.unlikely into one piece, so in the final link the index is no
   longer sorted by address (docs/FORMAT.md: readers detect it and scan).
   Both the partial object and the final link must still agree with
   .eh_frame.  */
/* { dg-do link } */
/* { dg-options "-O2" } */
/* { dg-additional-sources "support/partial-b.c" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { gorc-partial-link } } */

extern void abort (void);
extern long b_func (long);
extern long b_big (int);

__attribute__((noinline)) long
a_func (long x)
{
  return b_func (x) + 1;
}

int
main (void)
{
  if (a_func (2) != 2 * 5 + 1 || b_big (3) != 3)
    abort ();
  return 0;
}
