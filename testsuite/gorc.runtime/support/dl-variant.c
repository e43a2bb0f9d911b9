/* Built twice with the plugin (-O2 -fPIC) by cache-unload.c's
   dg-additional-options line: -DVARIANT=0 as libgorc-variant0.so,
   -DVARIANT=1 as libgorc-variant1.so.  The two have the same code layout
   (every function at the same offset, every instruction the same length:
   the frame sizes below all fit a sign-extended 8-bit immediate) but
   different frames: each function's local array, so its CFA offset at
   every return address, differs between the variants.  A walk that uses
   one variant's states for the other goes wrong at the first frame.

   dl_variant_work (cb, arg) calls v1 -> v2 -> v3 -> v4, and v4 calls
   CB (ARG).  */

#ifndef VARIANT
#error "build with -DVARIANT=0 or 1"
#endif

#define SIZE(a, b) (VARIANT ? (b) : (a))

typedef int (*dl_callback) (void *arg);

#define LEVEL(name, next, a, b)                                              \
  __attribute__((noinline, noclone)) static int name (dl_callback cb,       \
                                                      void *arg)         \
  {                                                                          \
    volatile char frame[SIZE (a, b)];                                        \
    frame[0] = 1;                                                            \
    int r = next;                                                            \
    __asm__ volatile ("" ::: "memory");  /* not a tail call */               \
    return r + frame[0];                                                     \
  }

LEVEL (dl_variant_v4, cb (arg), 8, 88)
LEVEL (dl_variant_v3, dl_variant_v4 (cb, arg), 72, 24)
LEVEL (dl_variant_v2, dl_variant_v3 (cb, arg), 40, 104)
LEVEL (dl_variant_v1, dl_variant_v2 (cb, arg), 96, 56)

int
dl_variant_work (dl_callback cb, void *arg)
{
  int r = dl_variant_v1 (cb, arg);
  __asm__ volatile ("" ::: "memory");
  return r;
}
