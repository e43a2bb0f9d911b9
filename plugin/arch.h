/* gorc plugin: every x86-64 detail lives here.  */

#ifndef GORC_ARCH_H
#define GORC_ARCH_H

#include "gorc/format.h"

/* DWARF register numbers (System V x86-64 psABI, figure 3.36).  */
#define GORC_ARCH_DWARF_SP GORC_DWARF_RSP
#define GORC_ARCH_DWARF_BP GORC_DWARF_RBP
#define GORC_ARCH_DWARF_RA GORC_DWARF_RA

/* On entry, after the call pushed the return address: CFA = rsp + 8, the
   return address at CFA - 8, rbp untouched.  */
#define GORC_ARCH_ENTRY_CFA_OFFSET 8
#define GORC_ARCH_RA_CFA_OFFSET (-8)

/* True when the target being compiled for is x86-64 (not -m32/-mx32).  */
#define GORC_ARCH_TARGET_OK() (TARGET_64BIT && !TARGET_X32)

#endif
