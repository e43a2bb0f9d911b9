/* gorc plugin: every GCC-version-specific detail lives here.

   One plugin source builds against the plugin headers of each supported
   GCC (gcc-N-plugin-dev); the binary runs only in the GCC it was built
   for (plugin_default_version_check in gorc-plugin.cc).  Supported: GCC 11
   to 16.  Porting to another version means adding its differences here
   and in plugin/compat/ (docs/GCC_VERSIONS.md).  What this file pins:
     - the header set and its include order;
     - the names of GCC's internal label at a function's first byte when
       GCC emits unwind information itself (dwarf2out.cc FUNC_BEGIN_LABEL
       "LFB", numbered by current_function_funcdef_no);
     - the names of the GCC passes gorc's passes are placed against;
     - the accessors of the structures whose shape changed between
       versions (the CFA register: a number in GCC 11, struct cfa_reg
       with a span since GCC 12).  */

#ifndef GORC_GCC_COMPAT_H
#define GORC_GCC_COMPAT_H

#include "gcc-plugin.h"
#include "bversion.h" /* BUILDING_GCC_MAJOR: the GCC these headers are from */

#define GORC_GCC_MAJOR BUILDING_GCC_MAJOR
#define GORC_GCC_MIN_MAJOR 11
#define GORC_GCC_MAX_MAJOR 16

/* The Makefile says this first, in a friendlier way; this catches a
   build outside it.  */
#if GORC_GCC_MAJOR < GORC_GCC_MIN_MAJOR || GORC_GCC_MAJOR > GORC_GCC_MAX_MAJOR
#error "gorc supports GCC 11 to 16; see docs/GCC_VERSIONS.md, 'Porting to another GCC'"
#endif

#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "target.h"
#include "tree.h"
#include "rtl.h"
#include "tree-pass.h"
#include "context.h"
#include "memmodel.h"
#include "tm_p.h"      /* the target's functions (aarch64's DWARF_FRAME_REGNUM calls one) */
#include "emit-rtl.h"
#include "output.h"
#include "function.h"
#include "diagnostic-core.h"
#include "debug.h"
#include "dwarf2out.h"
#include "stringpool.h"
#include "attribs.h"
#include "options.h"

#define GORC_GCC_FUNC_BEGIN_LABEL "LFB"
/* The pass that puts NOTE_INSN_CFI notes into the insn stream after
   branch shortening; the records pass follows it.  */
#define GORC_GCC_CFI_PASS "dwarf2"
#define GORC_GCC_SHORTEN_PASS "shorten"   /* branch shortening, sizes final's tables */
#define GORC_GCC_FINAL_PASS "final"
/* The static-call rewrite (static-calls.cc) follows the pass that puts a
   function into SSA form; it runs at every -O level, before inlining.  */
#define GORC_GCC_SSA_PASS "ssa"

/* The CFA's register in a dw_cfa_location: GCC 12 made it a struct
   cfa_reg {reg, span, span_width} (a CFA over several registers, for
   SVE); GCC 11 has the register number alone, always one register.  */
#if GORC_GCC_MAJOR >= 12
static inline unsigned gorc_cfa_reg(const dw_cfa_location *loc) { return loc->reg.reg; }
static inline bool gorc_cfa_reg_single(const dw_cfa_location *loc) { return loc->reg.span == 1; }
static inline void gorc_cfa_set_reg(dw_cfa_location *loc, unsigned reg)
{
  loc->reg.set_by_dwreg(reg);
}
#else
static inline unsigned gorc_cfa_reg(const dw_cfa_location *loc) { return loc->reg; }
static inline bool gorc_cfa_reg_single(const dw_cfa_location *) { return true; }
static inline void gorc_cfa_set_reg(dw_cfa_location *loc, unsigned reg) { loc->reg = reg; }
#endif

/* GORC_DEFINE_PASS(ID, KIND, NAME, PROPS, GATE, EXECUTE) defines
   opt_pass *gorc_make_ID_pass(gcc::context *): a pass of KIND (gimple or
   rtl) named NAME (its dump name, and the name other passes are placed
   against), needing properties PROPS, run when GATE(fun) is true, doing
   EXECUTE(fun).  The one place that knows pass_data's layout.  */
#define GORC_PASS_TYPE_gimple GIMPLE_PASS
#define GORC_PASS_TYPE_rtl RTL_PASS
#define GORC_DEFINE_PASS(ID, KIND, NAME, PROPS, GATE, EXECUTE)                  \
  namespace {                                                                \
  const pass_data ID##_pass_data = {                                         \
    GORC_PASS_TYPE_##KIND, NAME, OPTGROUP_NONE, TV_NONE, PROPS, 0, 0, 0, 0   \
  };                                                                         \
  struct ID##_pass : public KIND##_opt_pass {                                \
    ID##_pass(gcc::context *ctxt) : KIND##_opt_pass(ID##_pass_data, ctxt) {} \
    bool gate(function *fun) final override { return GATE(fun); }            \
    unsigned int execute(function *fun) final override { return EXECUTE(fun); } \
  };                                                                         \
  }                                                                          \
  opt_pass *gorc_make_##ID##_pass(gcc::context *ctxt) { return new ID##_pass(ctxt); }

/* A poly_int64 that is a plain constant on x86-64.  */
static inline bool gorc_poly_constant(poly_int64 v, HOST_WIDE_INT *out)
{
  return v.is_constant(out);
}

#endif
