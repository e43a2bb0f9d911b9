/* util.c: errors, an arena, string interning, output buffers. */
#include "demo.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The error path: cold and noreturn, so GCC moves every branch that calls
   it into the .text.unlikely part of its caller. */
void fatal(int line, const char *fmt, ...)
{
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "demo: line %d: ", line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(2);
}

struct chunk {
  struct chunk *prev;
  size_t used, size;
  max_align_t data[];
};

static struct chunk *arena;
static size_t arena_total;

void *arena_alloc(size_t size)
{
  size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
  if (!arena || arena->size - arena->used < size) {
    size_t want = size > 65536 ? size : 65536;
    struct chunk *c = malloc(sizeof *c + want);
    if (__builtin_expect(c == NULL, 0))
      fatal(0, "out of memory (%zu bytes)", want);
    c->prev = arena;
    c->used = 0;
    c->size = want;
    arena = c;
  }
  void *p = (char *)arena->data + arena->used;
  arena->used += size;
  arena_total += size;
  memset(p, 0, size);
  return p;
}

size_t arena_used(void)
{
  return arena_total;
}

#define INTERN_SLOTS 1024
static const char *intern_tab[INTERN_SLOTS];

static uint32_t hash_bytes(const char *s, size_t len)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

const char *intern(const char *s, size_t len)
{
  uint32_t h = hash_bytes(s, len);
  for (unsigned i = 0; i < INTERN_SLOTS; i++) {
    unsigned slot = (h + i) & (INTERN_SLOTS - 1);
    const char *e = intern_tab[slot];
    if (!e) {
      char *copy = arena_alloc(len + 1);
      memcpy(copy, s, len);
      copy[len] = '\0';
      intern_tab[slot] = copy;
      return copy;
    }
    if (strncmp(e, s, len) == 0 && e[len] == '\0')
      return e;
  }
  fatal(0, "too many names");
}

void out_printf(struct outbuf *ob, const char *fmt, ...)
{
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    fatal(0, "bad format \"%s\"", fmt);
  if (ob->len + (size_t)n + 1 > ob->cap) {
    size_t cap = ob->cap ? ob->cap : 256;
    while (cap < ob->len + (size_t)n + 1)
      cap *= 2;
    char *d = realloc(ob->data, cap);
    if (!d)
      fatal(0, "out of memory (%zu bytes)", cap);
    ob->data = d;
    ob->cap = cap;
  }
  vsnprintf(ob->data + ob->len, ob->cap - ob->len, fmt, ap2);
  va_end(ap2);
  ob->len += (size_t)n;
}

void out_free(struct outbuf *ob)
{
  free(ob->data);
  ob->data = NULL;
  ob->len = ob->cap = 0;
}

uint32_t checksum(const char *data, size_t len)
{
  return hash_bytes(data, len);
}
