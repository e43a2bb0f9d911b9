/* wf [-n N] [FILE...]: the N (default 10) most frequent words.  */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wf.h"

int main(int argc, char **argv)
{
  size_t top = 10;
  int i = 1;
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    top = (size_t)strtoul(argv[2], NULL, 10);
    i = 3;
  }
  struct wf_map m;
  if (wf_map_init(&m, 64) != 0)
    return 2;
  size_t words = 0;
  if (i == argc) {
    words = wf_count_file(&m, stdin);
  } else {
    for (; i < argc; i++) {
      FILE *f = fopen(argv[i], "r");
      if (!f) {
        perror(argv[i]);
        return 1;
      }
      words += wf_count_file(&m, f);
      fclose(f);
    }
  }
  struct wf_entry **out = malloc((top ? top : 1) * sizeof *out);
  if (!out)
    return 2;
  size_t n = wf_top(&m, out, top);
  for (size_t k = 0; k < n; k++)
    printf("%7lu %s\n", out[k]->count, out[k]->word);
  printf("%zu words, %zu distinct\n", words, m.size);
  free(out);
  wf_map_free(&m);
  return 0;
}
