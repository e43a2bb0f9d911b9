/* gorc: exact unwind records for code built without frame pointers.

   Plugin entry point: version check, options, pass registration, and the
   begin_prologue debug hook that labels a function's first byte when GCC
   itself writes no label there.  */

#include "records.h"
#include "plugin-version.h" /* gcc_version: only the entry point checks it */

#if GCCPLUGIN_VERSION_MAJOR != GORC_GCC_MAJOR
#error "gorc is written against the GCC 12 plugin API (see plugin/gcc-compat.h)"
#endif
#include "arch.h"
#include "static-calls.h"

int plugin_is_GPL_compatible;

static struct plugin_info gorc_plugin_info = {
  "0.1",
  "gorc: ORC-style unwind records in section gorc_unwind.\n"
  "Options:\n"
  "  -fplugin-arg-gorc-static-calls  calls through function pointers marked\n"
  "      GORC_STATIC_CALL (<gorc/static_call.h>) become direct calls to\n"
  "      patchable trampolines (docs/STATIC_CALLS.md).",
};

/* ---- the begin_prologue hook ---- */

static struct gcc_debug_hooks gorc_debug_hooks;
static const struct gcc_debug_hooks *wrapped_debug_hooks;

void gorc_hook_start_label(char *buf, unsigned funcdef_no)
{
  ASM_GENERATE_INTERNAL_LABEL(buf, "Lgorc_fb", funcdef_no);
}

bool gorc_hook_covers_current_function(void)
{
  /* final_start_function calls debug_hooks->begin_prologue under exactly
     this condition.  */
  return wrapped_debug_hooks && !DECL_IGNORED_P(current_function_decl);
}

/* Called by final right after the function's label, before any -pg call
   or patchable-entry nops.  Only needed when GCC writes no .LFB label.  */
static void gorc_begin_prologue(unsigned int line, unsigned int column, const char *file)
{
  if (!dwarf2out_do_frame() && GORC_ARCH_TARGET_OK()) {
    char label[GORC_LABEL_MAX];
    gorc_hook_start_label(label, current_function_funcdef_no);
    ASM_OUTPUT_LABEL(asm_out_file, label);
  }
  wrapped_debug_hooks->begin_prologue(line, column, file);
}

void gorc_install_debug_hook(void)
{
  if (wrapped_debug_hooks)
    return;
  wrapped_debug_hooks = debug_hooks;
  gorc_debug_hooks = *debug_hooks;
  gorc_debug_hooks.begin_prologue = gorc_begin_prologue;
  debug_hooks = &gorc_debug_hooks;
}

/* ---- options ---- */

static bool parse_options(const struct plugin_name_args *info)
{
  bool ok = true;
  for (int i = 0; i < info->argc; i++) {
    const char *key = info->argv[i].key;
    int sc = gorc_static_calls_option(key, info->argv[i].value);
    if (sc > 0)
      continue;
    if (sc < 0)
      error("gorc: option %<-fplugin-arg-%s-%s%> takes no value, or 1/yes/0/no "
            "(not %qs)", info->base_name, key, info->argv[i].value);
    else
      error("gorc: unknown option %<-fplugin-arg-%s-%s%> (the only option is "
          "%<-fplugin-arg-%s-static-calls%>)", info->base_name, key, info->base_name);
    ok = false;
  }
  return ok;
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
  if (!plugin_default_version_check(version, &gcc_version)) {
    error("gorc: %s was built for GCC %s (%s) but is loaded into GCC %s (%s); "
          "rebuild it with this compiler",
          info->full_name, gcc_version.basever, gcc_version.datestamp,
          version->basever, version->datestamp);
    return 1;
  }
  if (!parse_options(info))
    return 1;

  register_callback(info->base_name, PLUGIN_INFO, NULL, &gorc_plugin_info);
  gorc_install_thunk_hook();
  gorc_static_calls_init(info->base_name);

  struct register_pass_info records = {
    gorc_make_records_pass(g), GORC_GCC_CFI_PASS, 1, PASS_POS_INSERT_AFTER
  };
  register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &records);

  struct register_pass_info emit = {
    gorc_make_emit_pass(g), GORC_GCC_FINAL_PASS, 1, PASS_POS_INSERT_AFTER
  };
  register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &emit);
  return 0;
}
