/* gorc plugin: every GCC-version-specific detail lives here.

   The plugin is built against one GCC's plugin headers (gcc-12-plugin-dev
   on the supported Debian 12) and refuses to load into another GCC
   (plugin_default_version_check in gorc-plugin.cc).  What this file pins:
     - the header set and its include order;
     - the names of GCC's internal labels that bracket a function's code
       when GCC emits unwind information itself (dwarf2out.cc:
       FUNC_BEGIN_LABEL "LFB", FUNC_END_LABEL "LFE", both numbered by
       current_function_funcdef_no);
     - the name of the pass the records pass follows ("dwarf2", which puts
       NOTE_INSN_CFI notes into the insn stream after branch shortening).  */

#ifndef GORC_GCC_COMPAT_H
#define GORC_GCC_COMPAT_H

#include "gcc-plugin.h"
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
#include "emit-rtl.h"
#include "output.h"
#include "function.h"
#include "diagnostic-core.h"
#include "debug.h"
#include "dwarf2out.h"
#include "stringpool.h"
#include "attribs.h"
#include "options.h"

/* GCCPLUGIN_VERSION_MAJOR is checked in gorc-plugin.cc, the one file that
   includes plugin-version.h (it defines a variable).  */
#define GORC_GCC_MAJOR 12

#define GORC_GCC_FUNC_BEGIN_LABEL "LFB"
#define GORC_GCC_FUNC_END_LABEL "LFE"
#define GORC_GCC_CFI_PASS "dwarf2"
#define GORC_GCC_SHORTEN_PASS "shorten"   /* branch shortening, sizes final's tables */
#define GORC_GCC_FINAL_PASS "final"
/* The static-call rewrite (static-calls.cc) follows the pass that puts a
   function into SSA form; it runs at every -O level, before inlining.  */
#define GORC_GCC_SSA_PASS "ssa"

/* A poly_int64 that is a plain constant on x86-64.  */
static inline bool gorc_poly_constant(poly_int64 v, HOST_WIDE_INT *out)
{
  return v.is_constant(out);
}

#endif
