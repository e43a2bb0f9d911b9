/* gorc.prof: a program whose main thread ends first: it starts a thread
   that does WORK steps (a fixed amount of work, not of time), then
   leaves by pthread_exit, so that the process lives on in that thread
   after its first thread, the one its events were opened on, has
   exited.
     prof-mainexit [WORK]  */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static void *work(void *arg)
{
  long steps = (long)arg;
  for (long i = 0; i < steps; i++)
    sink = sink * 6364136223846793005ul + 1442695040888963407ul;
  return NULL;
}

int main(int argc, char **argv)
{
  pthread_t t;
  long steps = argc > 1 ? atol(argv[1]) : 100000000;
  if (pthread_create(&t, NULL, work, (void *)steps) != 0) {
    fprintf(stderr, "prof-mainexit: pthread_create failed\n");
    return 1;
  }
  pthread_exit(NULL);
}
