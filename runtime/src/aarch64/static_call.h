/* libgorc's aarch64 port: static calls are not ported yet (patching
   B/BL and the trampolines is a later step).  The aarch64 plugin refuses
   the gorc_static_call attribute, so no module has trampolines and
   gorc_static_call_set stores the pointer only (GORC_SC_NOT_PATCHED);
   should a module claim one, the update fails with ENOSYS and changes
   nothing: never a wrong patch.  */

#ifndef GORC_RT_AARCH64_STATIC_CALL_H
#define GORC_RT_AARCH64_STATIC_CALL_H

#include <errno.h>
#include <stdint.h>

#define GORC_RT_SC_PORTED 0

/* The byte a trampoline word is padded with: none here (static_call.c
   only keeps its cookies from matching a padded word).  */
#define GORC_RT_SC_PAD 0

static inline int gorc_rt_sc_encode(uintptr_t tramp, uintptr_t var, uintptr_t fn,
                                    uint64_t *word)
{
  (void)tramp, (void)var, (void)fn, (void)word;
  return -ENOSYS;
}

static inline int gorc_rt_sc_word_ok(uint64_t w)
{
  (void)w;
  return 0;
}

static inline int gorc_rt_sc_site_ok(uintptr_t site, unsigned char op)
{
  (void)site, (void)op;
  return 0;
}

static inline int gorc_rt_sc_site_rel(uintptr_t site, uintptr_t dest, uintptr_t tramp,
                                      int32_t *rel, uintptr_t *at)
{
  (void)site, (void)dest, (void)tramp, (void)rel, (void)at;
  return -1;
}

#endif
