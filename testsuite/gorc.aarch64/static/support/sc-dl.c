/* libgorc-sc-dl-a64.so, loaded by dlopen.c: a static call in a dlopened
   library.  It does not call libgorc (the program's libgorc.a is not
   exported to it): the program updates dl_op through its address.  */
#include <stdint.h>

static int dl_a (int x) { return x + 10; }
static int dl_b (int x) { return x + 20; }
/* GORC_STATIC_CALL, spelled out: built without libgorc's headers.  */
int (*dl_op) (int) __attribute__ ((gorc_static_call)) = dl_a;
extern const uint32_t dl_op_tramp[] __asm__ ("__gorc_sc_tramp_dl_op")
  __attribute__ ((visibility ("hidden")));

__attribute__ ((noipa)) int dl_call (int x) { return dl_op (x); }
int (*dl_target (int which)) (int) { return which ? dl_b : dl_a; }
const uint32_t *dl_tramp (void) { return dl_op_tramp; }
