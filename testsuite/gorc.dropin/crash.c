/* Crash traces: crash KIND [api]  (KIND: segv bus abrt fpe overflow).
   With "api" the program installs gorc_install_crash_handler itself;
   without, it is unmodified (GORC_CRASH_TRACE=1 with the preload).  */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef WITH_GORC
#include <gorc.h>
#endif

volatile int zero;
int *volatile null_ptr;

__attribute__((noinline)) int crash_segv(void) { return *null_ptr + 1; }
__attribute__((noinline)) int crash_fpe(int a) { return a / zero + 1; }
__attribute__((noinline)) int crash_abrt(void) { abort(); }

/* A real SIGBUS: a mapping past the end of an empty file.  */
__attribute__((noinline)) int crash_bus(void)
{
  FILE *f = tmpfile();
  if (!f)
    return -1;
  volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(f), 0);
  if (p == MAP_FAILED)
    return -1;
  return p[100] + 1;
}

__attribute__((noinline)) int crash_overflow(int n)
{
  volatile char pad[256];
  pad[n & 255] = (char)n;
  return crash_overflow(n + 1) + pad[(n + 1) & 255];
}

__attribute__((noinline)) int run_kind(const char *k)
{
  if (strcmp(k, "segv") == 0) return crash_segv() + 1;
  if (strcmp(k, "fpe") == 0) return crash_fpe(7) + 1;
  if (strcmp(k, "abrt") == 0) return crash_abrt() + 1;
  if (strcmp(k, "bus") == 0) return crash_bus() + 1;
  if (strcmp(k, "overflow") == 0) return crash_overflow(0) + 1;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
#ifdef WITH_GORC
  if (argc > 2 && strcmp(argv[2], "api") == 0 && gorc_install_crash_handler() != 0) {
    fprintf(stderr, "gorc_install_crash_handler failed\n");
    return 2;
  }
#endif
  int r = run_kind(argv[1]);
  printf("no crash: %d\n", r);
  return 0;
}
