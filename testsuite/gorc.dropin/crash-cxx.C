// Crash traces of a C++ program: names demangled (libstdc++ is loaded).
#include <gorc.h>
#include <iostream>

namespace app {
struct Parser {
  int *p = nullptr;
  __attribute__((noinline)) int parse(int depth);
};
int Parser::parse(int depth)
{
  if (depth == 0)
    return *p;
  return parse(depth - 1) + 1;
}
}

int main()
{
  gorc_install_crash_handler();
  app::Parser ps;
  std::cout << ps.parse(3) << std::endl;
  return 0;
}
