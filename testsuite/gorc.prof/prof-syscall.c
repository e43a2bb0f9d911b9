/* gorc.prof: a program that spends most of its time in two known system
   calls: ROUNDS rounds (a fixed amount of work, not of time) of read(2)
   of 64 KB from /dev/zero and write(2) of them to /dev/null, each round
   in copy_round.
     prof-syscall ROUNDS  */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noipa)) static void copy_round(int in, int out, char *buf, size_t n)
{
  if (read(in, buf, n) != (ssize_t)n || write(out, buf, n) != (ssize_t)n) {
    perror("prof-syscall");
    exit(1);
  }
}

int main(int argc, char **argv)
{
  static char buf[65536];
  long rounds = argc > 1 ? atol(argv[1]) : 20000;
  int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
  if (in < 0 || out < 0) {
    perror("prof-syscall: /dev/zero, /dev/null");
    return 1;
  }
  for (long i = 0; i < rounds; i++)
    copy_round(in, out, buf, sizeof buf);
  return 0;
}
