/* gorc plugin: static calls (static-calls.cc).  */

#ifndef GORC_STATIC_CALLS_H
#define GORC_STATIC_CALLS_H

/* Handle -fplugin-arg-gorc-KEY[=VALUE] if KEY is "static-calls" (value
   absent, 1/yes: on; 0/no: off): 1 handled, -1 bad value, 0 another key.  */
int gorc_static_calls_option(const char *key, const char *value);

/* The option was given (the passes below are registered only then).  */
bool gorc_static_calls_enabled(void);

/* Register the attribute (always) and, when enabled, the misuse checks
   and the end-of-unit trampolines.  */
void gorc_static_calls_init(const char *plugin_name);

/* The rewrite (GIMPLE, after "ssa"), the alignment of rewritten calls
   (before branch shortening) and the call-site table (after the records
   pass, whose label notes it must not add to).  */
opt_pass *gorc_make_static_calls_pass(gcc::context *ctxt);
opt_pass *gorc_make_static_call_align_pass(gcc::context *ctxt);
opt_pass *gorc_make_static_call_sites_pass(gcc::context *ctxt);

#endif
