/* Calls with more than six integer arguments (pushed arguments: at -O0
   and -Os GCC pushes them, changing the CFA offset between the pushes and
   the call), and a struct passed by value on the stack.  */
/* { dg-do run } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern void abort (void);

struct big { long a, b, c, d; };

__attribute__((noinline, noclone)) long
sum10 (long a, long b, long c, long d, long e, long f, long g, long h,
       long i, long j)
{
  return a + b + c + d + e + f + g * 2 + h * 3 + i * 4 + j * 5;
}

__attribute__((noinline, noclone)) long
take_struct (int x, struct big s, long y)
{
  return x + s.a + s.b + s.c + s.d + y;
}

__attribute__((noinline, noclone)) long
caller (long x)
{
  struct big s = { x, x + 1, x + 2, x + 3 };
  long r = sum10 (x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7,
                  x + 8, x + 9);
  r += sum10 (r, 1, 2, 3, 4, 5, r, 7, r, 9);
  return r + take_struct (1, s, r);
}

int
main (void)
{
  long r = sum10 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  if (r != 0 + 1 + 2 + 3 + 4 + 5 + 12 + 21 + 32 + 45)
    abort ();
  if (caller (1) <= 0)
    abort ();
  return 0;
}
