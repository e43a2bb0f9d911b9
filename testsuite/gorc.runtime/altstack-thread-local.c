/* altstack.c with the alternate signal stack a local array of a frame of
   each thread (the main thread and a second one), so inside the thread's
   own stack, above the frames a signal interrupts.  The thread has walked
   from halfway down before, so libgorc knows its stack from there up and
   takes a walk on the altstack for one on the thread's stack (no system
   call); the walk must still cross the signal frame down to the
   interrupted frames, which lie below anything walked before.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define ALTSTACK_IN_THREAD_STACK
#include "altstack.c"
