/* -fsplit-stack: every function starts with a stack-limit check that
   calls __morestack (code before the prologue, and a second copy of the
   frame setup).  __morestack and its helpers come from libgcc.a, built
   without the plugin (.eh_frame but no records), so gorc-check looks at
   the object.  */
/* { dg-do run } */
/* { dg-options "-O2 -fsplit-stack" } */
/* { dg-final { gorc-check objects } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

__attribute__((noinline, noclone)) int
deep (int n)
{
  volatile char buf[2000];
  buf[0] = (char) n;
  if (n == 0)
    return buf[0];
  return deep (n - 1) + 1;
}

int
main (void)
{
  if (deep (2000) != 2000)
    abort ();
  return 0;
}
