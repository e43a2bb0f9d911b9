#include <stdio.h>
#include <string.h>
#include "wf.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

int main(void)
{
  struct wf_map m;
  CHECK(wf_map_init(&m, 8) == 0);
  const char *t = "The cat and the hat. THE END, isn't it? the";
  CHECK(wf_count_text(&m, t, strlen(t)) == 10);
  CHECK(wf_map_get(&m, "the") == 4);
  CHECK(wf_map_get(&m, "isn't") == 1);
  struct wf_entry *top[3];
  CHECK(wf_top(&m, top, 3) == 3);
  CHECK(strcmp(top[0]->word, "the") == 0);
  CHECK(strcmp(top[1]->word, "and") == 0);
  CHECK(strcmp(top[2]->word, "cat") == 0);
  wf_map_free(&m);
  puts("test_count: ok");
  return 0;
}
