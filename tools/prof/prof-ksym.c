/* gorc-prof: kernel addresses named by the kernel (see prof-ksym.h).  */
#include "prof-ksym.h"

#ifdef GORC_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>

#include "prof-ksym.skel.h"

static struct prof_ksym *skel;
static struct prof_ksym_slot *slots;     /* the map, mapped */
static int refused;

/* A refusal is no error here (kallsyms names the addresses instead):
   libbpf's messages are not shown.  */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
  (void)level;
  (void)fmt;
  (void)ap;
  return 0;
}

static int load(void)
{
  libbpf_print_fn_t was = libbpf_set_print(quiet);
  skel = prof_ksym__open_and_load();
  libbpf_set_print(was);
  if (skel) {
    void *m = mmap(NULL, PROF_KSYM_SLOTS * sizeof *slots, PROT_READ | PROT_WRITE, MAP_SHARED,
                   bpf_map__fd(skel->maps.slots), 0);
    if (m != MAP_FAILED) {
      slots = m;
      return 0;
    }
  }
  prof_ksym_end();
  refused = 1;
  return -1;
}

/* The name in S, LEN bytes, or 0 when the kernel has none: %ps prints
   the address itself then ("0x...").  A module's symbol has its module
   after a space ("name [module]").  */
static size_t name_in(const struct prof_ksym_slot *s)
{
  if (s->len <= 1 || s->len > PROF_KSYM_NAME || strncmp(s->name, "0x", 2) == 0)
    return 0;
  return strcspn(s->name, " ");
}

long prof_ksym_name(const uint64_t *pcs, size_t n,
                    void (*named)(void *arg, size_t i, const char *name, size_t len), void *arg)
{
  if (refused || (!skel && load() != 0))
    return -1;
  long count = 0;
  for (size_t first = 0; first < n; first += PROF_KSYM_SLOTS) {
    struct prof_ksym_args args = { n - first < PROF_KSYM_SLOTS ? (uint32_t)(n - first)
                                                               : PROF_KSYM_SLOTS };
    for (uint32_t k = 0; k < args.count; k++)
      slots[k] = (struct prof_ksym_slot){ .pc = pcs[first + k] };
    LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &args, .ctx_size_in = sizeof args);
    if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.prof_ksym), &run) != 0)
      return count;
    for (uint32_t k = 0; k < args.count; k++) {
      size_t len = name_in(&slots[k]);
      if (len) {
        named(arg, first + k, slots[k].name, len);
        count++;
      }
    }
  }
  return count;
}

void prof_ksym_end(void)
{
  if (slots)
    munmap(slots, PROF_KSYM_SLOTS * sizeof *slots);
  prof_ksym__destroy(skel);
  slots = NULL;
  skel = NULL;
}

#else /* !GORC_HAVE_BPF */

long prof_ksym_name(const uint64_t *pcs, size_t n,
                    void (*named)(void *arg, size_t i, const char *name, size_t len), void *arg)
{
  (void)pcs;
  (void)n;
  (void)named;
  (void)arg;
  return -1;
}

void prof_ksym_end(void)
{
}

#endif
