/* gorc plugin: static calls (static-calls.cc).  */

#ifndef GORC_STATIC_CALLS_H
#define GORC_STATIC_CALLS_H

/* Handle -fplugin-arg-gorc-KEY[=VALUE] if KEY is "static-calls" (value
   absent, 1/yes: on; 0/no: off): 1 handled, -1 bad value, 0 another key.  */
int gorc_static_calls_option(const char *key, const char *value);

/* Register the attribute (always) and, when enabled, the rewrite pass,
   the misuse checks and the end-of-unit trampolines.  */
void gorc_static_calls_init(const char *plugin_name);

#endif
