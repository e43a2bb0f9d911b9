#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wf.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

int main(void)
{
  struct wf_map m;
  CHECK(wf_map_init(&m, 4) == 0);
  char w[32];
  for (int i = 0; i < 5000; i++) {
    int len = snprintf(w, sizeof w, "w%d", i % 1000);
    CHECK(wf_map_add(&m, w, (size_t)len, 1) == (unsigned long)(i / 1000 + 1));
  }
  CHECK(m.size == 1000);
  CHECK(m.nbuckets >= 500);
  CHECK(wf_map_get(&m, "w999") == 5);
  CHECK(wf_map_get(&m, "nope") == 0);
  wf_map_free(&m);
  puts("test_map: ok");
  return 0;
}
