/* parser.c: recursive descent, one function per precedence level, so a
   nested expression is a deep chain of calls. */
#include "demo.h"

#include <stdlib.h>

struct parser {
  struct lexer lx;
  int depth;
};

/* Eight arguments: the last two are passed on the stack. */
__attribute__((noinline))
static struct node *new_node(enum node_kind kind, enum tok op, struct node *a,
                             struct node *b, struct node *c, int64_t num,
                             const char *name, int line)
{
  struct node *n = arena_alloc(sizeof *n);
  n->kind = kind;
  n->op = op;
  n->a = a;
  n->b = b;
  n->c = c;
  n->num = num;
  n->name = name;
  n->line = line;
  return n;
}

static enum tok peek(struct parser *ps)
{
  return ps->lx.cur.kind;
}

static int accept(struct parser *ps, enum tok t)
{
  if (ps->lx.cur.kind != t)
    return 0;
  lex_next(&ps->lx);
  return 1;
}

static void expect(struct parser *ps, enum tok t)
{
  if (__builtin_expect(ps->lx.cur.kind != t, 0))
    fatal(ps->lx.cur.line, "expected %s, found %s", tok_name(t),
          tok_name(ps->lx.cur.kind));
  lex_next(&ps->lx);
}

static const char *expect_name(struct parser *ps)
{
  const char *name = ps->lx.cur.text;
  expect(ps, T_NAME);
  return name;
}

static struct node *parse_expr(struct parser *ps);
static struct node *parse_block(struct parser *ps);

static struct node *parse_primary(struct parser *ps)
{
  struct token t = ps->lx.cur;
  switch (t.kind) {
  case T_NUM:
    lex_next(&ps->lx);
    return new_node(N_NUM, T_NUM, NULL, NULL, NULL, t.num, NULL, t.line);
  case T_STR:
    lex_next(&ps->lx);
    return new_node(N_STR, T_STR, NULL, NULL, NULL, 0, t.text, t.line);
  case T_NAME:
    lex_next(&ps->lx);
    if (accept(ps, T_LPAREN)) {
      struct node *args = NULL, **tail = &args;
      int argc = 0;
      if (peek(ps) != T_RPAREN) {
        do {
          *tail = parse_expr(ps);
          tail = &(*tail)->next;
          argc++;
        } while (accept(ps, T_COMMA));
      }
      expect(ps, T_RPAREN);
      return new_node(N_CALL, T_NAME, args, NULL, NULL, argc, t.text, t.line);
    }
    return new_node(N_VAR, T_NAME, NULL, NULL, NULL, 0, t.text, t.line);
  case T_LPAREN: {
    lex_next(&ps->lx);
    struct node *e = parse_expr(ps);
    expect(ps, T_RPAREN);
    return e;
  }
  default:
    fatal(t.line, "expected an expression, found %s", tok_name(t.kind));
  }
}

static struct node *parse_unary(struct parser *ps)
{
  int line = ps->lx.cur.line;
  if (accept(ps, T_MINUS))
    return new_node(N_UNARY, T_MINUS, parse_unary(ps), NULL, NULL, 0, NULL, line);
  if (accept(ps, T_NOT))
    return new_node(N_UNARY, T_NOT, parse_unary(ps), NULL, NULL, 0, NULL, line);
  return parse_primary(ps);
}

/* One table-driven level per precedence: (lowest) || && equality relational
   additive multiplicative (highest). */
static const enum tok levels[][5] = {
  {T_OR, T_EOF},
  {T_AND, T_EOF},
  {T_EQ, T_NE, T_EOF},
  {T_LT, T_LE, T_GT, T_GE, T_EOF},
  {T_PLUS, T_MINUS, T_EOF},
  {T_STAR, T_SLASH, T_PERCENT, T_EOF},
};
#define NLEVELS (int)(sizeof levels / sizeof levels[0])

static int in_level(int level, enum tok t)
{
  for (const enum tok *p = levels[level]; *p != T_EOF; p++)
    if (*p == t)
      return 1;
  return 0;
}

static struct node *parse_binary(struct parser *ps, int level)
{
  if (level == NLEVELS)
    return parse_unary(ps);
  struct node *left = parse_binary(ps, level + 1);
  while (in_level(level, peek(ps))) {
    enum tok op = peek(ps);
    int line = ps->lx.cur.line;
    lex_next(&ps->lx);
    struct node *right = parse_binary(ps, level + 1);
    left = new_node(N_BINARY, op, left, right, NULL, 0, NULL, line);
  }
  return left;
}

__attribute__((noinline))
static struct node *parse_expr(struct parser *ps)
{
  if (++ps->depth > 2000)
    fatal(ps->lx.cur.line, "expression nested too deeply");
  struct node *e = parse_binary(ps, 0);
  ps->depth--;
  return e;
}

static struct node *parse_stmt(struct parser *ps)
{
  int line = ps->lx.cur.line;
  struct node *n;
  switch (peek(ps)) {
  case T_LET: {
    lex_next(&ps->lx);
    const char *name = expect_name(ps);
    expect(ps, T_ASSIGN);
    n = new_node(N_LET, T_LET, parse_expr(ps), NULL, NULL, 0, name, line);
    expect(ps, T_SEMI);
    return n;
  }
  case T_PRINT: {
    lex_next(&ps->lx);
    struct node *args = NULL, **tail = &args;
    int argc = 0;
    do {
      *tail = parse_expr(ps);
      tail = &(*tail)->next;
      argc++;
    } while (accept(ps, T_COMMA));
    expect(ps, T_SEMI);
    return new_node(N_PRINT, T_PRINT, args, NULL, NULL, argc, NULL, line);
  }
  case T_IF: {
    lex_next(&ps->lx);
    struct node *cond = parse_expr(ps);
    struct node *then = parse_block(ps), *els = NULL;
    if (accept(ps, T_ELSE))
      els = peek(ps) == T_IF ? parse_stmt(ps) : parse_block(ps);
    return new_node(N_IF, T_IF, cond, then, els, 0, NULL, line);
  }
  case T_WHILE: {
    lex_next(&ps->lx);
    struct node *cond = parse_expr(ps);
    return new_node(N_WHILE, T_WHILE, cond, parse_block(ps), NULL, 0, NULL, line);
  }
  case T_RETURN:
    lex_next(&ps->lx);
    n = new_node(N_RETURN, T_RETURN, parse_expr(ps), NULL, NULL, 0, NULL, line);
    expect(ps, T_SEMI);
    return n;
  case T_LBRACE:
    return parse_block(ps);
  case T_NAME: {
    struct node *e = parse_expr(ps);
    if (e->kind == N_VAR && accept(ps, T_ASSIGN))
      e = new_node(N_ASSIGN, T_ASSIGN, parse_expr(ps), NULL, NULL, 0, e->name, line);
    else
      e = new_node(N_EXPR, T_EOF, e, NULL, NULL, 0, NULL, line);
    expect(ps, T_SEMI);
    return e;
  }
  default:
    fatal(line, "expected a statement, found %s", tok_name(peek(ps)));
  }
}

static struct node *parse_block(struct parser *ps)
{
  int line = ps->lx.cur.line;
  struct node *body = NULL, **tail = &body;
  expect(ps, T_LBRACE);
  while (peek(ps) != T_RBRACE) {
    *tail = parse_stmt(ps);
    tail = &(*tail)->next;
  }
  expect(ps, T_RBRACE);
  return new_node(N_BLOCK, T_LBRACE, body, NULL, NULL, 0, NULL, line);
}

static struct node *parse_fn(struct parser *ps)
{
  int line = ps->lx.cur.line;
  expect(ps, T_FN);
  const char *name = expect_name(ps);
  const char *params[16];
  int n = 0;
  expect(ps, T_LPAREN);
  if (peek(ps) != T_RPAREN) {
    do {
      if (n == 16)
        fatal(line, "function %s: too many parameters", name);
      params[n++] = expect_name(ps);
    } while (accept(ps, T_COMMA));
  }
  expect(ps, T_RPAREN);
  struct node *f = new_node(N_FN, T_FN, parse_block(ps), NULL, NULL, 0, name, line);
  f->nparams = n;
  f->params = arena_alloc(sizeof *f->params * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++)
    f->params[i] = params[i];
  return f;
}

struct node *parse_program(const char *src)
{
  struct parser ps = {.depth = 0};
  struct node *prog = NULL, **tail = &prog;
  lex_init(&ps.lx, src);
  while (peek(&ps) != T_EOF) {
    *tail = peek(&ps) == T_FN ? parse_fn(&ps) : parse_stmt(&ps);
    tail = &(*tail)->next;
  }
  return new_node(N_BLOCK, T_EOF, prog, NULL, NULL, 0, NULL, 1);
}

int ast_depth(const struct node *n)
{
  int best = 0;
  for (; n; n = n->next) {
    int d = 1 + ast_depth(n->a);
    int db = 1 + ast_depth(n->b), dc = 1 + ast_depth(n->c);
    if (db > d) d = db;
    if (dc > d) d = dc;
    if (d > best) best = d;
  }
  return best;
}

int ast_count(const struct node *n)
{
  int c = 0;
  for (; n; n = n->next)
    c += 1 + ast_count(n->a) + ast_count(n->b) + ast_count(n->c);
  return c;
}
