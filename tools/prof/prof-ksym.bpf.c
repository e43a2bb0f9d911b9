/* gorc-prof: the kernel's names of kernel addresses (see prof-ksym.h).  */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "prof-ksym.h"

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, PROF_KSYM_SLOTS);
  __uint(map_flags, BPF_F_MMAPABLE);
  __type(key, uint32_t);
  __type(value, struct prof_ksym_slot);
} slots SEC(".maps");

static long name_slot(uint32_t i, void *unused)
{
  struct prof_ksym_slot *s = bpf_map_lookup_elem(&slots, &i);
  if (!s)
    return 1;
  __u64 pc = s->pc;
  s->len = bpf_snprintf(s->name, sizeof s->name, "%ps", &pc, sizeof pc);
  return 0;
}

SEC("syscall")
int prof_ksym(struct prof_ksym_args *args)
{
  bpf_loop(args->count, name_slot, NULL, 0);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
