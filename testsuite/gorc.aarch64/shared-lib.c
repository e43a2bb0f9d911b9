/* A -fPIC shared library with signed return addresses: the records of a
   linked .so, every byte agreeing with its .eh_frame.  */
/* { dg-do link } */
/* { dg-options "-O2 -fPIC -shared -mbranch-protection=standard" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */

extern long ext (long);

long
lib_sum (long *v, int n)
{
  long s = 0;
  for (int i = 0; i < n; i++)
    s += ext (v[i]);
  return s;
}

long
lib_frame (int n)
{
  char buf[n];
  __builtin_memset (buf, 1, n);
  return ext (buf[n - 1]) + lib_sum ((long *) buf, n / 8);
}
