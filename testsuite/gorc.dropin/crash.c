/* Crash traces: crash KIND [api [PAD]]  (KIND: segv bus abrt fpe overflow
   badsp threads handler-abrt altstack-segv).
   With "api" the program installs gorc_install_crash_handler itself;
   without (any other second argument), it is unmodified
   (GORC_CRASH_TRACE=1 with the preload).  PAD: bytes handler-abrt moves
   its frames down by (alloca) before the signal.  */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* No stack at all: the stack pointer is moved to an unmapped page and
   written through.  The handler runs on its alternate stack, and its walk
   of this context may fault itself.  */
__attribute__((noinline)) int crash_badsp(void)
{
  __asm__ volatile("mov $0x1000,%%rsp; movq $0,(%%rsp)" ::: "memory");
  return 0;
}

/* Two threads fault, the second while the first is in the handler.
   When stderr is a pipe, it is shrunk to one page and filled first, so
   the first handler's write blocks until the test's reader, which waits
   a second, drains it: the second thread faults meanwhile, for certain.
   (With SA_RESETHAND its fault killed the process, trace unwritten.)  */
static int first_faulting;

static void fill_stderr_pipe(void)
{
  struct stat st;
  if (fstat(2, &st) != 0 || !S_ISFIFO(st.st_mode) || fcntl(2, F_SETPIPE_SZ, 4096) < 0)
    return;
  int fl = fcntl(2, F_GETFL);
  fcntl(2, F_SETFL, fl | O_NONBLOCK);
  char nl[256];
  memset(nl, '\n', sizeof nl);
  while (write(2, nl, sizeof nl) > 0)
    ;
  fcntl(2, F_SETFL, fl);
}

__attribute__((noinline)) static void *crash_thread(void *arg)
{
  if (arg)
    while (!__atomic_load_n(&first_faulting, __ATOMIC_SEQ_CST))
      ;
  else
    __atomic_store_n(&first_faulting, 1, __ATOMIC_SEQ_CST);
  *null_ptr = 1;
  return arg;
}

__attribute__((noinline)) int crash_threads(void)
{
  pthread_t t[2];
  fill_stderr_pipe();
  for (long i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, crash_thread, (void *)i) != 0)
      return -1;
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  return 0;
}

/* abort() inside a SIGUSR1 handler that runs on the thread's stack: the
   crash handler (on its alternate stack) walks through the handler's
   signal frame.  PAD moves the frames within their page.  */
static void abort_in_handler(int sig)
{
  (void)sig;
  abort();
}

__attribute__((noinline)) int crash_handler_abrt(unsigned pad)
{
  volatile char *below = alloca(pad + 16);
  below[0] = 1;
  signal(SIGUSR1, abort_in_handler);
  raise(SIGUSR1);
  return below[0];
}

/* The program's own alternate signal stack of 8 KiB (SIGSTKSZ before
   glibc 2.34 made it a sysconf value), set before main installs the
   handler, and after the preload did.  */
static void use_own_altstack(void)
{
  static char own_altstack[8192] __attribute__((aligned(16)));
  stack_t ss = { .ss_sp = own_altstack, .ss_size = sizeof own_altstack, .ss_flags = 0 };
  if (sigaltstack(&ss, NULL) != 0)
    perror("sigaltstack");
}

__attribute__((noinline)) int run_kind(const char *k, unsigned pad)
{
  if (strcmp(k, "segv") == 0) return crash_segv() + 1;
  if (strcmp(k, "fpe") == 0) return crash_fpe(7) + 1;
  if (strcmp(k, "abrt") == 0) return crash_abrt() + 1;
  if (strcmp(k, "bus") == 0) return crash_bus() + 1;
  if (strcmp(k, "overflow") == 0) return crash_overflow(0) + 1;
  if (strcmp(k, "badsp") == 0) return crash_badsp() + 1;
  if (strcmp(k, "threads") == 0) return crash_threads() + 1;
  if (strcmp(k, "handler-abrt") == 0) return crash_handler_abrt(pad) + 1;
  if (strcmp(k, "altstack-segv") == 0) return crash_segv() + 1;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
  if (strcmp(argv[1], "altstack-segv") == 0)
    use_own_altstack();
#ifdef WITH_GORC
  if (argc > 2 && strcmp(argv[2], "api") == 0 && gorc_install_crash_handler() != 0) {
    fprintf(stderr, "gorc_install_crash_handler failed\n");
    return 2;
  }
#endif
  int r = run_kind(argv[1], argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 0);
  printf("no crash: %d\n", r);
  return 0;
}
