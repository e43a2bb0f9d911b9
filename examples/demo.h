/* demo: a small scripting language — lexer, recursive-descent parser,
   bytecode compiler and stack VM.  It is the example gorc builds to show
   its records, so it deliberately has the shapes real C code has:
   recursion, callbacks through qsort, varargs, a big local buffer, alloca,
   a cold error path, calls with more than six arguments and deep call
   chains.  Deterministic, no input files. */
#ifndef DEMO_H
#define DEMO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- util.c ---------------------------------------------------------- */

__attribute__((cold, noreturn, format(printf, 2, 3)))
void fatal(int line, const char *fmt, ...);

void *arena_alloc(size_t size);
size_t arena_used(void);
const char *intern(const char *s, size_t len);

/* An output buffer that grows; everything the demo prints goes through one
   so that the output can be checksummed. */
struct outbuf {
  char *data;
  size_t len, cap;
};
__attribute__((format(printf, 2, 3)))
void out_printf(struct outbuf *ob, const char *fmt, ...);
void out_free(struct outbuf *ob);
uint32_t checksum(const char *data, size_t len);

/* ---- lexer.c --------------------------------------------------------- */

enum tok {
  T_EOF, T_NUM, T_NAME, T_STR,
  T_LET, T_FN, T_IF, T_ELSE, T_WHILE, T_RETURN, T_PRINT,
  T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_COMMA, T_SEMI,
  T_ASSIGN, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
  T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_AND, T_OR, T_NOT
};

struct token {
  enum tok kind;
  int line;
  int64_t num;
  const char *text; /* interned, for names and strings */
};

struct lexer {
  const char *src, *p;
  int line;
  struct token cur;
};

void lex_init(struct lexer *lx, const char *src);
void lex_next(struct lexer *lx);
const char *tok_name(enum tok t);

/* ---- parser.c -------------------------------------------------------- */

enum node_kind {
  N_NUM, N_STR, N_VAR, N_BINARY, N_UNARY, N_CALL,
  N_LET, N_ASSIGN, N_PRINT, N_IF, N_WHILE, N_RETURN, N_EXPR, N_BLOCK, N_FN
};

struct node {
  enum node_kind kind;
  enum tok op;
  struct node *a, *b, *c;  /* children: operands, condition/then/else, ... */
  struct node *next;       /* next statement or argument */
  int64_t num;
  const char *name;
  int line;
  int nparams;
  const char **params;
};

struct node *parse_program(const char *src);
int ast_depth(const struct node *n);
int ast_count(const struct node *n);

/* ---- compile.c ------------------------------------------------------- */

enum op {
  OP_CONST, OP_STR, OP_LOAD, OP_STORE, OP_GLOAD, OP_GSTORE,
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_NEG, OP_NOT,
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
  OP_JMP, OP_JZ, OP_JNZ, OP_CALL, OP_RET, OP_PRINT, OP_POP, OP_HALT,
  OP_COUNT
};

struct insn {
  uint8_t op;
  uint8_t argc;
  int32_t arg;
  int64_t imm;
  int line;
};

struct function {
  const char *name;
  int nparams, nlocals, maxstack;
  const char **locals;
  struct insn *code;
  int ncode, capcode;
  const char **strings;
  int nstrings;
  /* filled in by the VM */
  long calls;
  long steps;
};

struct program {
  struct function **funcs;
  int nfuncs;
  const char **globals;
  int nglobals;
};

struct program *compile_program(struct node *ast);
int find_function(const struct program *p, const char *name);
void disassemble(const struct function *f, struct outbuf *ob);

/* ---- vm.c ------------------------------------------------------------ */

struct vm {
  struct program *prog;
  int64_t *globals;
  struct outbuf *out;
  int depth, max_depth;
  long steps;
};

int64_t vm_run(struct vm *vm, int func, int argc, const int64_t *argv);

/* ---- report.c -------------------------------------------------------- */

void report_profile(const struct program *p, struct outbuf *ob, int top);
void report_histogram(const struct program *p, struct outbuf *ob,
                      int width, int height, char fill, char empty,
                      int show_zero, const char *title);

#endif
