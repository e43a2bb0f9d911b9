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

/* The same with K nop bytes in front of the loop (not realigned, so the
   nops move it): one of the eight puts the call where its rel32 can be
   patched in place (libgorc patches a site only if its rel32 lies in one
   aligned 8-byte word).  */
#define SITE_LOOP(k)							\
  __attribute__ ((noipa, optimize ("align-loops=1"))) long		\
  NAME (static_loop_##k) (long n)					\
  {									\
    long acc = 0;							\
    __asm__ volatile (".skip 8 + " #k ", 0x90");			\
    for (long i = 0; i < n; i++)					\
      acc += bench_static_ptr ((int) i);				\
    return acc;								\
  }
SITE_LOOP (0) SITE_LOOP (1) SITE_LOOP (2) SITE_LOOP (3)
SITE_LOOP (4) SITE_LOOP (5) SITE_LOOP (6) SITE_LOOP (7)

/* Their direct-call twins, same layout: the reference for each.  */
#define DIRECT_LOOP(k)							\
  __attribute__ ((noipa, optimize ("align-loops=1"))) long		\
  NAME (direct_loop_##k) (long n)					\
  {									\
    long acc = 0;							\
    __asm__ volatile (".skip 8 + " #k ", 0x90");			\
    for (long i = 0; i < n; i++)					\
      acc += bench_target ((int) i);					\
    return acc;								\
  }
DIRECT_LOOP (0) DIRECT_LOOP (1) DIRECT_LOOP (2) DIRECT_LOOP (3)
DIRECT_LOOP (4) DIRECT_LOOP (5) DIRECT_LOOP (6) DIRECT_LOOP (7)
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
