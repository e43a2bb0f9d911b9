/* Call sites patched in place (gorc_static_call_patch_sites): a call to
   the trampoline whose rel32 lies in one aligned 8-byte word is rewritten
   to call the target (or the return-0 stub for NULL) directly; the others
   would keep calling the trampoline.  Eight callers try to put their call
   at every address residue mod 8; the plugin aligns every rewritten call
   to 8 bytes, so all eight must be patchable.  Turned off again, patched
   sites go back to the trampoline.  */
/* { dg-do run } */
/* { dg-gorc-static run } */
#include <stdint.h>
#include <string.h>
#include "support/sc-test.h"

static uintptr_t site_seen;	/* the call instruction that reached a target */
NOIPA static int ta (int x)
{
  site_seen = (uintptr_t) __builtin_return_address (0) - 5;
  return x + 1;
}
NOIPA static int tb (int x)
{
  site_seen = (uintptr_t) __builtin_return_address (0) - 5;
  return x + 2;
}
int (*sites_op) (int) GORC_STATIC_CALL = ta;
extern unsigned char sites_tramp[] __asm__ (GORC_SC_TRAMP_PREFIX "sites_op")
  __attribute__ ((visibility ("hidden")));

/* 8 + K bytes of nops move the call by K (mod 8).  Not a tail call: the return
   address finds the call.  */
#define CALLER(k)							\
  NOIPA static int call_##k (int x)					\
  {									\
    __asm__ volatile (".skip 8 + " #k ", 0x90");				\
    int r = sites_op (x);						\
    return r * 3;							\
  }
CALLER (0) CALLER (1) CALLER (2) CALLER (3)
CALLER (4) CALLER (5) CALLER (6) CALLER (7)
static int (*const callers[8]) (int) = { call_0, call_1, call_2, call_3,
					 call_4, call_5, call_6, call_7 };
static uintptr_t sites[8];

static uintptr_t
dest_of (uintptr_t site)
{
  int32_t rel;
  memcpy (&rel, (void *) (site + 1), 4);
  return site + 5 + rel;
}

static int
patchable (uintptr_t site)
{
  return (site + 1) % 8 <= 4;
}

int
main (void)
{
  int n_patchable = 0, residues = 0;
  for (int k = 0; k < 8; k++)
    {
      CHECK (callers[k] (1) == 6, k);
      sites[k] = site_seen;
      CHECK (((unsigned char *) sites[k])[0] == 0xe8, k);
      CHECK (dest_of (sites[k]) == (uintptr_t) sites_tramp, k);	/* compiled so */
      n_patchable += patchable (sites[k]);
      residues |= 1 << (sites[k] % 8);
    }
  CHECK (n_patchable == 8, n_patchable);   /* the plugin aligned them all */
  CHECK (residues == 1, residues);

  /* Off (the default): only the trampoline changes.  */
  CHECK (gorc_static_call_update (sites_op, tb) == 0, 0);
  CHECK (gorc_static_call_sites_patched () == 0, 0);
  for (int k = 0; k < 8; k++)
    CHECK (dest_of (sites[k]) == (uintptr_t) sites_tramp, k);

  /* On: the patchable ones call the target itself.  */
  CHECK (gorc_static_call_patch_sites (1) == 0, 0);
  CHECK (gorc_static_call_update (sites_op, ta) == 0, 0);
  CHECK (gorc_static_call_sites_patched () >= n_patchable, gorc_static_call_sites_patched ());
  for (int k = 0; k < 8; k++)
    {
      uintptr_t want = patchable (sites[k]) ? (uintptr_t) ta : (uintptr_t) sites_tramp;
      CHECK (dest_of (sites[k]) == want, k);
      CHECK (callers[k] (1) == 6, k);
      CHECK (site_seen == sites[k], k);
    }
  CHECK (gorc_static_call_update (sites_op, tb) == 0, 0);
  for (int k = 0; k < 8; k++)
    CHECK (callers[k] (1) == 9, k);

  /* NULL: the patched sites call the return-0 stub.  */
  CHECK (gorc_static_call_update (sites_op, NULL) == 0, 0);
  for (int k = 0; k < 8; k++)
    {
      CHECK (callers[k] (1) == 0, k);
      if (patchable (sites[k]))
	{
	  unsigned char *stub = (unsigned char *) dest_of (sites[k]);
	  CHECK (stub[0] == 0x31 && stub[1] == 0xc0 && stub[2] == 0xc3, k);
	}
    }

  /* Off again: every site back on the trampoline, which still works.  */
  CHECK (gorc_static_call_patch_sites (0) == 1, 0);
  CHECK (gorc_static_call_update (sites_op, ta) == 0, 0);
  for (int k = 0; k < 8; k++)
    {
      CHECK (dest_of (sites[k]) == (uintptr_t) sites_tramp, k);
      CHECK (callers[k] (1) == 6, k);
    }
  return 0;
}
/* { dg-final { gorc-static-direct call_0 call_3 call_7 } } */
/* { dg-final { gorc-static-check } } */
