/* multi-tu test: one variable defined in multi-tu.c, called from three
   units; each unit also has a `static` one of the same name.  */
#include "sc-test.h"
extern int (*mt_op) (int) GORC_STATIC_CALL;
int mt_add1 (int);
int mt_add2 (int);
int mt_call_a (int);
int mt_call_b (int);
int mt_call_c (int);
int mt_local_b (int);
int mt_local_c (int);
int mt_switch_from_c (int which);
