/* libgorc on aarch64: the crash handler.  A child installs it and
   faults three calls deep (in a leaf whose return address is still in
   x30); the trace it prints on stderr must name the faulting function
   as frame #0 and its callers down to main, and the child must then die
   by SIGSEGV as without the handler.  Twice: on the install's
   alternate stack, and on a small one of the program's own set after
   the install, from which the handler moves to its print stack (the
   port's GORC_RT_CALL_ON_STACK).  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "oracle.h"

volatile int *volatile null_ptr;
volatile int sink;

__attribute__((noinline, noclone)) void
crash_leaf (int n)
{
  *null_ptr = n;
}

__attribute__((noinline, noclone)) void
crash_mid (int n)
{
  crash_leaf (n + 1);
  sink++;			/* no tail call */
}

__attribute__((noinline, noclone)) void
crash_top (int n)
{
  crash_mid (n + 1);
  sink++;
}

/* The line of OUT that holds NAME, or NULL.  */
static const char *
frame_of (const char *out, const char *name)
{
  const char *p = strstr (out, name);
  while (p && (p == out || (p[-1] != ' ' && p[-1] != '(')))
    p = strstr (p + 1, name);
  return p;
}

/* Run the crash in a child, OWN_ALTSTACK: on an alternate stack of its
   own.  */
static void
crash_child (int own_altstack)
{
  static char out[16384];
  static char small_altstack[16384] __attribute__((aligned (16)));
  int fds[2];
  CHECK (pipe (fds) == 0, 0);
  pid_t pid = fork ();
  CHECK (pid >= 0, pid);
  if (pid == 0)
    {
      dup2 (fds[1], 2);
      close (fds[0]);
      CHECK (gorc_install_crash_handler () == 0, 0);
      if (own_altstack)
	{
	  stack_t ss = { .ss_sp = small_altstack, .ss_size = sizeof small_altstack };
	  CHECK (sigaltstack (&ss, NULL) == 0, 0);
	}
      crash_top (1);
      _exit (0);
    }
  close (fds[1]);
  size_t n = 0;
  ssize_t got;
  while (n < sizeof out - 1 && (got = read (fds[0], out + n, sizeof out - 1 - n)) > 0)
    n += (size_t) got;
  out[n] = 0;
  int status;
  CHECK (waitpid (pid, &status, 0) == pid, 0);
  fputs (out, stdout);
  CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGSEGV, status);
  CHECK (strstr (out, "gorc: SIGSEGV") != NULL, 0);
  const char *f0 = strstr (out, "#0 ");
  CHECK (f0 != NULL, 0);
  const char *leaf = frame_of (out, "crash_leaf");
  const char *mid = frame_of (out, "crash_mid");
  const char *top = frame_of (out, "crash_top");
  const char *m = frame_of (out, "main");
  CHECK (leaf && mid && top && m, 0);
  CHECK (f0 < leaf && leaf < strstr (out, "#1 "), 1);
  CHECK (leaf < mid && mid < top && top < m, 2);
  CHECK (strstr (out, "the walk stopped") == NULL, 3);
}

int
main (void)
{
  crash_child (0);
  crash_child (1);
  return 0;
}
