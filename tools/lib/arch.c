/* gorc tools: the architectures the tools read (see arch.h).  */

#include "arch.h"

#include <stddef.h>

static const struct gorc_arch *const ports[] = {
  &gorc_arch_x86_64,
  &gorc_arch_aarch64,
};

const struct gorc_arch *gorc_arch_for(unsigned e_machine)
{
  for (size_t i = 0; i < sizeof ports / sizeof ports[0]; i++)
    if (ports[i]->machine == e_machine)
      return ports[i];
  return NULL;
}

const char *gorc_arch_names(void)
{
  return "x86-64, aarch64";
}
