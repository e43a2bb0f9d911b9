/* A file the tools have mapped (tools/lib/mapped.c) shrinks under them: the
   read of a lost page ends the tool with a message naming the file and
   exit status 2, not SIGBUS.  FILE (64 KiB) is mapped, truncated to 10
   bytes, then read past the new end.  */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mapped.h"

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 3;
  int fd = open (argv[1], O_RDONLY);
  char *m = gorc_map_file (fd, 65536, 0, 0, argv[1]);
  if (fd < 0 || m == MAP_FAILED || truncate (argv[1], 10) != 0)
    return 3;
  volatile char c = m[40000];
  (void) c;
  return 0;
}
