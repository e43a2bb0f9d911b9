/* The call loops, built twice: plain -O2 (direct, indirect) and with
   -mindirect-branch=thunk and the static-call rewrite (direct, retpoline,
   gorc static call), function names suffixed by LOOP_SUFFIX.  */
#include <gorc/static_call.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2 (a, b)
#define NAME(n) CAT (n, LOOP_SUFFIX)

int bench_target (int);
extern int (*bench_plain_ptr) (int);

#ifdef WITH_STATIC_CALL
/* Defined here: this unit emits its trampoline.  */
int (*bench_static_ptr) (int) GORC_STATIC_CALL = bench_target;

__attribute__ ((noipa)) long
NAME (static_loop) (long n)
{
  long acc = 0;
  for (long i = 0; i < n; i++)
    acc += bench_static_ptr ((int) i);
  return acc;
}
#endif

__attribute__ ((noipa)) long
NAME (direct_loop) (long n)
{
  long acc = 0;
  for (long i = 0; i < n; i++)
    acc += bench_target ((int) i);
  return acc;
}

/* bench_plain_ptr is a global another unit could change at any call:
   loaded again before every call, as in real code.  */
__attribute__ ((noipa)) long
NAME (indirect_loop) (long n)
{
  long acc = 0;
  for (long i = 0; i < n; i++)
    acc += bench_plain_ptr ((int) i);
  return acc;
}
