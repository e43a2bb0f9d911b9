/* The libFuzzer targets of foreign files (fuzz_perfdata.c, fuzz_elf.c,
   fuzz_elfsym.c): the readers take a path, so each input is written to
   one file of a directory of the target's own, made at the first input
   (under $TMPDIR, /tmp by default) and removed at exit.  A file rather
   than /proc/self/fd/N: a debug link or a module path read from the input
   is looked for next to the file, in that directory, never on stdin.  */
#ifndef GORC_FUZZ_FILE_H
#define GORC_FUZZ_FILE_H

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[PATH_MAX - 32];
static char fuzz_path[PATH_MAX];

static void fuzz_file_remove(void)
{
  unlink(fuzz_path);
  rmdir(fuzz_dir);
}

/* The path of a file holding the SIZE bytes at DATA (NAME its name).  */
static const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
  if (!fuzz_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/gorc-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir))
      abort();
    snprintf(fuzz_path, sizeof fuzz_path, "%s/%s", fuzz_dir, name);
    atexit(fuzz_file_remove);
  }
  int fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) != 0)
    abort();
  return fuzz_path;
}

#endif
