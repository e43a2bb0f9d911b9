// gorc-prof test: C++ names must come out demangled.
#include <cstdio>
#include <vector>

namespace dropin {
struct Worker {
  std::vector<double> v;
  __attribute__((noinline)) double spin(int n);
};

double Worker::spin(int n)
{
  double s = 0;
  for (int r = 0; r < n; r++)
    for (double &x : v) {
      x = x * 1.0000001 + 0.5;
      s += x;
      __asm__ volatile("" ::: "memory");
    }
  return s;
}
}

int main()
{
  dropin::Worker w;
  w.v.assign(10000, 1.0);
  double s = w.spin(6000);
  std::printf("prof-cxx: %d\n", s > 0);
  return 0;
}
