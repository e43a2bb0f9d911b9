// Main program for g++.dg/shared-lib.C.
#include <stdexcept>
#include <cstdlib>

long lib_throw (long);

int
main ()
{
  if (lib_throw (1) != 2)
    std::abort ();
  try
    {
      lib_throw (10);
      std::abort ();
    }
  catch (const std::out_of_range &)
    {
    }
  return 0;
}
