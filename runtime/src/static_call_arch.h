/* libgorc: the instructions static-call updates write, from the port for
   the machine libgorc is built for (runtime/src/<arch>/static_call.h;
   see arch.h).  */

#ifndef GORC_RT_STATIC_CALL_ARCH_H
#define GORC_RT_STATIC_CALL_ARCH_H

#if defined(__x86_64__)
#include "x86_64/static_call.h"
#elif defined(__aarch64__)
#include "aarch64/static_call.h"
#else
#error "libgorc is ported to x86-64 and aarch64 only (runtime/src/<arch>/)"
#endif

#endif
