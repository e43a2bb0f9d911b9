/* vm.c: the bytecode interpreter.  Every script call is a C call of
   vm_run, whose frame (locals and operand stack) is carved out with
   alloca, so deep script recursion is deep C recursion. */
#include "demo.h"

#include <alloca.h>
#include <inttypes.h>
#include <string.h>

#define MAX_DEPTH 20000

__attribute__((cold, noinline))
static void arith_error(const struct function *f, const struct insn *in,
                        int64_t a, int64_t b)
{
  fatal(in->line, "in %s: %" PRId64 " %s %" PRId64 ": division error", f->name,
        a, in->op == OP_DIV ? "/" : "%", b);
}

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* Leaving a function: its steps counted, one call level up.  */
static void vm_leave(struct vm *vm, struct function *f, long steps)
{
  f->steps += steps;
  vm->steps += steps;
  vm->depth--;
}

/* OP_PRINT and OP_STR: the new stack top.  */
static int64_t *vm_print(struct vm *vm, const struct function *f, const struct insn *in,
                         int64_t *sp)
{
  if (in->op == OP_STR)
    out_printf(vm->out, "%s%s", in->imm ? " " : "", f->strings[in->arg]);
  else if (in->argc == 0)
    out_printf(vm->out, "\n");
  else
    out_printf(vm->out, "%s%" PRId64, in->imm ? " " : "", *--sp);
  return sp;
}

int64_t vm_run(struct vm *vm, int func, int argc, const int64_t *argv)
{
  struct function *f = vm->prog->funcs[func];
  f->calls++;
  if (++vm->depth > vm->max_depth) {
    vm->max_depth = vm->depth;
    if (__builtin_expect(vm->depth > MAX_DEPTH, 0))
      fatal(0, "in %s: call depth over %d", f->name, MAX_DEPTH);
  }
  size_t slots = (size_t)f->nlocals + (size_t)f->maxstack + 1;
  int64_t *locals = alloca(slots * sizeof *locals);
  memset(locals, 0, slots * sizeof *locals);
  if (argc > 0)
    memcpy(locals, argv, (size_t)argc * sizeof *locals);
  int64_t *sp = locals + f->nlocals;
  int64_t *globals = vm->globals;
  const struct insn *code = f->code;
  long steps = 0;
  int pc = 0;

  for (;;) {
    const struct insn *in = &code[pc++];
    int64_t a, b;
    steps++;
    switch ((enum op)in->op) {
    case OP_CONST: *sp++ = in->imm; break;
    case OP_LOAD: *sp++ = locals[in->arg]; break;
    case OP_STORE: locals[in->arg] = *--sp; break;
    case OP_GLOAD: *sp++ = globals[in->arg]; break;
    case OP_GSTORE: globals[in->arg] = *--sp; break;
    case OP_ADD: b = *--sp; sp[-1] = wrap_add(sp[-1], b); break;
    case OP_SUB: b = *--sp; sp[-1] = wrap_sub(sp[-1], b); break;
    case OP_MUL: b = *--sp; sp[-1] = wrap_mul(sp[-1], b); break;
    case OP_DIV:
    case OP_MOD:
      b = *--sp;
      a = sp[-1];
      if (__builtin_expect(b == 0 || (a == INT64_MIN && b == -1), 0))
        arith_error(f, in, a, b);
      sp[-1] = in->op == OP_DIV ? a / b : a % b;
      break;
    case OP_NEG: sp[-1] = wrap_sub(0, sp[-1]); break;
    case OP_NOT: sp[-1] = !sp[-1]; break;
    case OP_EQ: b = *--sp; sp[-1] = sp[-1] == b; break;
    case OP_NE: b = *--sp; sp[-1] = sp[-1] != b; break;
    case OP_LT: b = *--sp; sp[-1] = sp[-1] < b; break;
    case OP_LE: b = *--sp; sp[-1] = sp[-1] <= b; break;
    case OP_GT: b = *--sp; sp[-1] = sp[-1] > b; break;
    case OP_GE: b = *--sp; sp[-1] = sp[-1] >= b; break;
    case OP_JMP: pc = in->arg; break;
    case OP_JZ: if (*--sp == 0) pc = in->arg; break;
    case OP_JNZ: if (*--sp != 0) pc = in->arg; break;
    case OP_CALL:
      sp -= in->argc;
      a = vm_run(vm, in->arg, in->argc, sp);
      *sp++ = a;
      break;
    case OP_RET:
      vm_leave(vm, f, steps);
      return sp[-1];
    case OP_PRINT:
    case OP_STR: sp = vm_print(vm, f, in, sp); break;
    case OP_POP: sp--; break;
    case OP_HALT:
      vm_leave(vm, f, steps);
      return 0;
    default:
      fatal(in->line, "in %s: bad opcode %d at %d", f->name, in->op, pc - 1);
    }
  }
}
