/* Many functions in one unit, some hot, some cold, some static: the
   records of every one must be there and the ranges sorted.  The
   functions of one section share ranges (runs), each run of at most 64
   entries: 200 functions with hot and cold parts need more than two.  */
/* { dg-do run } */
/* { dg-options "-O2" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump-times {^  \S+ fn[0-9]+\+0x0 +cfa=sp\+8 } 200 } } */
/* { dg-final { scan-gorc-dump-times {^  \S+ fn[0-9]+\.cold\+0x0 +cfa=[^(]*$} 200 } } */
/* Runs split: ranges start at later functions too, hot and cold.  */
/* { dg-final { scan-gorc-dump {^range \S+ fn(1[1-9]|2[0-9])[0-9] } } } */
/* { dg-final { scan-gorc-dump {^range \S+ fn(1[1-9]|2[0-9])[0-9]\.cold } } } */

extern void abort (void);

#define F(n)                                                    \
  __attribute__((noinline, noclone)) long fn##n (long x)        \
  {                                                             \
    volatile char b[(n % 7) * 100 + 1];                         \
    b[0] = (char) x;                                            \
    if (__builtin_expect (x < 0, 0))                            \
      abort ();                                                 \
    return b[0] + n;                                            \
  }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
F100 (1)
F100 (2)

int
main (void)
{
  if (fn100 (1) + fn299 (2) != 101 + 301)
    abort ();
  return 0;
}
