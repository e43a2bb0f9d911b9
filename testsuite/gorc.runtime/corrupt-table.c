/* A module whose gorc_unwind table is corrupt: copies of a plugin-built
   library with random bytes of the table overwritten are dlopened, run and
   unwound from inside, 60 times.  The walk reads the table in place: what
   it cannot decode it must report (-GORC_ECORRUPT, or the error of a frame
   it could not follow), and every walk must end with a count or an error
   code, never a crash.  */
/* { dg-do run } */
/* { dg-gorc-runtime dlopen } */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "support/rt-test.h"

typedef int (*dl_callback) (void *arg);
typedef int (*dl_work_fn) (int depth, dl_callback cb, void *arg);

static int walks, corrupt_walks;

static int
deep (void *arg)
{
  void *ips[64];
  int rc = gorc_backtrace (ips, 64);
  int n = gorc_backtrace_count ();
  /* A walk stopped by the corrupt table, or complete.  */
  CHECK ((rc >= 0 && rc <= 64) || rc == -GORC_ECORRUPT
         || (rc <= -GORC_ENORECORD && rc >= -GORC_EDIRECTION), rc);
  CHECK (n >= 1 && n <= 64, n);
  (void) arg;
  walks++;
  corrupt_walks += rc == -GORC_ECORRUPT;
  return 1;
}

static char *
read_file (const char *path, size_t *size)
{
  int fd = open (path, O_RDONLY);
  struct stat st;
  CHECK (fd >= 0 && fstat (fd, &st) == 0, 0);
  char *buf = malloc (st.st_size);
  CHECK (buf && read (fd, buf, st.st_size) == st.st_size, 0);
  close (fd);
  *size = st.st_size;
  return buf;
}

/* The file offset and size of section NAME.  */
static void
find_section (const char *img, const char *name, size_t *off, size_t *size)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *) img;
  const Elf64_Shdr *sh = (const Elf64_Shdr *) (img + eh->e_shoff);
  const char *names = img + sh[eh->e_shstrndx].sh_offset;
  for (int i = 0; i < eh->e_shnum; i++)
    if (strcmp (names + sh[i].sh_name, name) == 0) {
      *off = sh[i].sh_offset;
      *size = sh[i].sh_size;
      return;
    }
  FAIL ("no section", 0);
}

int
main (void)
{
  /* The pristine library, found through the rpath.  */
  void *h = dlopen ("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
  struct link_map *lm;
  CHECK (h && dlinfo (h, RTLD_DI_LINKMAP, &lm) == 0, 0);
  size_t size, off, len;
  char *img = read_file (lm->l_name, &size);
  dlclose (h);
  find_section (img, "gorc_unwind", &off, &len);
  CHECK (len > 8, len);

  char dir[] = "/tmp/gorc-corrupt-XXXXXX";
  CHECK (mkdtemp (dir) != NULL, 0);
  srand (12345);
  for (int round = 0; round < 60; round++) {
    char path[64];
    snprintf (path, sizeof path, "%s/lib%d.so", dir, round);
    char *copy = malloc (size);
    memcpy (copy, img, size);
    int flips = 1 + rand () % 8;
    for (int k = 0; k < flips; k++)
      copy[off + rand () % len] = (char) rand ();
    if (round % 10 == 0) /* a table that is all garbage */
      for (size_t k = 0; k < len; k++)
        copy[off + k] = (char) rand ();
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    CHECK (fd >= 0 && write (fd, copy, size) == (ssize_t) size, round);
    close (fd);
    free (copy);
    void *c = dlopen (path, RTLD_NOW | RTLD_LOCAL);
    CHECK (c != NULL, round);
    dl_work_fn work = (dl_work_fn) dlsym (c, "dl_work");
    CHECK (work != NULL && work (8, deep, NULL) >= 1, round);
    CHECK (dlclose (c) == 0, round);
    unlink (path);
  }
  rmdir (dir);
  printf ("corrupt-table: %d walks, %d stopped with -GORC_ECORRUPT\n", walks, corrupt_walks);
  CHECK (walks == 60, walks);
  return 0;
}
