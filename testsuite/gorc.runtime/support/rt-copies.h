/* Copies of a shared library under other names: each one dlopened is a
   module of its own (dlclose-batch.c, modules-many.c,
   permanent-modules.c).  */
#ifndef RT_COPIES_H
#define RT_COPIES_H
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "rt-test.h"

/* Copy the file FROM (at most 1 MiB) to TO, executable.  */
static void rt_copy_file(const char *from, const char *to)
{
  static char buf[1 << 20];
  int in = open(from, O_RDONLY);
  CHECK(in >= 0, 0);
  ssize_t len = read(in, buf, sizeof buf);
  CHECK(len > 0 && len < (ssize_t)sizeof buf, len);
  close(in);
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  CHECK(out >= 0 && write(out, buf, len) == len, 0);
  close(out);
}

/* COUNT copies of libgorc-dltest.so in a new directory made from TMPDIR
   (a mkdtemp template), PATHS[i] = TMPDIR/STEM<i>.so.  */
static void rt_dltest_copies(char *tmpdir, const char *stem, int count, char (*paths)[128])
{
  void *h = dlopen("libgorc-dltest.so", RTLD_NOW | RTLD_LOCAL);
  struct link_map *lm;
  CHECK(h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0, 0);
  CHECK(mkdtemp(tmpdir) != NULL, 0);
  for (int i = 0; i < count; i++) {
    snprintf(paths[i], 128, "%s/%s%d.so", tmpdir, stem, i);
    rt_copy_file(lm->l_name, paths[i]);
  }
  CHECK(dlclose(h) == 0, 0);
}

/* Remove what rt_dltest_copies made.  */
static void rt_dltest_copies_remove(const char *tmpdir, int count, char (*paths)[128])
{
  for (int i = 0; i < count; i++)
    unlink(paths[i]);
  rmdir(tmpdir);
}
#endif
