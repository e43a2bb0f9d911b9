/* Calls through GORC_STATIC_CALL variables become trampoline calls (no
   indirect call or retpoline thunk left at the sites), the results follow
   gorc_static_call_update (also with call sites patched in place), a
   NULL target returns 0, and the same source
   works without the rewrite (plain pointers) and without the plugin (the
   header's fallback).  */
/* { dg-do run } */
/* { dg-gorc-static run } */

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../support/sc-test.h"

NOIPA static uint32_t fnv_hash (const void *p, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ ((const unsigned char *) p)[i]) * 16777619u;
  return h;
}
NOIPA static uint32_t sum_hash (const void *p, size_t n)
{
  uint32_t h = 0;
  for (size_t i = 0; i < n; i++)
    h += ((const unsigned char *) p)[i];
  return h;
}
NOIPA long add6 (long a, long b, long c, long d, long e, long f)
{
  return a + b + c + d + e + f;
}
NOIPA long mul6 (long a, long b, long c, long d, long e, long f)
{
  return a * b * c * d * e * f;
}
static int events;
NOIPA static void count_event (int n) { events += n; }
NOIPA static void count_twice (int n) { events += 2 * n; }
NOIPA static double half (double x) { return x / 2; }
NOIPA static double twice (double x) { return x * 2; }

/* Global, static, NULL-initialised, a local static, a double.  */
uint32_t (*hash_fn) (const void *, size_t) GORC_STATIC_CALL = fnv_hash;
static long (*op6) (long, long, long, long, long, long) GORC_STATIC_CALL = add6;
static void (*on_event) (int) GORC_STATIC_CALL;
static double (*scale) (double) GORC_STATIC_CALL = half;

NOIPA uint32_t call_hash (const char *s) { return hash_fn (s, strlen (s)); }
NOIPA long call_op6 (long x) { return (*op6) (x, 2, 3, 4, 5, 6); }
NOIPA void call_event (int n) { on_event (n); }
NOIPA double call_scale (double x) { return scale (x); }
NOIPA int call_local (int x)
{
  static int (*inc) (int) GORC_STATIC_CALL;
  if (x < 0)
    return -1;
  return inc ? inc (x) : -2;
}
/* The control: an unmarked pointer stays an indirect call (a retpoline
   thunk call under -mindirect-branch=thunk).  */
uint32_t (*volatile plain_fn) (const void *, size_t) = fnv_hash;
NOIPA uint32_t call_plain (const char *s) { return plain_fn (s, strlen (s)) + 1; }
/* Tail position: the sibling call becomes a jmp to the trampoline.  */
NOIPA uint32_t tail_hash (const void *p, size_t n) { return hash_fn (p, n); }

int
main (void)
{
  CHECK (call_hash ("abc") == fnv_hash ("abc", 3), 0);
  CHECK (tail_hash ("abc", 3) == fnv_hash ("abc", 3), 0);
  CHECK (call_op6 (1) == 21, call_op6 (1));
  CHECK (call_scale (8.0) == 4.0, 0);
  CHECK (call_local (5) == -2, 0);
  CHECK (call_plain ("abc") == fnv_hash ("abc", 3) + 1, 0);

  /* 0: a trampoline was patched; GORC_SC_NOT_PATCHED: built without the
     rewrite (gorc-static-run-plain, -DEXPECT_PLAIN), only the pointer
     changed.  */
  int r = gorc_static_call_update (hash_fn, sum_hash);
  int patched = r == 0;
#ifdef EXPECT_PLAIN
  CHECK (r == GORC_SC_NOT_PATCHED, r);
#else
  CHECK (r == 0, r);
#endif
  if (patched)
    {
      call_event (3);         /* NULL target: nothing happens */
      CHECK (events == 0, events);
    }
  CHECK (hash_fn == sum_hash, 0);
  CHECK (call_hash ("abc") == 'a' + 'b' + 'c', call_hash ("abc"));
  CHECK (tail_hash ("abc", 3) == 'a' + 'b' + 'c', 0);

  /* From here on, call sites are patched in place too (where they can
     be): every result must stay the same.  */
  gorc_static_call_patch_sites (1);
  r = gorc_static_call_update (op6, mul6);
  CHECK (r >= 0, r);
  CHECK (call_op6 (1) == 720, call_op6 (1));
  r = gorc_static_call_update (on_event, count_event);
  CHECK (r >= 0, r);
  call_event (3);
  CHECK (events == 3, events);
  gorc_static_call_update (on_event, count_twice);
  call_event (3);
  CHECK (events == 9, events);
  gorc_static_call_update (scale, twice);
  CHECK (call_scale (8.0) == 16.0, 0);

  /* Back to NULL: void returns, an integer result is 0 (with the
     rewrite; the plain pointer is tested before calling).  */
  gorc_static_call_update (on_event, NULL);
  CHECK (on_event == NULL, 0);
  if (patched)
    {
      call_event (100);
      CHECK (events == 9, events);
      gorc_static_call_update (hash_fn, NULL);
      CHECK (call_hash ("abc") == 0, call_hash ("abc"));
    }
  gorc_static_call_update (hash_fn, fnv_hash);
  CHECK (call_hash ("abc") == fnv_hash ("abc", 3), 0);

  /* Many updates in a row end in the last one.  */
  for (int i = 0; i < 1000; i++)
    gorc_static_call_update (op6, (i & 1) ? add6 : mul6);
  CHECK (call_op6 (1) == 21, call_op6 (1));
  gorc_static_call_patch_sites (0);
  gorc_static_call_update (op6, mul6);
  CHECK (call_op6 (1) == 720, call_op6 (1));
  return 0;
}

/* { dg-final { gorc-static-direct call_hash tail_hash call_op6 call_event call_scale call_local } } */
/* { dg-final { gorc-static-indirect call_plain } } */
/* { dg-final { gorc-static-sections } } */
/* { dg-final { gorc-static-check } } */
/* { dg-final { gorc-static-run-plain noplugin } } */
/* { dg-final { gorc-static-run-plain nooption } } */
