/* altstack.c with the alternate signal stack a local array of a frame of
   the main thread, so inside the main thread's stack: a walk that starts
   there looks like one on the main stack (libgorc does not ask for the
   altstack then), and must still cross the signal frame from the
   altstack down to the interrupted frames below it.  */
/* { dg-do run } */
/* { dg-gorc-runtime static } */

#define ALTSTACK_IN_MAIN_STACK
#include "altstack.c"
