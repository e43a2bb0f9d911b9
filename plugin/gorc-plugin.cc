/* gorc: exact unwind records for code built without frame pointers.

   Plugin entry point: version check, options, and every pass in the order
   it runs.  */

#include "records.h"
#include "plugin-version.h" /* gcc_version: only the entry point checks it */
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

static void add_pass(const char *plugin_name, opt_pass *pass, const char *ref,
                     enum pass_positioning_ops pos)
{
  struct register_pass_info info = { pass, ref, 1, pos };
  register_callback(plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &info);
}

/* In the order they run.  A pass placed against one of gorc's own passes
   names it, so nothing depends on the order of registration.  */
static void register_passes(const char *plugin_name)
{
  if (gorc_static_calls_enabled())
    add_pass(plugin_name, gorc_make_static_calls_pass(g), GORC_GCC_SSA_PASS,
             PASS_POS_INSERT_AFTER);
  if (gorc_static_calls_enabled())
    add_pass(plugin_name, gorc_make_static_call_align_pass(g), GORC_GCC_SHORTEN_PASS,
             PASS_POS_INSERT_BEFORE);
  add_pass(plugin_name, gorc_make_records_pass(g), GORC_GCC_CFI_PASS, PASS_POS_INSERT_AFTER);
  /* After the records pass: its label notes are not records.  */
  if (gorc_static_calls_enabled())
    add_pass(plugin_name, gorc_make_static_call_sites_pass(g), "gorc_records",
             PASS_POS_INSERT_AFTER);
  add_pass(plugin_name, gorc_make_emit_pass(g), GORC_GCC_FINAL_PASS, PASS_POS_INSERT_AFTER);
}

/* The end of the unit: the runs still open get their END (after the
   thunks GCC prints at the end, before the assembly file is closed).  */
static void finish_unit(void *, void *)
{
  gorc_close_runs(asm_out_file);
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
  register_callback(info->base_name, PLUGIN_FINISH_UNIT, finish_unit, NULL);
  gorc_static_calls_init(info->base_name);
  register_passes(info->base_name);
  return 0;
}
