/* gorc-prof: the flame graph.  The folded stacks become a tree (a node per
   distinct path); each node is a rectangle as wide as its share of the
   samples, the root ("all") at the bottom, callees above their callers, in
   flamegraph.pl's layout and "hot" colours.  Every rectangle has a <title>
   (the tooltip: name, samples, percentage) and, when wide enough, its name
   as text.  Kernel frames (PROF_KERNEL_SUFFIX) are blue, in the "aqua"
   range, apart from the program's.  No script, no external file: plain
   SVG 1.1.  */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prof-svg.h"
#include "prof-data.h"
#include "prof-kernel.h"
#include "mapped.h"

#define IMG_WIDTH 1200.0
#define XPAD 10.0
#define FRAME_H 16
#define FONT_SIZE 12
#define CHAR_W 7.0          /* approximate width of a character */
#define TOP_PAD 40
#define BOTTOM_PAD 24
#define MIN_WIDTH 0.1       /* pixels: narrower nodes are not drawn */

struct node {
  char *name;
  uint64_t count;
  struct node **kids;
  size_t nkids, cap;
};

static struct node *node_new(const char *name, size_t len)
{
  struct node *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  n->name = strndup(name, len);
  if (!n->name) {
    free(n);
    return NULL;
  }
  return n;
}

static struct node *child(struct node *p, const char *name, size_t len)
{
  for (size_t i = 0; i < p->nkids; i++)
    if (strncmp(p->kids[i]->name, name, len) == 0 && p->kids[i]->name[len] == 0)
      return p->kids[i];
  struct node **k = gorc_grow_array(p->kids, &p->cap, p->nkids + 1, sizeof *k, 4, SIZE_MAX);
  if (!k)
    return NULL;
  p->kids = k;
  struct node *n = node_new(name, len);
  if (n)
    p->kids[p->nkids++] = n;
  return n;
}

static void node_free(struct node *n)
{
  for (size_t i = 0; i < n->nkids; i++)
    node_free(n->kids[i]);
  free(n->kids);
  free(n->name);
  free(n);
}

static int kid_cmp(const void *a, const void *b)
{
  const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;
  return strcmp(x->name, y->name);
}

static int depth_of(const struct node *n)
{
  int d = 0;
  for (size_t i = 0; i < n->nkids; i++) {
    int k = depth_of(n->kids[i]);
    if (k > d)
      d = k;
  }
  return d + 1;
}

static void put_str(struct prof_text *t, const char *s)
{
  prof_text_put(t, s, strlen(s));
}

/* V as printf's %lld writes it.  */
static void put_int(struct prof_text *t, long long v)
{
  if (v < 0)
    prof_text_put(t, "-", 1);
  prof_text_uint(t, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v, 10);
}

/* V (finite, >= 0) as printf's "%.1f" (DECIMALS 1) or "%.2f" (2) writes
   it: V * 10^DECIMALS rounded to an integer, a tie to the even one.
   Exact: a double times 100 fits the 64-bit significand of a long
   double, and so does its fraction.  */
static void put_fixed(struct prof_text *t, double v, int decimals)
{
  long double scaled = (long double)v * (decimals == 1 ? 10 : 100);
  unsigned long long n = (unsigned long long)scaled;
  long double rest = scaled - (long double)n;
  if (rest > 0.5L || (rest == 0.5L && (n & 1)))
    n++;
  char buf[32];
  size_t at = sizeof buf;
  for (int d = 0; d < decimals; d++) {
    buf[--at] = (char)('0' + n % 10);
    n /= 10;
  }
  buf[--at] = '.';
  do {
    buf[--at] = (char)('0' + n % 10);
    n /= 10;
  } while (n);
  prof_text_put(t, buf + at, sizeof buf - at);
}

/* At most MAX bytes of S, escaped for XML.  */
static void put_xml(struct prof_text *t, const char *s, size_t max)
{
  for (size_t i = 0; s[i] && i < max; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '&': put_str(t, "&amp;"); break;
    case '<': put_str(t, "&lt;"); break;
    case '>': put_str(t, "&gt;"); break;
    case '"': put_str(t, "&quot;"); break;
    case '\'': put_str(t, "&apos;"); break;
    default:
      /* keep the document valid whatever the bytes */
      prof_text_put(t, c < 0x20 || c >= 0x7f ? "?" : (const char *)&s[i], 1);
    }
  }
}

static unsigned hash_name(const char *s)
{
  unsigned h = 2166136261u;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

struct ctx {
  FILE *f;
  struct prof_text text;     /* the element being made */
  double scale;         /* pixels per sample */
  uint64_t total;
  int height;
};

static void draw(struct ctx *c, const struct node *n, double x, int depth)
{
  double w = (double)n->count * c->scale;
  if (w < MIN_WIDTH)
    return;
  int y = c->height - BOTTOM_PAD - (depth + 1) * FRAME_H;
  unsigned h = hash_name(n->name);
  int r = 205 + (int)(h % 50), g = (int)((h >> 8) % 230), b = (int)((h >> 16) % 55);
  if (prof_kernel_frame(n->name, strlen(n->name))) {
    r = 50 + (int)(h % 60);
    g = 160 + (int)((h >> 8) % 55);
    b = 200 + (int)((h >> 16) % 55);
  }
  if (depth == 0) {
    r = 200;
    g = 200;
    b = 200;
  }
  struct prof_text *t = &c->text;
  t->len = 0;
  put_str(t, "<g><title>");
  put_xml(t, n->name, (size_t)-1);
  put_str(t, " (");
  put_int(t, (long long)n->count);
  put_str(t, " samples, ");
  put_fixed(t, 100.0 * (double)n->count / (double)(c->total ? c->total : 1), 2);
  put_str(t, "%)</title><rect x=\"");
  put_fixed(t, x, 1);
  put_str(t, "\" y=\"");
  put_int(t, y);
  put_str(t, "\" width=\"");
  put_fixed(t, w, 1);
  put_str(t, "\" height=\"");
  put_int(t, FRAME_H - 1);
  put_str(t, "\" fill=\"rgb(");
  put_int(t, r);
  put_str(t, ",");
  put_int(t, g);
  put_str(t, ",");
  put_int(t, b);
  put_str(t, ")\" rx=\"2\" ry=\"2\"/>");
  size_t fit = (size_t)(w / CHAR_W);
  if (fit >= 5) {
    size_t len = strlen(n->name);
    put_str(t, "<text x=\"");
    put_fixed(t, x + 3, 1);
    put_str(t, "\" y=\"");
    put_int(t, y + FRAME_H - 4);
    put_str(t, "\">");
    if (len <= fit - 1) {
      put_xml(t, n->name, len);
    } else {
      put_xml(t, n->name, fit - 3);
      put_str(t, "..");
    }
    put_str(t, "</text>");
  }
  put_str(t, "</g>\n");
  fwrite(t->buf, 1, t->len, c->f);
  double kx = x;
  for (size_t i = 0; i < n->nkids; i++) {
    draw(c, n->kids[i], kx, depth + 1);
    kx += (double)n->kids[i]->count * c->scale;
  }
}

static void sort_tree(struct node *n)
{
  prof_sort(n->kids, n->nkids, sizeof *n->kids, kid_cmp);
  for (size_t i = 0; i < n->nkids; i++)
    sort_tree(n->kids[i]);
}

int svg_write(const char *path, const char *title, const struct svg_stack *stacks, size_t n)
{
  struct node *root = node_new("all", 3);
  if (!root)
    return -1;
  for (size_t i = 0; i < n; i++) {
    struct node *at = root;
    root->count += stacks[i].count;
    const char *s = stacks[i].stack;
    while (*s) {
      const char *e = strchr(s, ';');
      size_t len = e ? (size_t)(e - s) : strlen(s);
      at = child(at, s, len);
      if (!at) {
        node_free(root);
        errno = ENOMEM;
        return -1;
      }
      at->count += stacks[i].count;
      s += len;
      if (*s == ';')
        s++;
    }
  }
  sort_tree(root);
  FILE *f = prof_create(path);
  if (!f) {
    node_free(root);
    return -1;
  }
  int depth = depth_of(root);
  struct ctx c = { .f = f };
  c.total = root->count;
  c.scale = root->count ? (IMG_WIDTH - 2 * XPAD) / (double)root->count : 0;
  c.height = TOP_PAD + depth * FRAME_H + BOTTOM_PAD;
  fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
             "<svg version=\"1.1\" width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f %d\" "
             "xmlns=\"http://www.w3.org/2000/svg\">\n",
          IMG_WIDTH, c.height, IMG_WIDTH, c.height);
  fprintf(f, "<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; }"
             " g:hover rect { stroke: #000; stroke-width: 0.5; }</style>\n", FONT_SIZE);
  fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%d\" fill=\"#f8f8f0\"/>\n",
          IMG_WIDTH, c.height);
  fprintf(f, "<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">",
          IMG_WIDTH / 2);
  put_xml(&c.text, title, (size_t)-1);
  put_str(&c.text, "</text>\n");
  fwrite(c.text.buf, 1, c.text.len, f);
  fprintf(f, "<text x=\"%.0f\" y=\"%d\">%llu samples; hover a frame for its count</text>\n",
          XPAD, c.height - 6, (unsigned long long)root->count);
  if (root->count)
    draw(&c, root, XPAD, 0);
  fputs("</svg>\n", f);
  free(c.text.buf);
  node_free(root);
  if (ferror(f)) {
    fclose(f);
    errno = EIO;
    return -1;
  }
  return fclose(f);
}
