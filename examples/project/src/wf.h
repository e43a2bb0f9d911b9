/* wf: word frequencies.  A small library (a hash map of counted words and a
   tokenizer) and a command-line tool, used by gorc's testsuite as an
   ordinary project built with CC=gorc-gcc: it knows nothing of gorc.  */
#ifndef WF_H
#define WF_H

#include <stddef.h>
#include <stdio.h>

struct wf_entry {
  char *word;
  unsigned long count;
  struct wf_entry *next;
};

struct wf_map {
  struct wf_entry **buckets;
  size_t nbuckets, size;
};

int wf_map_init(struct wf_map *m, size_t nbuckets);
void wf_map_free(struct wf_map *m);
/* Add COUNT to WORD (LEN bytes); returns its new count, 0 on no memory.  */
unsigned long wf_map_add(struct wf_map *m, const char *word, size_t len, unsigned long count);
unsigned long wf_map_get(const struct wf_map *m, const char *word);

/* Split TEXT into lower-case words (letters, digits, apostrophes) and count
   them.  Returns the number of words.  */
size_t wf_count_text(struct wf_map *m, const char *text, size_t len);
size_t wf_count_file(struct wf_map *m, FILE *f);

/* The N most frequent entries (ties: alphabetical) into OUT; returns how many.  */
size_t wf_top(const struct wf_map *m, struct wf_entry **out, size_t n);

#endif
