/* gorc-prof --keep-walker: the BPF walker kept in the BPF file system
   (see prof-keep.h).  */

#define _GNU_SOURCE
#include "prof-keep.h"

#ifdef GORC_HAVE_BPF    /* (else no walker to keep: nothing here is called) */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <linux/magic.h>

/* DIR/NAME into OUT (PATH_MAX): 0, or -1 when it does not fit.  */
static int join(char *out, const char *dir, const char *name)
{
  int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
  return n > 0 && n < PATH_MAX ? 0 : -1;
}

/* The walker DIR/NAME removed: its pins, then it.  */
static void remove_walker(int dir_fd, const char *name)
{
  int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0)
      close(fd);
    unlinkat(dir_fd, name, 0);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
  unlinkat(dir_fd, name, AT_REMOVEDIR);
}

/* Does NAME have the shape of a walker's KEY (prof_bpf_open's:
   BUILDID-kN-rBYTES, then maybe -HOOK)?  Nothing else in the directory
   is touched: it may be one of other pins (/sys/fs/bpf itself).  */
static int is_walker_name(const char *name)
{
  const char *p = name;
  while (isxdigit((unsigned char)*p))
    p++;
  if (p == name || strncmp(p, "-k", 2) != 0 || !isdigit((unsigned char)p[2]))
    return 0;
  for (p += 3; isdigit((unsigned char)*p); p++)
    ;
  if (strncmp(p, "-r", 2) != 0 || !isdigit((unsigned char)p[2]))
    return 0;
  for (p += 3; isdigit((unsigned char)*p); p++)
    ;
  return *p == 0 || *p == '-';
}

/* Every walker in K's directory but KEY removed.  */
static void remove_others(const struct prof_keep *k, const char *key)
{
  int fd = dup(k->dir_fd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0)
      close(fd);
    return;
  }
  rewinddir(d);
  struct dirent *e;
  while ((e = readdir(d)))
    if (is_walker_name(e->d_name) && strcmp(e->d_name, key) != 0)
      remove_walker(k->dir_fd, e->d_name);
  closedir(d);
}

/* DIR, made where missing, in a BPF file system (made only there: its
   parent's): 0, or -1 with why not in WHY.  */
static int make_in_bpf_fs(const char *dir, char *why, size_t whylen)
{
  char parent[PATH_MAX];
  struct statfs fs;
  snprintf(parent, sizeof parent, "%s", dir);
  char *slash = strrchr(parent, '/');
  if (slash)
    *(slash == parent ? slash + 1 : slash) = 0;
  else
    snprintf(parent, sizeof parent, ".");
  int exists = access(dir, F_OK) == 0;
  if (statfs(exists ? dir : parent, &fs) != 0) {
    snprintf(why, whylen, "%s: %s", exists ? dir : parent, strerror(errno));
    return -1;
  }
  if (fs.f_type != BPF_FS_MAGIC) {
    snprintf(why, whylen, "%s is not in a BPF file system (mount -t bpf bpf /sys/fs/bpf)", dir);
    return -1;
  }
  if (!exists && strchr(strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir, '.')) {
    snprintf(why, whylen, "%s: a name in a BPF file system has no '.'", dir);
    return -1;
  }
  if (!exists && mkdir(dir, 0700) != 0 && errno != EEXIST) {
    snprintf(why, whylen, "%s: %s", dir, strerror(errno));
    return -1;
  }
  return 0;
}

int prof_keep_begin(struct prof_keep *k, const char *dir, const char *key, char *why,
                    size_t whylen)
{
  memset(k, 0, sizeof *k);
  k->dir_fd = -1;
  if (make_in_bpf_fs(dir, why, whylen) != 0)
    return -1;
  if (join(k->path, dir, key) != 0) {
    snprintf(why, whylen, "%s: the path is too long", dir);
    return -1;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    snprintf(why, whylen, "%s: %s", dir,
             errno == EWOULDBLOCK ? "another gorc-prof is using the walker kept there"
                                  : strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  k->dir_fd = fd;
  remove_others(k, key);
  char prog[PATH_MAX];
  k->reused = join(prog, k->path, "prof_sample") == 0 && access(prog, F_OK) == 0;
  if (!k->reused)
    remove_walker(k->dir_fd, key);     /* (maps without their program: a run killed while pinning) */
  if (!k->reused && mkdir(k->path, 0700) != 0) {
    snprintf(why, whylen, "%s: %s", k->path, strerror(errno));
    prof_keep_end(k);
    return -1;
  }
  return 0;
}

int prof_keep_maps(const struct prof_keep *k, struct bpf_object *obj)
{
  struct bpf_map *map;
  bpf_object__for_each_map(map, obj) {
    /* the BPF file system takes no '.' in a name (.rodata's) */
    char name[256], pin[PATH_MAX];
    snprintf(name, sizeof name, "%s", bpf_map__name(map));
    for (char *c = name; *c; c++)
      if (*c == '.')
        *c = '_';
    if (join(pin, k->path, name) != 0 || bpf_map__set_pin_path(map, pin) != 0)
      return -1;
  }
  return 0;
}

int prof_keep_prog(const struct prof_keep *k, const char *name)
{
  char pin[PATH_MAX];
  return k->dir_fd >= 0 && join(pin, k->path, name) == 0 ? bpf_obj_get(pin) : -1;
}

int prof_keep_pin(const struct prof_keep *k, struct bpf_program *prog, const char *name)
{
  char pin[PATH_MAX];
  return join(pin, k->path, name) == 0 && bpf_program__pin(prog, pin) == 0 ? 0 : -1;
}

void prof_keep_drop(struct prof_keep *k)
{
  if (k->dir_fd < 0)
    return;
  const char *key = strrchr(k->path, '/') + 1;
  remove_walker(k->dir_fd, key);
  prof_keep_end(k);
}

void prof_keep_end(struct prof_keep *k)
{
  if (k->dir_fd >= 0)
    close(k->dir_fd);          /* (the lock goes with it) */
  k->dir_fd = -1;
  k->reused = 0;
}

#endif /* GORC_HAVE_BPF */
