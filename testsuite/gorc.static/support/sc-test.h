/* Helpers for the static-call tests: report and exit non-zero.  */
#ifndef SC_TEST_H
#define SC_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <gorc/static_call.h>
#include <gorc/static_call_desc.h> /* GORC_SC_TRAMP_PREFIX */

#define FAIL(msg, v)                                                        \
  do {                                                                      \
    fprintf (stderr, "%s:%d: %s (%ld)\n", __FILE__, __LINE__, msg, (long) (v)); \
    exit (1);                                                               \
  } while (0)
#define CHECK(cond, v)                                                      \
  do {                                                                      \
    if (!(cond))                                                            \
      FAIL ("check failed: " #cond, v);                                     \
  } while (0)
#define NOIPA __attribute__ ((noipa))

#ifdef GORC_STATIC_CALL_PLUGIN
#define SC_PATCHED 0 /* gorc_static_call_update's result with the rewrite */
#endif
#endif
