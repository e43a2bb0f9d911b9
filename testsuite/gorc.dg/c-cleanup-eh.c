/* C with -fexceptions: __attribute__((cleanup)) variables around calls
   that may throw give landing pads (code reached only by the unwinder)
   and an LSDA.  */
/* { dg-do run } */
/* { dg-options "-O2 -fexceptions" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

static int cleaned;

__attribute__((noinline, noclone)) void
done (int *p)
{
  cleaned += *p;
}

__attribute__((noinline, noclone)) void
may_throw (int x)
{
  __asm__ volatile ("" : : "r" (x) : "memory");
}

__attribute__((noinline, noclone)) int
guarded (int n)
{
  int a __attribute__((cleanup (done))) = n;
  may_throw (n);
  {
    int b __attribute__((cleanup (done))) = 2 * n;
    may_throw (b);
  }
  return a;
}

int
main (void)
{
  if (guarded (5) != 5 || cleaned != 15)
    abort ();
  return 0;
}
