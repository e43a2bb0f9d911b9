/* lexer.c: turns script text into tokens. */
#include "demo.h"

#include <ctype.h>
#include <string.h>

static const struct {
  const char *word;
  enum tok kind;
} keywords[] = {
  {"let", T_LET}, {"fn", T_FN}, {"if", T_IF}, {"else", T_ELSE},
  {"while", T_WHILE}, {"return", T_RETURN}, {"print", T_PRINT},
};

static const char *const tok_names[] = {
  "end of input", "number", "name", "string",
  "'let'", "'fn'", "'if'", "'else'", "'while'", "'return'", "'print'",
  "'('", "')'", "'{'", "'}'", "','", "';'",
  "'='", "'+'", "'-'", "'*'", "'/'", "'%'",
  "'=='", "'!='", "'<'", "'<='", "'>'", "'>='", "'&&'", "'||'", "'!'",
};

const char *tok_name(enum tok t)
{
  return (unsigned)t < sizeof tok_names / sizeof tok_names[0] ? tok_names[t]
                                                               : "?";
}

void lex_init(struct lexer *lx, const char *src)
{
  lx->src = lx->p = src;
  lx->line = 1;
  lex_next(lx);
}

static void skip_space(struct lexer *lx)
{
  for (;;) {
    char c = *lx->p;
    if (c == '\n') {
      lx->line++;
      lx->p++;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      lx->p++;
    } else if (c == '#') {
      while (*lx->p && *lx->p != '\n')
        lx->p++;
    } else {
      return;
    }
  }
}

static enum tok two(struct lexer *lx, char second, enum tok yes, enum tok no)
{
  if (lx->p[1] == second) {
    lx->p += 2;
    return yes;
  }
  lx->p++;
  return no;
}

void lex_next(struct lexer *lx)
{
  struct token *t = &lx->cur;
  skip_space(lx);
  t->line = lx->line;
  t->text = NULL;
  t->num = 0;
  const char *s = lx->p;
  char c = *s;

  if (c == '\0') {
    t->kind = T_EOF;
    return;
  }
  if (isdigit((unsigned char)c)) {
    int64_t v = 0;
    while (isdigit((unsigned char)*lx->p)) {
      v = v * 10 + (*lx->p - '0');
      lx->p++;
    }
    t->kind = T_NUM;
    t->num = v;
    return;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    while (isalnum((unsigned char)*lx->p) || *lx->p == '_')
      lx->p++;
    size_t len = (size_t)(lx->p - s);
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
      if (strlen(keywords[i].word) == len && memcmp(keywords[i].word, s, len) == 0) {
        t->kind = keywords[i].kind;
        return;
      }
    }
    t->kind = T_NAME;
    t->text = intern(s, len);
    return;
  }
  if (c == '"') {
    const char *e = strchr(s + 1, '"');
    if (__builtin_expect(!e, 0))
      fatal(lx->line, "unterminated string");
    t->kind = T_STR;
    t->text = intern(s + 1, (size_t)(e - s - 1));
    lx->p = e + 1;
    return;
  }
  switch (c) {
  case '(': t->kind = T_LPAREN; break;
  case ')': t->kind = T_RPAREN; break;
  case '{': t->kind = T_LBRACE; break;
  case '}': t->kind = T_RBRACE; break;
  case ',': t->kind = T_COMMA; break;
  case ';': t->kind = T_SEMI; break;
  case '+': t->kind = T_PLUS; break;
  case '-': t->kind = T_MINUS; break;
  case '*': t->kind = T_STAR; break;
  case '/': t->kind = T_SLASH; break;
  case '%': t->kind = T_PERCENT; break;
  case '=': t->kind = two(lx, '=', T_EQ, T_ASSIGN); return;
  case '!': t->kind = two(lx, '=', T_NE, T_NOT); return;
  case '<': t->kind = two(lx, '=', T_LE, T_LT); return;
  case '>': t->kind = two(lx, '=', T_GE, T_GT); return;
  case '&':
    if (s[1] != '&')
      fatal(lx->line, "expected '&&'");
    lx->p += 2;
    t->kind = T_AND;
    return;
  case '|':
    if (s[1] != '|')
      fatal(lx->line, "expected '||'");
    lx->p += 2;
    t->kind = T_OR;
    return;
  default:
    fatal(lx->line, "unexpected character '%c'", c);
  }
  lx->p++;
}
