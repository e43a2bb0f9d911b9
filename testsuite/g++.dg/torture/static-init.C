// Static initializers (_GLOBAL__sub_I in .text.startup), function-local
// statics with guard variables, and static destructors run at exit.
// { dg-do run }
// { dg-final { gorc-check } }
// { dg-final { gorc-code-identical } }

#include <cstdlib>
#include <string>

__attribute__((noinline)) int
compute (int x)
{
  asm volatile ("" : "+r" (x));
  return x * 2;
}

struct registry
{
  std::string name;
  int value;
  registry (const char *n, int v) : name (n), value (compute (v)) {}
  ~registry () { value = 0; }
};

registry r1 ("one", 1);
registry r2 ("two", 2);
int plain = compute (21);

__attribute__((noinline)) registry &
instance ()
{
  static registry r ("local", 50);
  return r;
}

int
main ()
{
  if (r1.value != 2 || r2.value != 4 || plain != 42)
    std::abort ();
  if (instance ().value != 100 || &instance () != &instance ())
    std::abort ();
  return 0;
}
