/* report.c: a profile of the run, sorted with qsort, and a histogram. */
#include "demo.h"

#include <stdlib.h>
#include <string.h>

enum { REPORT_BUF = 16384 };

static int by_steps_desc(const void *pa, const void *pb)
{
  const struct function *a = *(const struct function *const *)pa;
  const struct function *b = *(const struct function *const *)pb;
  if (a->steps != b->steps)
    return a->steps < b->steps ? 1 : -1;
  return strcmp(a->name, b->name);
}

static int by_name(const void *pa, const void *pb)
{
  const struct function *a = *(const struct function *const *)pa;
  const struct function *b = *(const struct function *const *)pb;
  return strcmp(a->name, b->name);
}

/* Formats the whole table in a 16 KiB buffer on the stack first, the way
   code that cannot allocate often does. */
void report_profile(const struct program *p, struct outbuf *ob, int top)
{
  char buf[REPORT_BUF];
  size_t pos = 0;
  const struct function **sorted = arena_alloc(sizeof *sorted * (size_t)p->nfuncs);
  long total = 0;

  for (int i = 0; i < p->nfuncs; i++) {
    sorted[i] = p->funcs[i];
    total += p->funcs[i]->steps;
  }
  qsort(sorted, (size_t)p->nfuncs, sizeof *sorted, by_steps_desc);

  pos += (size_t)snprintf(buf + pos, sizeof buf - pos,
                          "%-12s %10s %12s %7s %6s\n", "function", "calls",
                          "steps", "share", "insns");
  for (int i = 0; i < p->nfuncs && i < top && pos < sizeof buf; i++) {
    const struct function *f = sorted[i];
    long permille = total ? f->steps * 1000 / total : 0;
    pos += (size_t)snprintf(buf + pos, sizeof buf - pos,
                            "%-12s %10ld %12ld %3ld.%ld%% %6d\n", f->name,
                            f->calls, f->steps, permille / 10, permille % 10,
                            f->ncode);
  }
  if (pos < sizeof buf)
    pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%-12s %10s %12ld\n",
                            "total", "", total);
  if (pos >= sizeof buf)
    fatal(0, "profile table does not fit in %d bytes", REPORT_BUF);
  out_printf(ob, "%s", buf);

  qsort(sorted, (size_t)p->nfuncs, sizeof *sorted, by_name);
  out_printf(ob, "functions by name:");
  for (int i = 0; i < p->nfuncs; i++)
    out_printf(ob, " %s", sorted[i]->name);
  out_printf(ob, "\n");
}

static int log2_bucket(long v)
{
  int b = 0;
  while (v > 1) {
    v >>= 1;
    b++;
  }
  return b;
}

/* Eight arguments: a vertical bar per function, log2 of its steps. */
void report_histogram(const struct program *p, struct outbuf *ob,
                      int width, int height, char fill, char empty,
                      int show_zero, const char *title)
{
  int n = p->nfuncs < width ? p->nfuncs : width;
  int *bars = arena_alloc(sizeof *bars * (size_t)(n ? n : 1));
  int maxb = 1;
  for (int i = 0; i < n; i++) {
    bars[i] = p->funcs[i]->steps ? 1 + log2_bucket(p->funcs[i]->steps) : 0;
    if (bars[i] > maxb)
      maxb = bars[i];
  }
  out_printf(ob, "%s\n", title);
  for (int row = height; row >= 1; row--) {
    out_printf(ob, "  |");
    for (int i = 0; i < n; i++) {
      int h = (bars[i] * height + maxb - 1) / maxb;
      char c = h >= row ? fill : empty;
      if (!show_zero && bars[i] == 0)
        c = ' ';
      out_printf(ob, " %c%c", c, c);
    }
    out_printf(ob, "\n");
  }
  out_printf(ob, "  +");
  for (int i = 0; i < n; i++)
    out_printf(ob, "---");
  out_printf(ob, "\n   ");
  for (int i = 0; i < n; i++)
    out_printf(ob, " %.2s", p->funcs[i]->name[0] == '<' ? "<>" : p->funcs[i]->name);
  out_printf(ob, "\n");
}
