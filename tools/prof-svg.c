/* gorc-prof: the flame graph.  The folded stacks become a tree (a node per
   distinct path); each node is a rectangle as wide as its share of the
   samples, the root ("all") at the bottom, callees above their callers, in
   flamegraph.pl's layout and "hot" colours.  Every rectangle has a <title>
   (the tooltip: name, samples, percentage) and, when wide enough, its name
   as text.  No script, no external file: plain SVG 1.1.  */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prof-svg.h"
#include "prof-data.h"
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

static void xml_text(FILE *f, const char *s, size_t max)
{
  for (size_t i = 0; s[i] && i < max; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&apos;", f); break;
    default:
      if (c < 0x20 || c >= 0x7f)
        fputc('?', f);   /* keep the document valid whatever the bytes */
      else
        fputc(c, f);
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
  if (depth == 0) {
    r = 200;
    g = 200;
    b = 200;
  }
  FILE *f = c->f;
  fputs("<g><title>", f);
  xml_text(f, n->name, (size_t)-1);
  fprintf(f, " (%llu samples, %.2f%%)</title>", (unsigned long long)n->count,
          100.0 * (double)n->count / (double)(c->total ? c->total : 1));
  fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
          "rx=\"2\" ry=\"2\"/>", x, y, w, FRAME_H - 1, r, g, b);
  size_t fit = (size_t)(w / CHAR_W);
  if (fit >= 5) {
    size_t len = strlen(n->name);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + FRAME_H - 4);
    if (len <= fit - 1) {
      xml_text(f, n->name, len);
    } else {
      xml_text(f, n->name, fit - 3);
      fputs("..", f);
    }
    fputs("</text>", f);
  }
  fputs("</g>\n", f);
  double kx = x;
  for (size_t i = 0; i < n->nkids; i++) {
    draw(c, n->kids[i], kx, depth + 1);
    kx += (double)n->kids[i]->count * c->scale;
  }
}

static void sort_tree(struct node *n)
{
  qsort(n->kids, n->nkids, sizeof *n->kids, kid_cmp);
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
  struct ctx c;
  c.f = f;
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
  xml_text(f, title, (size_t)-1);
  fputs("</text>\n", f);
  fprintf(f, "<text x=\"%.0f\" y=\"%d\">%llu samples; hover a frame for its count</text>\n",
          XPAD, c.height - 6, (unsigned long long)root->count);
  if (root->count)
    draw(&c, root, XPAD, 0);
  fputs("</svg>\n", f);
  node_free(root);
  if (ferror(f)) {
    fclose(f);
    errno = EIO;
    return -1;
  }
  return fclose(f);
}
