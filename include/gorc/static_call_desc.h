#ifndef GORC_STATIC_CALL_DESC_H
#define GORC_STATIC_CALL_DESC_H

/* gorc static calls: the descriptor format, shared by the plugin and
   libgorc (the user's interface is runtime/include/gorc/static_call.h).

   Section gorc_static_calls: one 16-byte descriptor per variable,
     int32 tramp  (trampoline - &tramp)
     int32 var    (variable - &var)
     uint8 version (GORC_SC_VERSION), uint8 size (16), uint16 flags (0)
     int32 ret0   (the unit's return-0 stub - &ret0: the NULL target)
   found through a note (owner "gorc", type GORC_SC_NOTE_TYPE, section
   .note.gorc.sc): int32 version, int32 start - ., int32 end - . (the
   descriptors), int32 start - ., int32 end - . (the call sites).
   Section gorc_static_call_sites: 8 bytes per rewritten call site,
     int32 site   (the call/jmp instruction - &site)
     int32 tramp  (the trampoline it calls - &tramp)
   Trampolines: section gorc_static_call_text, one page-aligned block per
   unit, in slots of the machine's trampoline size: a header slot (its
   first 8 bytes a cookie once libgorc aliased the page), the return-0
   stub, then one slot-aligned trampoline per variable, padded to a whole
   page with the machine's trap byte.  x86-64: 8-byte slots, 0xcc;
   aarch64: 16-byte slots (the state instruction, then adrp/ldr/br x16
   through the variable), zero bytes (udf #0).  */
#define GORC_SC_VERSION 1
#define GORC_SC_DESC_SIZE 16
#define GORC_SC_NOTE_TYPE 2
#define GORC_SC_NOTE_DESC_SIZE 20
#define GORC_SC_DESC_SECTION "gorc_static_calls"
#define GORC_SC_SITES_SECTION "gorc_static_call_sites"
#define GORC_SC_SITE_SIZE 8
#define GORC_SC_TEXT_SECTION "gorc_static_call_text"
#define GORC_SC_NOTE_SECTION ".note.gorc.sc"
#define GORC_SC_TRAMP_PREFIX "__gorc_sc_tramp_" /* + the variable's name */
#define GORC_SC_RET0_NAME "__gorc_sc_ret0" /* local symbol, one per unit */
#define GORC_SC_TRAMP_SIZE_X86_64 8
#define GORC_SC_TRAMP_SIZE_AARCH64 16
#define GORC_SC_BLOCK_SIZE 4096

#endif
