/* OpenMP: GCC outlines the parallel region into main._omp_fn.0, a
   function with no source-level declaration.  */
/* { dg-do run } */
/* { dg-options "-O2 -fopenmp" } */
/* { dg-final { gorc-check } } */
/* { dg-final { gorc-code-identical } } */
/* { dg-final { scan-gorc-dump {_omp_fn\.[0-9]+ } } } */

extern void abort (void);

__attribute__((noinline, noclone)) long
work (int n)
{
  long sum = 0;
#pragma omp parallel for reduction(+:sum) num_threads(2)
  for (int i = 0; i < n; i++)
    sum += i;
  return sum;
}

int
main (void)
{
  if (work (100) != 4950)
    abort ();
  return 0;
}
