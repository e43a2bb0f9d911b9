/* Kept only for eh_lookup.c, which includes it by this name until the
   .eh_frame interpreter moves to include/gorc/eh_frame.h (then it
   includes arch.h, and this file goes).  */
#include "arch.h"
