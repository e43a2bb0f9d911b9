// C++20 coroutines: GCC splits a coroutine into a ramp function and
// actor/destroy functions (foo.actor, foo.destroy) with a heap frame.
// { dg-do run }
// { dg-options "-O2 -std=c++20 -fcoroutines" }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }
// { dg-final { scan-gorc-dump {\.actor\y} } }

#include <coroutine>
#include <cstdlib>

struct gen
{
  struct promise_type
  {
    int value = 0;
    gen get_return_object ()
    {
      return gen { std::coroutine_handle<promise_type>::from_promise (*this) };
    }
    std::suspend_always initial_suspend () noexcept { return {}; }
    std::suspend_always final_suspend () noexcept { return {}; }
    std::suspend_always yield_value (int v) { value = v; return {}; }
    void return_void () {}
    void unhandled_exception () { std::abort (); }
  };
  std::coroutine_handle<promise_type> h;
  ~gen () { if (h) h.destroy (); }
  bool next () { h.resume (); return !h.done (); }
  int value () const { return h.promise ().value; }
};

__attribute__((noinline)) gen
counter (int n)
{
  for (int i = 0; i < n; i++)
    co_yield i * i;
}

int
main ()
{
  gen g = counter (5);
  int sum = 0;
  while (g.next ())
    sum += g.value ();
  if (sum != 0 + 1 + 4 + 9 + 16)
    std::abort ();
  return 0;
}
