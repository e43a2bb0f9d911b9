/* gorc plugin: the target's details, one file per architecture.

   Every other plugin file is the same for every target and includes this
   one.  GCC's own target headers (tm.h, through gcc-compat.h) say which
   target the plugin headers are for; a port is one more arch-*.h giving
   the same GORC_ARCH_* names, and one more line here.  */

#ifndef GORC_ARCH_H
#define GORC_ARCH_H

#include "gcc-compat.h"

#if defined(GCC_AARCH64_H)        /* config/aarch64/aarch64.h */
#include "arch-aarch64.h"
#elif defined(TARGET_X32)         /* config/i386/i386.h */
#include "arch-x86_64.h"
#else
#error "gorc: the plugin is ported to x86-64 and aarch64 only (plugin/arch-*.h)"
#endif

#endif
