/* What gorc_install_crash_handler() costs, counted: the calls it makes
   to open, openat, mmap and dl_iterate_phdr (interposed here: libgorc.so
   calls them through its PLT) while it runs.  The libraries named on the
   command line are dlopened first, so that the test can compare a
   program with a few modules and one with more and larger ones: the
   install must read no module (no open, no module iteration) and map
   the same whatever is loaded.  Prints "opens=N mmaps=N module_walks=N".  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <gorc.h>

static int counting, opens, mmaps, module_walks;

static int open_at(int dirfd, const char *path, int flags, va_list ap)
{
  mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  if (counting)
    opens++;
  return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
  va_list ap;
  va_start(ap, flags);
  int r = open_at(AT_FDCWD, path, flags, ap);
  va_end(ap);
  return r;
}

/* The same function under its other name.  */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
  va_list ap;
  va_start(ap, flags);
  int r = open_at(dirfd, path, flags, ap);
  va_end(ap);
  return r;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
  if (counting)
    mmaps++;
  return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
  return mmap(addr, len, prot, flags, fd, off);
}

typedef int (*phdr_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);

int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
  static phdr_fn real;
  if (!real)
    real = (phdr_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
  if (counting)
    module_walks++;
  return real(cb, data);
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (!dlopen(argv[i], RTLD_NOW)) {
      fprintf(stderr, "dlopen %s: %s\n", argv[i], dlerror());
      return 2;
    }
  counting = 1;
  int rc = gorc_install_crash_handler();
  counting = 0;
  if (rc != 0) {
    fprintf(stderr, "gorc_install_crash_handler: %d\n", rc);
    return 2;
  }
  printf("opens=%d mmaps=%d module_walks=%d\n", opens, mmaps, module_walks);
  return 0;
}
