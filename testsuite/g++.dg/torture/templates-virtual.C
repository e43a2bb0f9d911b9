// Templates, virtual calls, lambdas and std::function: many small
// functions, thunks for multiple inheritance, comdat instantiations.
// { dg-do run }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }

#include <functional>
#include <vector>
#include <cstdlib>

struct base
{
  virtual ~base () {}
  virtual long f (long x) const = 0;
};

struct other
{
  virtual ~other () {}
  virtual long g (long x) const { return x; }
};

template <int K>
struct derived : base, other
{
  long f (long x) const override { return x * K; }
  long g (long x) const override { return x + K; }
};

template <typename T>
__attribute__((noinline)) T
accumulate (const std::vector<T> &v, std::function<T (T, T)> op, T init)
{
  for (const T &x : v)
    init = op (init, x);
  return init;
}

__attribute__((noinline)) long
call_all (const std::vector<base *> &v, long x)
{
  long s = 0;
  for (base *b : v)
    s += b->f (x);
  return s;
}

__attribute__((noinline)) long
call_other (other *o, long x)
{
  return o->g (x);
}

int
main ()
{
  std::vector<base *> v { new derived<2>, new derived<3>, new derived<5> };
  if (call_all (v, 10) != 100)
    std::abort ();
  if (call_other (static_cast<derived<3> *> (v[1]), 1) != 4)
    std::abort ();
  int captured = 7;
  auto lam = [&captured] (long a, long b) { return a + b * captured; };
  std::vector<long> nums { 1, 2, 3 };
  if (accumulate<long> (nums, lam, 0) != 42)
    std::abort ();
  std::vector<double> d { 0.5, 1.5 };
  if (accumulate<double> (d, [] (double a, double b) { return a + b; }, 1.0) != 3.0)
    std::abort ();
  for (base *b : v)
    delete b;
  return 0;
}
