/* gorc.prof: a program that spends most of its time in two known system
   calls: ROUNDS rounds (a fixed amount of work, not of time) of read(2)
   of 64 KB from /dev/zero and write(2) of them to a memory file (a
   memfd, rewound each round), each round in copy_round.  The write
   copies its 64 KB into the file's pages as the read clears them, so
   the two take about the same time and a test with a few dozen samples
   meets both (a write to /dev/null cost nothing: one of 17 samples).
   With USER, each round then does USER steps of work in user space
   (user_work), for a kernel share away from 100% (make bench).
     prof-syscall ROUNDS [USER]  */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noipa)) static void copy_round(int in, int out, char *buf, size_t n)
{
  if (read(in, buf, n) != (ssize_t)n || write(out, buf, n) != (ssize_t)n
      || lseek(out, 0, SEEK_SET) != 0) {
    perror("prof-syscall");
    exit(1);
  }
}

__attribute__((noipa)) static unsigned long user_work(long steps)
{
  unsigned long x = 1;
  for (long i = 0; i < steps; i++)
    x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

int main(int argc, char **argv)
{
  static char buf[65536];
  static volatile unsigned long sink;   /* the work kept */
  long rounds = argc > 1 ? atol(argv[1]) : 20000, user = argc > 2 ? atol(argv[2]) : 0;
  int in = open("/dev/zero", O_RDONLY), out = memfd_create("prof-syscall", MFD_CLOEXEC);
  if (in < 0 || out < 0) {
    perror("prof-syscall: /dev/zero, memfd_create");
    return 1;
  }
  for (long i = 0; i < rounds; i++) {
    copy_round(in, out, buf, sizeof buf);
    if (user)
      sink += user_work(user);
  }
  return 0;
}
