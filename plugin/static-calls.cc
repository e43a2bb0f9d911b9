/* gorc plugin: static calls (-fplugin-arg-gorc-static-calls).

   A pointer-to-function variable marked __attribute__((gorc_static_call))
   (GORC_STATIC_CALL in runtime/include/gorc/static_call.h) is called
   through a trampoline instead of an indirect call:
     - the attribute is always accepted (so headers compile with the
       plugin loaded but the option off) and always validated: a variable
       with static storage, of pointer-to-function type, not const, not
       thread-local;
     - with the option, a GIMPLE pass right after "ssa" (it runs at every
       -O level, before any inlining or IPA) turns `_1 = var; _1 (args)`
       into `__gorc_sc_tramp_<var> (args)`, an extern hidden function of
       the pointed-to type;
     - with the option, stores to the variable and taking its address are
       errors (checked on the GENERIC body of each function, before
       any folding, and on every initializer),
       except `&var` as the first argument of gorc_static_call_set, which
       is what gorc_static_call_update expands to;
     - at the end of the unit that defines a marked variable, its
       trampoline, a descriptor and the module note are printed as
       assembly (docs/STATIC_CALLS.md), plus records (and CFI when the
       unit has CFI) for the trampoline: entry state throughout.
   With -flto the rewrite happens at compile time and the trampolines are
   printed by the link-time unit that holds the definition.  */

#include "records.h"
#include "arch.h"
#include "tree-ssa-alias.h"
#include "gimple-expr.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "cgraph.h"
#include "varasm.h"
#include "static-calls.h"
#include "gorc/static_call_desc.h"

#define SC_ATTR "gorc_static_call"
#define SC_SET_FN "gorc_static_call_set"

static bool sc_enabled;

static bool sc_marked(tree t)
{
  return t && VAR_P(t) && lookup_attribute(SC_ATTR, DECL_ATTRIBUTES(t)) != NULL_TREE;
}

/* ---- the attribute ---- */

static void sc_hint_marking(location_t loc)
{
  inform(loc, "mark a variable of pointer-to-function type with static storage, "
         "e.g. %<int (*fn)(int) GORC_STATIC_CALL = f;%>");
}

static tree sc_handle_attr(tree *node, tree name, tree args, int flags, bool *no_add)
{
  tree decl = *node;
  location_t loc = DECL_P(decl) ? DECL_SOURCE_LOCATION(decl) : input_location;
  const char *why = NULL;

  if (args)
    why = "takes no arguments";
  else if (!VAR_P(decl))
    why = "applies only to variables";
  else if (TREE_CODE(TREE_TYPE(decl)) != POINTER_TYPE
           || !FUNC_OR_METHOD_TYPE_P(TREE_TYPE(TREE_TYPE(decl))))
    why = "needs a variable of pointer-to-function type";
  else if (!TREE_STATIC(decl) && !DECL_EXTERNAL(decl))
    why = "needs a variable with static storage duration";
  else if (DECL_THREAD_LOCAL_P(decl))
    why = "cannot be used on a thread-local variable";
  else if (TYPE_READONLY(TREE_TYPE(decl)))
    why = "cannot be used on a const variable (gorc_static_call_update writes it)";
  if (why) {
    if (DECL_P(decl))
      error_at(loc, "%qE attribute on %qD %s", name, decl, why);
    else
      error_at(loc, "%qE attribute %s", name, why);
    sc_hint_marking(loc);
    *no_add = true;
    return NULL_TREE;
  }
  if (sc_enabled) {
    /* The descriptor names the variable from assembly only: keep it, and
       keep GCC from treating it as read-only (force_output).  */
    DECL_PRESERVE_P(decl) = 1;
    TREE_USED(decl) = 1;
  }
  return NULL_TREE;
}

/* min 0, max 1: the one argument is never the user's (the handler
   rejects it); the pass stores the trampoline's name there, so that
   -flto's link-time unit prints the name the compile-time rewrite used.  */
static struct attribute_spec sc_attr_spec = {
  SC_ATTR, 0, 1, true, false, false, false, sc_handle_attr, NULL
};

static void sc_register_attributes(void *, void *)
{
  register_attribute(&sc_attr_spec);
}

/* ---- the trampoline's name and declaration ---- */

/* __gorc_sc_tramp_<asm name>; for a variable local to its unit also a
   hash of the unit's file name, so that two units'
   `static fp` do not share a name (nor do they under -flto).  */
static const char *sc_tramp_name(tree var)
{
  tree attr = lookup_attribute(SC_ATTR, DECL_ATTRIBUTES(var));
  if (TREE_VALUE(attr) && TREE_CODE(TREE_VALUE(TREE_VALUE(attr))) == STRING_CST)
    return TREE_STRING_POINTER(TREE_VALUE(TREE_VALUE(attr)));

  const char *asm_name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(var));
  if (asm_name[0] == '*')
    asm_name++;
  char *name;
  if (TREE_PUBLIC(var) || DECL_EXTERNAL(var)) {
    name = concat(GORC_SC_TRAMP_PREFIX, asm_name, NULL);
  } else {
    /* Deterministic (reproducible builds): the source file name as
       given on the command line.  */
    unsigned h = crc32_string(0, main_input_filename ? main_input_filename : "");
    char suffix[16];
    snprintf(suffix, sizeof suffix, ".%08x", h);
    name = concat(GORC_SC_TRAMP_PREFIX, asm_name, suffix, NULL);
  }
  tree s = build_string(strlen(name) + 1, name);
  free(name);
  TREE_VALUE(attr) = tree_cons(NULL_TREE, s, NULL_TREE);
  return TREE_STRING_POINTER(s);
}

static tree sc_tramp_decl(tree var)
{
  tree id = get_identifier(sc_tramp_name(var));
  symtab_node *n = symtab_node::get_for_asmname(id);
  if (n && TREE_CODE(n->decl) == FUNCTION_DECL)
    return n->decl;
  tree decl = build_decl(DECL_SOURCE_LOCATION(var), FUNCTION_DECL, id,
                         TREE_TYPE(TREE_TYPE(var)));
  DECL_EXTERNAL(decl) = 1;
  TREE_PUBLIC(decl) = 1;
  DECL_ARTIFICIAL(decl) = 1;
  DECL_IGNORED_P(decl) = 1;
  DECL_VISIBILITY(decl) = VISIBILITY_HIDDEN;
  DECL_VISIBILITY_SPECIFIED(decl) = 1;
  cgraph_node::get_create(decl);
  return decl;
}

/* ---- misuse diagnostics (with the option) ---- */

static location_t sc_last_error_loc = UNKNOWN_LOCATION;

static bool sc_repeated(location_t loc)
{
  if (loc == sc_last_error_loc && loc != UNKNOWN_LOCATION)
    return true; /* the same expression seen twice (initializer and body) */
  sc_last_error_loc = loc;
  return false;
}

static void sc_misuse(location_t loc, tree var, const char *what)
{
  if (sc_repeated(loc))
    return;
  error_at(loc, "%s static-call variable %qD", what, var);
  inform(loc, "change it only with %<gorc_static_call_update (%D, new_target)%>", var);
}

/* C++: a reference bound to the variable, e.g. by std::function's
   constructor (it takes its argument by reference).  A reference could
   store to the variable, so it is refused like `&var`; the value is what
   such code wants, and a copy of the pointer gives it.  */
static void sc_misuse_reference(location_t loc, tree var)
{
  if (sc_repeated(loc))
    return;
  error_at(loc, "reference bound to static-call variable %qD", var);
  inform(loc, "bind a copy instead, e.g. %<auto fn = %D; std::function<...> f = fn;%> "
         "(%<std::function%> takes its argument by reference); change %qD only with "
         "%<gorc_static_call_update (%D, new_target)%>", var, var, var);
}

/* The marked variable at the base of an lvalue, or NULL.  */
static tree sc_base_var(tree t)
{
  while (handled_component_p(t))
    t = TREE_OPERAND(t, 0);
  return sc_marked(t) ? t : NULL_TREE;
}

static location_t sc_loc(tree t, location_t dflt)
{
  return EXPR_HAS_LOCATION(t) ? EXPR_LOCATION(t) : dflt;
}

static tree sc_check_expr(tree *tp, int *walk_subtrees, void *data)
{
  tree t = *tp;
  location_t dflt = *(location_t *)data;
  tree var;

  switch (TREE_CODE(t)) {
  case MODIFY_EXPR:
  case INIT_EXPR:
  case PREINCREMENT_EXPR:
  case PREDECREMENT_EXPR:
  case POSTINCREMENT_EXPR:
  case POSTDECREMENT_EXPR:
    if ((var = sc_base_var(TREE_OPERAND(t, 0))))
      sc_misuse(sc_loc(t, dflt), var, "store to");
    break;
  case ADDR_EXPR:
    if (!(var = sc_base_var(TREE_OPERAND(t, 0))))
      break;
    if (TREE_CODE(TREE_TYPE(t)) == REFERENCE_TYPE)
      sc_misuse_reference(sc_loc(t, dflt), var);
    else
      sc_misuse(sc_loc(t, dflt), var, "address taken of");
    break;
  case NOP_EXPR:
    /* (T &) &var: how the C++ front end binds a reference.  */
    if (TREE_CODE(TREE_TYPE(t)) == REFERENCE_TYPE
        && TREE_CODE(TREE_OPERAND(t, 0)) == ADDR_EXPR
        && (var = sc_base_var(TREE_OPERAND(TREE_OPERAND(t, 0), 0)))) {
      sc_misuse_reference(sc_loc(t, dflt), var);
      *walk_subtrees = 0;
    }
    break;
  case CALL_EXPR: {
    tree fn = get_callee_fndecl(t);
    if (!fn || !DECL_NAME(fn) || strcmp(IDENTIFIER_POINTER(DECL_NAME(fn)), SC_SET_FN) != 0
        || call_expr_nargs(t) < 1)
      break;
    /* gorc_static_call_set (&var, fn): the one place &var is allowed.  */
    tree arg = CALL_EXPR_ARG(t, 0);
    STRIP_NOPS(arg);
    if (TREE_CODE(arg) == ADDR_EXPR) {
      tree base = TREE_OPERAND(arg, 0);
      if (VAR_P(base) && !sc_marked(base)) {
        error_at(sc_loc(t, dflt), "%<gorc_static_call_update%> on %qD, which is not "
                 "marked %<GORC_STATIC_CALL%>", base);
      } else if (sc_marked(base)) {
        for (int i = 1; i < call_expr_nargs(t); i++)
          walk_tree_without_duplicates(&CALL_EXPR_ARG(t, i), sc_check_expr, data);
        *walk_subtrees = 0;
      }
    }
    break;
  }
  default:
    break;
  }
  return NULL_TREE;
}

static void sc_pre_genericize(void *gcc_data, void *)
{
  tree fndecl = (tree)gcc_data;
  if (!fndecl || TREE_CODE(fndecl) != FUNCTION_DECL || !DECL_SAVED_TREE(fndecl))
    return;
  location_t dflt = DECL_SOURCE_LOCATION(fndecl);
  walk_tree_without_duplicates(&DECL_SAVED_TREE(fndecl), sc_check_expr, &dflt);
}

static void sc_finish_decl(void *gcc_data, void *)
{
  tree decl = (tree)gcc_data;
  if (!decl || !VAR_P(decl) || !DECL_INITIAL(decl) || DECL_INITIAL(decl) == error_mark_node)
    return;
  location_t dflt = DECL_SOURCE_LOCATION(decl);
  walk_tree_without_duplicates(&DECL_INITIAL(decl), sc_check_expr, &dflt);
}

/* ---- the rewrite ---- */

static unsigned int sc_execute(function *fun)
{
  basic_block bb;
  bool changed = false;

  FOR_EACH_BB_FN(bb, fun) {
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
      if (!call || gimple_call_internal_p(call) || gimple_call_fndecl(call))
        continue;
      tree fn = gimple_call_fn(call);
      tree var = fn;
      gimple *def = NULL;
      if (TREE_CODE(fn) == SSA_NAME) {
        def = SSA_NAME_DEF_STMT(fn);
        if (!def || !gimple_assign_single_p(def))
          continue;
        var = gimple_assign_rhs1(def);
      }
      if (!sc_marked(var))
        continue;
      /* The call's type must be the variable's (no cast at the call).  */
      tree ftype = TREE_TYPE(TREE_TYPE(var));
      if (gimple_call_fntype(call)
          && !useless_type_conversion_p(gimple_call_fntype(call), ftype))
        continue;
      gimple_call_set_fndecl(call, sc_tramp_decl(var));
      update_stmt(call);
      changed = true;
      if (def && has_zero_uses(fn)) {
        gimple_stmt_iterator dgsi = gsi_for_stmt(def);
        gsi_remove(&dgsi, true);
        release_defs(def);
      }
    }
  }
  if (changed)
    cgraph_edge::rebuild_edges();
  return 0;
}

/* Not LP64 (x86-64's -m32, -mx32; aarch64's -mabi=ilp32): no
   trampolines, so no rewrite either.  */
static bool sc_gate(function *)
{
  return GORC_ARCH_TARGET_OK();
}

GORC_DEFINE_PASS(static_calls, gimple, "gorc_static_calls", PROP_ssa | PROP_cfg, sc_gate,
                 sc_execute)

/* ---- the trampolines, descriptors and note of the defining unit ---- */

/* Print the initial instruction of VAR's trampoline.  Every state is one
   instruction at the trampoline's first byte (docs/STATIC_CALLS.md), so a
   thread is never in the middle of a sequence when the word changes.  */
static void sc_print_target(FILE *f, tree var, const char *var_label, const char *ret0_label)
{
  tree init = DECL_INITIAL(var);
  if (init)
    STRIP_NOPS(init);
  if (!init || init == error_mark_node || integer_zerop(init)) {
    /* NULL: to the unit's return-0 stub, always as jmp rel32.  */
    fprintf(f, GORC_ARCH_SC_JMP_REL32_LOCAL_FMT, ret0_label);
    return;
  }
  if (TREE_CODE(init) == ADDR_EXPR && TREE_CODE(TREE_OPERAND(init, 0)) == FUNCTION_DECL) {
    tree target = TREE_OPERAND(init, 0);
    mark_decl_referenced(target);
    /* Another section: the assembler always uses rel32 (R_X86_64_PLT32);
       on aarch64 a b (R_AARCH64_JUMP26: the linker adds a veneer if the
       target is beyond +-128 MB).  */
    fputs(GORC_ARCH_SC_JMP_ASM, f);
    assemble_name(f, IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(target)));
    fputc('\n', f);
    return;
  }
  /* Anything else: jump through the variable (its value is the target).  */
  fprintf(f, GORC_ARCH_SC_JMP_VAR_ASM_FMT, var_label);
}

/* One slot-sized piece of code in the trampoline block, from label START
   (a local label) to END: CFI when the unit has CFI, and a records range,
   both the entry state throughout (nothing touches the stack).  */
static void sc_code_range_open(FILE *f, bool cfi)
{
  if (cfi)
    fputs("\t.cfi_startproc\n", f);
}

static void sc_code_range_close(FILE *f, bool cfi, const char *start, const char *end)
{
  fprintf(f, "\t.balign\t%d, %s\n", GORC_ARCH_SC_TRAMP_SIZE, GORC_ARCH_TRAP_BYTE);
  if (cfi)
    fputs("\t.cfi_endproc\n", f);
  fprintf(f, "%s:\n", end);
  /* "*": the names are printed as they are.  */
  char s[GORC_LABEL_MAX], e[GORC_LABEL_MAX];
  snprintf(s, sizeof s, "*%s", start);
  snprintf(e, sizeof e, "*%s", end);
  gorc_emit_one_entry_range(f, s, e, NULL, gorc_entry_state(GORC_ARCH_MACHINE));
}

/* The static-call variables this unit defines, into VARS (a common one
   is an error: every unit would print its trampoline).  */
static void sc_unit_vars(auto_vec<tree> *vars)
{
  varpool_node *v;
  FOR_EACH_DEFINED_VARIABLE(v) {
    if (!sc_marked(v->decl) || DECL_EXTERNAL(v->decl) || v->in_other_partition
        || DECL_HAS_VALUE_EXPR_P(v->decl))
      continue;
    if (DECL_COMMON(v->decl)) {
      /* Every unit would print its trampoline: a link-time clash.  */
      error_at(DECL_SOURCE_LOCATION(v->decl), "static-call variable %qD is a common "
               "symbol", v->decl);
      inform(DECL_SOURCE_LOCATION(v->decl), "give it an initializer, or compile "
             "with %<-fno-common%> (the default)");
      continue;
    }
    vars->safe_push(v->decl);
  }
}

/* The block of unit U: page-aligned, header, return-0 stub (label
   RET0), the trampolines of VARS, padded to a whole page (libgorc remaps
   these pages).  */
static void sc_emit_block(FILE *f, const auto_vec<tree> *vars, unsigned u, bool cfi,
                          const char *ret0)
{
  char ret0_end[32];
  snprintf(ret0_end, sizeof ret0_end, ".Lgorc_sc_re%u", u);
  fprintf(f, "\t.pushsection\t%s,\"ax\",@progbits\n", GORC_SC_TEXT_SECTION);
  fprintf(f, "\t.p2align\t%d\n", exact_log2(GORC_SC_BLOCK_SIZE));
  fputs(GORC_ARCH_SC_HEADER_ASM, f);
  fprintf(f, "\t.type\t%s, @function\n%s:\n%s:\n", GORC_SC_RET0_NAME, GORC_SC_RET0_NAME, ret0);
  sc_code_range_open(f, cfi);
  fputs(GORC_ARCH_SC_RET0_ASM, f);
  sc_code_range_close(f, cfi, ret0, ret0_end);
  fprintf(f, "\t.size\t%s, %d\n", GORC_SC_RET0_NAME, GORC_ARCH_SC_TRAMP_SIZE);
  for (unsigned i = 0; i < vars->length(); i++) {
    const char *name = sc_tramp_name((*vars)[i]);
    char start[32], end[32], varlabel[32];
    snprintf(start, sizeof start, ".Lgorc_sc_t%u_%u", u, i);
    snprintf(end, sizeof end, ".Lgorc_sc_te%u_%u", u, i);
    snprintf(varlabel, sizeof varlabel, ".Lgorc_sc_v%u_%u", u, i);
    fprintf(f, "\t.balign\t%d\n\t.globl\t%s\n\t.hidden\t%s\n\t.type\t%s, @function\n%s:\n%s:\n",
            GORC_ARCH_SC_TRAMP_SIZE, name, name, name, name, start);
    sc_code_range_open(f, cfi);
    sc_print_target(f, (*vars)[i], varlabel, ret0);
    fprintf(f, GORC_ARCH_SC_TRAMP_TAIL_FMT, varlabel, varlabel);
    sc_code_range_close(f, cfi, start, end);
    fprintf(f, "\t.size\t%s, %d\n", name, GORC_ARCH_SC_TRAMP_SIZE);
  }
  fprintf(f, "\t.balign\t%d, %s\n\t.popsection\n", GORC_SC_BLOCK_SIZE, GORC_ARCH_TRAP_BYTE);
}

/* The descriptors of unit U's NVARS variables, the (maybe empty) call-site
   table, and the module's note.  */
static void sc_emit_descriptors(FILE *f, unsigned nvars, unsigned u, const char *ret0)
{
  fprintf(f, "\t.pushsection\t%s,\"aR\",@progbits\n\t.p2align\t2\n", GORC_SC_DESC_SECTION);
  for (unsigned i = 0; i < nvars; i++)
    fprintf(f, "\t.long\t.Lgorc_sc_t%u_%u - .\n\t.long\t.Lgorc_sc_v%u_%u - .\n"
            "\t.byte\t%d, %d\n\t.short\t0\n\t.long\t%s - .\n",
            u, i, u, i, GORC_SC_VERSION, GORC_SC_DESC_SIZE, ret0);
  fputs("\t.popsection\n", f);
  /* The call-site table may be empty in this module: an empty piece
     defines its __start_/__stop_ all the same.  */
  fprintf(f, "\t.pushsection\t%s,\"a\",@progbits\n\t.p2align\t2\n\t.popsection\n",
          GORC_SC_SITES_SECTION);

  /* One note per linked module: the descriptors' and the call sites'
     bounds.  */
  char group[32];
  snprintf(group, sizeof group, "gorc.sc.module.v%d", GORC_SC_VERSION);
  gorc_note_begin(f, GORC_SC_NOTE_SECTION, group, GORC_SC_NOTE_TYPE, GORC_SC_NOTE_DESC_SIZE);
  fprintf(f, "\t.long\t%d\n", GORC_SC_VERSION);
  gorc_note_section_bounds(f, GORC_SC_DESC_SECTION);
  gorc_note_section_bounds(f, GORC_SC_SITES_SECTION);
  gorc_note_end(f);
}

static void sc_finish_unit(void *, void *)
{
  if (!sc_enabled || seen_error() || !GORC_ARCH_TARGET_OK())
    return;
  /* -flto without fat objects: code (and so this) comes at link time.  */
  if (flag_generate_lto && !flag_fat_lto_objects)
    return;

  auto_vec<tree> vars;
  sc_unit_vars(&vars);
  if (vars.is_empty())
    return;

  FILE *f = asm_out_file;
  static unsigned unit_no; /* labels unique if a unit ever did this twice */
  unsigned u = unit_no++;
  char ret0[32];
  snprintf(ret0, sizeof ret0, ".Lgorc_sc_r%u", u);

  /* Local aliases of the variables: PC-relative references to them then
     resolve in this object, also for an exported variable of a shared
     library (no dynamic relocation, nothing to interpose).  */
  for (unsigned i = 0; i < vars.length(); i++) {
    fprintf(f, "\t.set\t.Lgorc_sc_v%u_%u, ", u, i);
    assemble_name(f, IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(vars[i])));
    fputc('\n', f);
  }
  sc_emit_block(f, &vars, u, dwarf2out_do_cfi_asm(), ret0);
  sc_emit_descriptors(f, vars.length(), u, ret0);
}

/* ---- call sites (RTL, after the records pass) ----

   Each call or sibling call to a trampoline is aligned to 8 bytes on
   x86-64 (an aarch64 bl/b is always patchable) and gets
   a label right before its instruction (a NOTE_INSN_DELETED_LABEL, as the records pass places
   them: final prints the label and nothing else, the code is unchanged)
   and an entry (site - ., trampoline - .) in gorc_static_call_sites, in
   the function's COMDAT group when it has one, so libgorc can patch the
   call in place.  */

static bool sc_is_tramp_symbol(rtx x)
{
  if (!x || GET_CODE(x) != SYMBOL_REF)
    return false;
  tree decl = SYMBOL_REF_DECL(x);
  if (!decl || TREE_CODE(decl) != FUNCTION_DECL || !DECL_ARTIFICIAL(decl))
    return false;
  const char *name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl));
  return strncmp(name, GORC_SC_TRAMP_PREFIX, strlen(GORC_SC_TRAMP_PREFIX)) == 0;
}

/* A call or sibling call to a trampoline, or NULL.  */
static rtx sc_tramp_call_target(rtx_insn *insn)
{
  if (!CALL_P(insn))
    return NULL_RTX;
  rtx call = get_call_rtx_from(insn);
  if (!call || !MEM_P(XEXP(call, 0)))
    return NULL_RTX;
  rtx target = XEXP(XEXP(call, 0), 0);
  return sc_is_tramp_symbol(target) ? target : NULL_RTX;
}

/* Before branch shortening (final's tables are sized then, so no insn may
   be added later): each call to a trampoline starts 8-byte aligned, so its
   rel32 (bytes 1..4) lies in one aligned 8-byte word and libgorc can patch
   every site in place with one store.  At most 7 bytes of padding before
   such a call; nothing else in the function changes.  */
static unsigned int sc_align_execute(function *fun)
{
  if (!GORC_ARCH_SC_SITES_NEED_ALIGN)
    return 0;
  for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
    if (!sc_tramp_call_target(insn))
      continue;
    /* final prints an asm's source location and needs a file name.  */
    location_t loc = INSN_LOCATION(insn);
    if (LOCATION_FILE(loc) == NULL)
      loc = DECL_SOURCE_LOCATION(fun->decl);
    if (LOCATION_FILE(loc) == NULL)
      continue;   /* left unaligned: patched only if it happens to be */
    emit_insn_before(gen_rtx_ASM_INPUT_loc(VOIDmode, GORC_ARCH_SC_SITE_ALIGN, loc), insn);
  }
  return 0;
}

static unsigned int sc_sites_execute(function *fun)
{
  FILE *f = asm_out_file;
  tree group = decl_comdat_group_id(fun->decl);

  for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
    rtx target = sc_tramp_call_target(insn);
    if (!target)
      continue;
    char buf[GORC_LABEL_MAX];
    gorc_label_note(buf, insn, false);

    if (group)
      fprintf(f, "\t.pushsection\t%s,\"aG\",@progbits,%s,comdat\n", GORC_SC_SITES_SECTION,
              IDENTIFIER_POINTER(group));
    else
      fprintf(f, "\t.pushsection\t%s,\"a\",@progbits\n", GORC_SC_SITES_SECTION);
    fputs("\t.p2align\t2\n\t.long\t", f);
    assemble_name_raw(f, buf[0] == '*' ? buf + 1 : buf);
    fputs(" - .\n\t.long\t", f);
    assemble_name(f, IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(SYMBOL_REF_DECL(target))));
    fputs(" - .\n\t.popsection\n", f);
  }
  return 0;
}

GORC_DEFINE_PASS(static_call_sites, rtl, "gorc_static_call_sites", 0, sc_gate,
                 sc_sites_execute)
GORC_DEFINE_PASS(static_call_align, rtl, "gorc_static_call_align", 0, sc_gate,
                 sc_align_execute)

/* ---- registration ---- */

int gorc_static_calls_option(const char *key, const char *value)
{
  if (strcmp(key, "static-calls") != 0)
    return 0;
  if (!value || strcmp(value, "1") == 0 || strcmp(value, "yes") == 0)
    sc_enabled = true;
  else if (strcmp(value, "0") == 0 || strcmp(value, "no") == 0)
    sc_enabled = false;
  else
    return -1;
  return 1;
}

bool gorc_static_calls_enabled(void)
{
  return sc_enabled;
}

void gorc_static_calls_init(const char *plugin_name)
{
  register_callback(plugin_name, PLUGIN_ATTRIBUTES, sc_register_attributes, NULL);
  if (!gorc_static_calls_enabled())
    return;
  register_callback(plugin_name, PLUGIN_PRE_GENERICIZE, sc_pre_genericize, NULL);
  register_callback(plugin_name, PLUGIN_FINISH_DECL, sc_finish_decl, NULL);
  register_callback(plugin_name, PLUGIN_FINISH_UNIT, sc_finish_unit, NULL);
}
