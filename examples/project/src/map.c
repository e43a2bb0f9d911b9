#include <stdlib.h>
#include <string.h>
#include "wf.h"

static unsigned long hash(const char *s, size_t len)
{
  unsigned long h = 5381;
  for (size_t i = 0; i < len; i++)
    h = h * 33 + (unsigned char)s[i];
  return h;
}

int wf_map_init(struct wf_map *m, size_t nbuckets)
{
  m->buckets = calloc(nbuckets, sizeof *m->buckets);
  m->nbuckets = nbuckets;
  m->size = 0;
  return m->buckets ? 0 : -1;
}

void wf_map_free(struct wf_map *m)
{
  for (size_t i = 0; i < m->nbuckets; i++) {
    struct wf_entry *e = m->buckets[i];
    while (e) {
      struct wf_entry *n = e->next;
      free(e->word);
      free(e);
      e = n;
    }
  }
  free(m->buckets);
  m->buckets = NULL;
}

static int grow(struct wf_map *m)
{
  size_t n = m->nbuckets * 2;
  struct wf_entry **b = calloc(n, sizeof *b);
  if (!b)
    return -1;
  for (size_t i = 0; i < m->nbuckets; i++) {
    struct wf_entry *e = m->buckets[i];
    while (e) {
      struct wf_entry *next = e->next;
      size_t k = hash(e->word, strlen(e->word)) % n;
      e->next = b[k];
      b[k] = e;
      e = next;
    }
  }
  free(m->buckets);
  m->buckets = b;
  m->nbuckets = n;
  return 0;
}

unsigned long wf_map_add(struct wf_map *m, const char *word, size_t len, unsigned long count)
{
  size_t k = hash(word, len) % m->nbuckets;
  for (struct wf_entry *e = m->buckets[k]; e; e = e->next)
    if (strncmp(e->word, word, len) == 0 && e->word[len] == 0)
      return e->count += count;
  if (m->size >= m->nbuckets * 2) {
    if (grow(m) != 0)
      return 0;
    k = hash(word, len) % m->nbuckets;
  }
  struct wf_entry *e = malloc(sizeof *e);
  if (!e)
    return 0;
  e->word = malloc(len + 1);
  if (!e->word) {
    free(e);
    return 0;
  }
  memcpy(e->word, word, len);
  e->word[len] = 0;
  e->count = count;
  e->next = m->buckets[k];
  m->buckets[k] = e;
  m->size++;
  return count;
}

unsigned long wf_map_get(const struct wf_map *m, const char *word)
{
  size_t len = strlen(word);
  for (struct wf_entry *e = m->buckets[hash(word, len) % m->nbuckets]; e; e = e->next)
    if (strcmp(e->word, word) == 0)
      return e->count;
  return 0;
}
