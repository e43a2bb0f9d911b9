/* A library with a lot of code, built with the plugin (-O2 -fPIC) by the
   dg-additional-options line of the tests that load it, next to
   libgorc-dltest.so: dlclose-memory.c dlopens and dlcloses it in a loop
   (as libgorc-dlmany.so), modules-dlopen.c loads it and copies of it in
   both namespaces (as libgorc-dlmany64k.so), modules-reload.c loads two
   builds of it at one address (libgorc-dlpadA.so, libgorc-dlpadB.so).

   64 small functions and a function with DL_MANY_PAD bytes of nops in its
   body (default 4 MiB).

   dl_many_work (depth, cb, arg) recurses DEPTH + 1 levels through
   different functions of the library and calls CB (ARG) at the bottom.
   dl_many_call (fn, ips, max) calls FN (IPS, MAX) from the library (FN is
   gorc_backtrace: its caller is then library code).  dl_many_spin (n)
   burns time in library code only.  */

#ifndef DL_MANY_PAD
#define DL_MANY_PAD 4194304
#endif
#define STR(x) #x
#define XSTR(x) STR (x)

typedef int (*dl_callback) (void *arg);
typedef int (*dl_level_fn) (int depth, dl_callback cb, void *arg);

/* The recursion calls this hidden twin of dl_many_work, not through the
   PLT: a sample in a PLT stub is not what the tests are about.  */
__attribute__((visibility ("hidden"))) int many_work (int depth, dl_callback cb, void *arg);

#define CAT(a, b) a##b
#define XCAT(a, b) CAT (a, b)
/* One function and its slot in section dl_many_tab.  */
#define DEF1(name, k)                                                         \
  __attribute__((noinline, noclone)) static int                               \
  name (int depth, dl_callback cb, void *arg)                                 \
  {                                                                           \
    volatile long frame[4 + (k) % 5];                                         \
    frame[depth & 3] = depth * (k);                                           \
    int r = depth <= 0 ? cb (arg) : many_work (depth - 1, cb, arg);           \
    return r + (int) (frame[depth & 3] & 1);                                  \
  }                                                                           \
  static const dl_level_fn XCAT (name, _slot)                                 \
    __attribute__((section ("dl_many_tab"), used)) = name;
#define DEF2(k) DEF1 (XCAT (dl_many_f, k), k)
#define D1 DEF2 (__COUNTER__)
#define D4 D1 D1 D1 D1
#define D16 D4 D4 D4 D4
#define D64 D16 D16 D16 D16

D64

/* Never called: code that makes the module's text DL_MANY_PAD bytes
   bigger, between the functions above and below.  */
__attribute__((noinline, noclone)) void
dl_many_pad (void)
{
  __asm__ volatile (".skip " XSTR (DL_MANY_PAD) ", 0x90");
}

extern const dl_level_fn __start_dl_many_tab[] __attribute__((visibility ("hidden")));
extern const dl_level_fn __stop_dl_many_tab[] __attribute__((visibility ("hidden")));

int
dl_many_count (void)
{
  return (int) (__stop_dl_many_tab - __start_dl_many_tab);
}

static unsigned next_fn;

int
many_work (int depth, dl_callback cb, void *arg)
{
  unsigned n = (unsigned) (__stop_dl_many_tab - __start_dl_many_tab);
  unsigned i = next_fn++ % n;
  return __start_dl_many_tab[i] (depth, cb, arg) + 1;
}

int
dl_many_work (int depth, dl_callback cb, void *arg)
{
  int r = many_work (depth, cb, arg);
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
  return r;
}

__attribute__((noinline, noclone)) int
dl_many_call (int (*fn) (void **, int), void **ips, int max)
{
  int rc = fn (ips, max);
  __asm__ volatile ("" ::: "memory");   /* not a tail call */
  return rc;
}

volatile unsigned long dl_many_sink;

__attribute__((noinline, noclone)) void
dl_many_spin (unsigned long n)
{
  for (unsigned long i = 0; i < n; i++)
    dl_many_sink += i ^ (dl_many_sink >> 3);
}
