/* A module the C library loads itself: iconv_open ("IBM037", ...) makes
   glibc dlopen gconv/IBM037.so through its internal path.  libgorc has no
   registry to keep current: the walk finds the module when it meets it.
   One iconv call is single-stepped (support/rt-step.h), and at every
   instruction the SIGTRAP handler walks the interrupted context with
   gorc_backtrace_ucontext and with nongnu libunwind: the two traces must
   be equal, to the outermost frame, at every step -- from the very first
   step inside IBM037.so, with no rescan or gorc_backtrace before.  */
/* { dg-do run } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */
/* { dg-gorc-runtime static } */

#define _GNU_SOURCE
#include <iconv.h>
#include <link.h>
#include <stdio.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "support/rt-step.h"
#include "support/rt-trace.h"

#define MAX 128

static struct rt_range module;   /* IBM037.so's code */
static long in_module;
static iconv_t cd;

static int
is_in_module (uintptr_t a)
{
  return a >= module.lo && a < module.hi;
}

static void
on_step (ucontext_t *uc)
{
  void *ours[MAX], *theirs[MAX];
  int rc;
  if (rt_ucontext_walks_differ (uc, ours, theirs, MAX, &rc, "a step", is_in_module, "(IBM037)"))
    FAIL ("a walk differs from libunwind's, in IBM037.so", is_in_module ((uintptr_t) ours[0]));
  in_module += is_in_module ((uintptr_t) uc->uc_mcontext.gregs[REG_RIP]);
}

static int
find_module (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (!info->dlpi_name || !strstr (info->dlpi_name, "/IBM037.so"))
    return 0;
  module = rt_code_range (info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
  return 1;
}

static char text[256];
static char out[256];

static void
convert (void *arg)
{
  (void) arg;
  char *in = text, *o = out;
  size_t inleft = sizeof text, outleft = sizeof out;
  CHECK (iconv (cd, &in, &inleft, &o, &outleft) != (size_t) -1, inleft);
}

int
main (void)
{
  /* libunwind's caches would allocate in the handler.  */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  for (size_t i = 0; i < sizeof text; i++)
    text[i] = (char) ('A' + i % 26);
  cd = iconv_open ("IBM037", "ISO-8859-1");
  if (cd == (iconv_t) -1) {
    printf ("no IBM037 conversion: nothing to test\n");
    return 0;
  }
  dl_iterate_phdr (find_module, NULL);
  CHECK (module.hi > module.lo, 0);
  long steps = rt_step_run (convert, NULL, on_step);
  printf ("modules-gconv: %ld steps, %ld in IBM037.so, every walk equal to libunwind's\n",
          steps, in_module);
  CHECK (out[0] == (char) 0xc1, out[0]);   /* 'A' in EBCDIC */
  CHECK (in_module > 0, in_module);
  iconv_close (cd);
  return 0;
}
