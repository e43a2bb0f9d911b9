/* libgorc-sc-dl.so, loaded by dlopen.c: static calls in a dlopened
   library.  gorc_static_call_set comes from the program's libgorc.so.  */
#include <gorc/static_call.h>

static int dl_a (int x) { return x + 10; }
static int dl_b (int x) { return x + 20; }
int (*dl_op) (int) GORC_STATIC_CALL = dl_a;

__attribute__ ((noipa)) int dl_call (int x) { return dl_op (x); }
int dl_switch (int which) { return gorc_static_call_update (dl_op, which ? dl_b : dl_a); }
int (*dl_target (int which)) (int) { return which ? dl_b : dl_a; }
