/* A handler on the alternate signal stack walks a context on the thread's
   stack, through the signal frame of an outer handler (issue 15, a).
   main raises SIGUSR1, whose handler runs on the thread's stack and
   raises SIGUSR2, whose handler (SA_ONSTACK) walks its interrupted
   context: raise, the outer handler, __restore_rt, the frame that raised
   SIGUSR1, main.  The walk starts in probe mode (the walking code is on
   the altstack), so where each part lies in its page matters: the frame
   before SIGUSR1 is moved down by alloca 16 bytes at a time over a whole
   page, and the outer handler's frame by a few sizes too, so the
   interrupted stack pointers take every 16-byte offset in their pages.
   Every walk must equal libunwind's, to the outermost frame.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-additional-options "-Wl,--no-as-needed -lunwind" } */

#define _GNU_SOURCE
#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include "support/rt-trace.h"

#define MAX 64
/* Bytes the outer handler's frame is moved down by, besides the page of
   offsets below SIGUSR1.  */
static const unsigned inner_pads[] = { 0, 1024, 2048, 3072 };

static volatile unsigned inner_pad;
static volatile int walks, unwound_through;
volatile char sink;

static void
on_usr2 (int sig, siginfo_t *si, void *uc)
{
  void *ours[MAX], *theirs[MAX];
  int rc;
  (void) sig;
  (void) si;
  if (rt_ucontext_walks_differ (uc, ours, theirs, MAX, &rc, "SIGUSR2 on the altstack", NULL, NULL))
    FAIL ("a walk through the outer signal frame differs from libunwind's", walks);
  for (int i = 0; i < rc; i++)
    if (rt_is_restore_rt (ours[i]))
      unwound_through++;
  walks++;
}

static void
on_usr1 (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) si;
  (void) uc;
  char *pad = alloca (inner_pad + 16);
  pad[0] = 1;
  raise (SIGUSR2);
  sink = pad[0];
}

__attribute__((noinline, noclone)) static void
raise_below (unsigned bytes)
{
  char *pad = alloca (bytes + 16);
  pad[0] = 1;
  raise (SIGUSR1);
  sink = pad[0];
}

int
main (void)
{
  stack_t ss = { .ss_sp = malloc (65536), .ss_size = 65536, .ss_flags = 0 };
  CHECK (ss.ss_sp && sigaltstack (&ss, NULL) == 0, 0);
  rt_on_signal (SIGUSR1, on_usr1, 0);
  rt_on_signal (SIGUSR2, on_usr2, SA_ONSTACK);
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_NONE);
  int n = 0;
  for (unsigned p = 0; p < sizeof inner_pads / sizeof inner_pads[0]; p++)
    for (unsigned off = 0; off < 4096; off += 16) {
      inner_pad = inner_pads[p];
      raise_below (off);
      n++;
    }
  CHECK (walks == n, walks);
  CHECK (unwound_through == n, unwound_through);
  printf ("%d walks through the outer signal frame equal libunwind's\n", n);
  return 0;
}
