#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "wf.h"

static int word_char(int c)
{
  return isalnum(c) || c == '\'';
}

size_t wf_count_text(struct wf_map *m, const char *text, size_t len)
{
  char word[256];
  size_t n = 0, words = 0;
  for (size_t i = 0; i <= len; i++) {
    int c = i < len ? (unsigned char)text[i] : ' ';
    if (word_char(c)) {
      if (n < sizeof word)
        word[n++] = (char)tolower(c);
    } else if (n > 0) {
      wf_map_add(m, word, n, 1);
      words++;
      n = 0;
    }
  }
  return words;
}

size_t wf_count_file(struct wf_map *m, FILE *f)
{
  char *line = NULL;
  size_t cap = 0, words = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) > 0)
    words += wf_count_text(m, line, (size_t)len);
  free(line);
  return words;
}

static int before(const struct wf_entry *a, const struct wf_entry *b)
{
  if (a->count != b->count)
    return a->count > b->count;
  return strcmp(a->word, b->word) < 0;
}

size_t wf_top(const struct wf_map *m, struct wf_entry **out, size_t n)
{
  size_t have = 0;
  for (size_t i = 0; i < m->nbuckets; i++)
    for (struct wf_entry *e = m->buckets[i]; e; e = e->next) {
      /* insertion into the sorted prefix */
      size_t k = have < n ? have++ : n;
      if (k == n && (n == 0 || !before(e, out[n - 1])))
        continue;
      if (k == n)
        k = n - 1;
      while (k > 0 && before(e, out[k - 1])) {
        out[k] = out[k - 1];
        k--;
      }
      out[k] = e;
    }
  return have;
}
