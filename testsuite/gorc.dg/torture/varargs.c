/* Variadic functions: the register save area in the prologue
   (movaps %xmm0..7 guarded by a test of al), va_arg over stack arguments,
   and passing a va_list on.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

#include <stdarg.h>

extern void abort (void);

__attribute__((noinline, noclone)) long
vsum (int n, va_list ap)
{
  long s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg (ap, long);
  return s;
}

__attribute__((noinline, noclone)) long
sum (int n, ...)
{
  va_list ap;
  va_start (ap, n);
  long s = vsum (n, ap);
  va_end (ap);
  return s;
}

__attribute__((noinline, noclone)) double
dsum (int n, ...)
{
  va_list ap;
  double s = 0;
  va_start (ap, n);
  for (int i = 0; i < n; i++)
    s += va_arg (ap, double);
  va_end (ap);
  return s;
}

int
main (void)
{
  if (sum (10, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L) != 55)
    abort ();
  if (dsum (9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0) != 45.0)
    abort ();
  return 0;
}
