/* drap-step.c's realigned DRAP frames, single-stepped the same way, but
   built without the plugin: the walk takes their .eh_frame, GCC's CFI,
   which says "the caller's rbp is saved at [rbp+0]" also after the
   epilogue restored rbp.  At the instructions after that restore libgorc
   takes rbp as restored (a save slot lies in its frame: the stale rule
   points outside it), so the trace is the known chain here too, where
   libunwind and glibc's backtrace lose a frame.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */
/* { dg-gorc-no-plugin "the .eh_frame of the stepped functions is what is tested" } */
/* { dg-skip-if "no .eh_frame to walk" { target *-*-* } { "-fno-asynchronous-unwind-tables" } } */

#include "drap-step.c"
