/* compile.c: AST to stack bytecode, one struct function per script
   function plus "<main>" for the top-level statements. */
#include "demo.h"

#include <string.h>

struct compiler {
  struct program *prog;
  struct function *fn;  /* function being compiled */
  int is_main;
  int sp, maxstack;     /* operand stack depth within one statement */
};

static const char *const op_names[OP_COUNT] = {
  "const", "str", "load", "store", "gload", "gstore",
  "add", "sub", "mul", "div", "mod", "neg", "not",
  "eq", "ne", "lt", "le", "gt", "ge",
  "jmp", "jz", "jnz", "call", "ret", "print", "pop", "halt",
};

static int stack_effect(enum op op, int argc)
{
  switch (op) {
  case OP_CONST: case OP_LOAD: case OP_GLOAD: return 1;
  case OP_STR: case OP_JMP: case OP_NEG: case OP_NOT: case OP_HALT: return 0;
  case OP_CALL: return 1 - argc;
  case OP_PRINT: return -argc;
  default: return -1;
  }
}

static int emit(struct compiler *cc, enum op op, int argc, int32_t arg,
                int64_t imm, int line)
{
  struct function *f = cc->fn;
  if (f->ncode == f->capcode) {
    int cap = f->capcode ? f->capcode * 2 : 32;
    struct insn *code = arena_alloc(sizeof *code * (size_t)cap);
    if (f->ncode)
      memcpy(code, f->code, sizeof *code * (size_t)f->ncode);
    f->code = code;
    f->capcode = cap;
  }
  struct insn *in = &f->code[f->ncode];
  in->op = (uint8_t)op;
  in->argc = (uint8_t)argc;
  in->arg = arg;
  in->imm = imm;
  in->line = line;
  cc->sp += stack_effect(op, argc);
  if (cc->sp > cc->maxstack)
    cc->maxstack = cc->sp;
  return f->ncode++;
}

static void patch(struct compiler *cc, int at)
{
  cc->fn->code[at].arg = cc->fn->ncode;
}

static int find_name(const char *const *names, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (names[i] == name) /* interned */
      return i;
  return -1;
}

static int add_name(const char ***names, int *n, const char *name)
{
  const char **grown = arena_alloc(sizeof *grown * (size_t)(*n + 1));
  if (*n)
    memcpy(grown, *names, sizeof *grown * (size_t)*n);
  grown[*n] = name;
  *names = grown;
  return (*n)++;
}

int find_function(const struct program *p, const char *name)
{
  for (int i = 0; i < p->nfuncs; i++)
    if (strcmp(p->funcs[i]->name, name) == 0)
      return i;
  return -1;
}

static void compile_expr(struct compiler *cc, const struct node *n);

static void compile_load(struct compiler *cc, const struct node *n)
{
  int i = cc->is_main ? -1 : find_name(cc->fn->locals, cc->fn->nlocals, n->name);
  if (i >= 0) {
    emit(cc, OP_LOAD, 0, i, 0, n->line);
    return;
  }
  i = find_name(cc->prog->globals, cc->prog->nglobals, n->name);
  if (i < 0)
    fatal(n->line, "undefined variable '%s'", n->name);
  emit(cc, OP_GLOAD, 0, i, 0, n->line);
}

static void compile_logic(struct compiler *cc, const struct node *n)
{
  enum op jump = n->op == T_AND ? OP_JZ : OP_JNZ;
  compile_expr(cc, n->a);
  int j1 = emit(cc, jump, 0, 0, 0, n->line);
  compile_expr(cc, n->b);
  int j2 = emit(cc, jump, 0, 0, 0, n->line);
  emit(cc, OP_CONST, 0, 0, n->op == T_AND, n->line);
  int j3 = emit(cc, OP_JMP, 0, 0, 0, n->line);
  patch(cc, j1);
  patch(cc, j2);
  emit(cc, OP_CONST, 0, 0, n->op != T_AND, n->line);
  patch(cc, j3);
}

static void compile_expr(struct compiler *cc, const struct node *n)
{
  static const enum op binops[] = {
    [T_PLUS] = OP_ADD, [T_MINUS] = OP_SUB, [T_STAR] = OP_MUL,
    [T_SLASH] = OP_DIV, [T_PERCENT] = OP_MOD, [T_EQ] = OP_EQ, [T_NE] = OP_NE,
    [T_LT] = OP_LT, [T_LE] = OP_LE, [T_GT] = OP_GT, [T_GE] = OP_GE,
  };
  switch (n->kind) {
  case N_NUM:
    emit(cc, OP_CONST, 0, 0, n->num, n->line);
    return;
  case N_VAR:
    compile_load(cc, n);
    return;
  case N_UNARY:
    compile_expr(cc, n->a);
    emit(cc, n->op == T_MINUS ? OP_NEG : OP_NOT, 0, 0, 0, n->line);
    return;
  case N_BINARY:
    if (n->op == T_AND || n->op == T_OR) {
      compile_logic(cc, n);
      return;
    }
    compile_expr(cc, n->a);
    compile_expr(cc, n->b);
    emit(cc, binops[n->op], 0, 0, 0, n->line);
    return;
  case N_CALL: {
    int fi = find_function(cc->prog, n->name);
    if (fi < 0)
      fatal(n->line, "undefined function '%s'", n->name);
    if (cc->prog->funcs[fi]->nparams != n->num)
      fatal(n->line, "%s expects %d arguments, got %d", n->name,
            cc->prog->funcs[fi]->nparams, (int)n->num);
    for (const struct node *a = n->a; a; a = a->next)
      compile_expr(cc, a);
    emit(cc, OP_CALL, (int)n->num, fi, 0, n->line);
    return;
  }
  case N_STR:
    fatal(n->line, "a string can only be printed");
  default:
    fatal(n->line, "not an expression (node kind %d)", (int)n->kind);
  }
}

static void compile_store(struct compiler *cc, const char *name, int declare, int line)
{
  if (cc->is_main) {
    int g = find_name(cc->prog->globals, cc->prog->nglobals, name);
    if (g < 0 && declare)
      g = add_name(&cc->prog->globals, &cc->prog->nglobals, name);
    if (g < 0)
      fatal(line, "assignment to undefined variable '%s'", name);
    emit(cc, OP_GSTORE, 0, g, 0, line);
    return;
  }
  int l = find_name(cc->fn->locals, cc->fn->nlocals, name);
  if (l < 0 && declare)
    l = add_name(&cc->fn->locals, &cc->fn->nlocals, name);
  if (l >= 0) {
    emit(cc, OP_STORE, 0, l, 0, line);
    return;
  }
  int g = find_name(cc->prog->globals, cc->prog->nglobals, name);
  if (g < 0)
    fatal(line, "assignment to undefined variable '%s'", name);
  emit(cc, OP_GSTORE, 0, g, 0, line);
}

static void compile_stmts(struct compiler *cc, const struct node *n);

static void compile_stmt(struct compiler *cc, const struct node *n)
{
  cc->sp = 0;
  switch (n->kind) {
  case N_LET:
  case N_ASSIGN:
    compile_expr(cc, n->a);
    compile_store(cc, n->name, n->kind == N_LET, n->line);
    return;
  case N_EXPR:
    compile_expr(cc, n->a);
    emit(cc, OP_POP, 0, 0, 0, n->line);
    return;
  case N_PRINT: {
    int first = 1;
    for (const struct node *a = n->a; a; a = a->next, first = 0) {
      if (a->kind == N_STR) {
        const char ***s = &cc->fn->strings;
        int si = add_name(s, &cc->fn->nstrings, a->name);
        emit(cc, OP_STR, 0, si, !first, a->line);
      } else {
        compile_expr(cc, a);
        emit(cc, OP_PRINT, 1, 0, !first, a->line);
      }
    }
    emit(cc, OP_PRINT, 0, 0, 0, n->line);
    return;
  }
  case N_IF: {
    compile_expr(cc, n->a);
    int jz = emit(cc, OP_JZ, 0, 0, 0, n->line);
    compile_stmts(cc, n->b);
    if (n->c) {
      int jmp = emit(cc, OP_JMP, 0, 0, 0, n->line);
      patch(cc, jz);
      compile_stmts(cc, n->c);
      patch(cc, jmp);
    } else {
      patch(cc, jz);
    }
    return;
  }
  case N_WHILE: {
    int top = cc->fn->ncode;
    compile_expr(cc, n->a);
    int jz = emit(cc, OP_JZ, 0, 0, 0, n->line);
    compile_stmts(cc, n->b);
    emit(cc, OP_JMP, 0, top, 0, n->line);
    patch(cc, jz);
    return;
  }
  case N_RETURN:
    if (cc->is_main)
      fatal(n->line, "return outside a function");
    compile_expr(cc, n->a);
    emit(cc, OP_RET, 0, 0, 0, n->line);
    return;
  case N_BLOCK:
    compile_stmts(cc, n->a);
    return;
  default:
    fatal(n->line, "not a statement (node kind %d)", (int)n->kind);
  }
}

static void compile_stmts(struct compiler *cc, const struct node *n)
{
  if (n && n->kind == N_BLOCK && n->op == T_LBRACE)
    n = n->a;
  for (; n; n = n->next)
    compile_stmt(cc, n);
}

static struct function *new_function(struct program *p, const char *name)
{
  struct function *f = arena_alloc(sizeof *f);
  f->name = name;
  struct function **grown = arena_alloc(sizeof *grown * (size_t)(p->nfuncs + 1));
  if (p->nfuncs)
    memcpy(grown, p->funcs, sizeof *grown * (size_t)p->nfuncs);
  grown[p->nfuncs++] = f;
  p->funcs = grown;
  return f;
}

struct program *compile_program(struct node *ast)
{
  struct program *p = arena_alloc(sizeof *p);
  struct compiler cc = {.prog = p};
  new_function(p, "<main>");
  /* Declare every function first so calls can be resolved in any order. */
  for (struct node *n = ast->a; n; n = n->next) {
    if (n->kind != N_FN)
      continue;
    if (find_function(p, n->name) >= 0)
      fatal(n->line, "function '%s' defined twice", n->name);
    struct function *f = new_function(p, n->name);
    f->nparams = n->nparams;
    for (int i = 0; i < n->nparams; i++)
      add_name(&f->locals, &f->nlocals, n->params[i]);
  }
  /* Top-level statements first, so that globals exist before the bodies
     that use them are compiled. */
  cc.fn = p->funcs[0];
  cc.is_main = 1;
  for (struct node *n = ast->a; n; n = n->next)
    if (n->kind != N_FN)
      compile_stmt(&cc, n);
  emit(&cc, OP_HALT, 0, 0, 0, 0);
  p->funcs[0]->maxstack = cc.maxstack;

  cc.is_main = 0;
  for (struct node *n = ast->a; n; n = n->next) {
    if (n->kind != N_FN)
      continue;
    cc.fn = p->funcs[find_function(p, n->name)];
    cc.sp = cc.maxstack = 0;
    compile_stmts(&cc, n->a);
    cc.sp = 0;
    emit(&cc, OP_CONST, 0, 0, 0, n->line);
    emit(&cc, OP_RET, 0, 0, 0, n->line);
    cc.fn->maxstack = cc.maxstack;
  }
  return p;
}

void disassemble(const struct function *f, struct outbuf *ob)
{
  out_printf(ob, "function %s (%d params, %d locals, %d insns)\n", f->name,
             f->nparams, f->nlocals, f->ncode);
  for (int i = 0; i < f->ncode; i++) {
    const struct insn *in = &f->code[i];
    char operand[64] = "";
    switch (in->op) {
    case OP_CONST: snprintf(operand, sizeof operand, "%lld", (long long)in->imm); break;
    case OP_STR: snprintf(operand, sizeof operand, "\"%.40s\"", f->strings[in->arg]); break;
    case OP_LOAD: case OP_STORE: snprintf(operand, sizeof operand, "%.40s", f->locals[in->arg]); break;
    case OP_GLOAD: case OP_GSTORE: snprintf(operand, sizeof operand, "g%d", in->arg); break;
    case OP_JMP: case OP_JZ: case OP_JNZ: snprintf(operand, sizeof operand, "-> %d", in->arg); break;
    case OP_CALL: snprintf(operand, sizeof operand, "f%d/%d", in->arg, in->argc); break;
    case OP_PRINT: snprintf(operand, sizeof operand, "%d", in->argc); break;
    default: break;
    }
    if (operand[0])
      out_printf(ob, "  %4d  line %-3d %-6s %s", i, in->line, op_names[in->op], operand);
    else
      out_printf(ob, "  %4d  line %-3d %s", i, in->line, op_names[in->op]);
    out_printf(ob, "\n");
  }
}
