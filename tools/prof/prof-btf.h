/* gorc-prof --unwind=bpf: the kernel types the walker reads, as a
   minimal BTF for libbpf's CO-RE relocations.

   The walker (prof-bpf.bpf.c) reads a few fields of seven kernel types,
   relocated by libbpf against the running kernel's BTF.  Given none,
   libbpf 1.1 reads and indexes all of /sys/kernel/btf/vmlinux (5 MB or
   more) for them: a quarter of a short profile's CPU, and again for the
   second instance that loads prof_rewalk.  What BTFGen (bpftool gen
   min_core_btf) would make at build time for one kernel is made here
   at each start for the running one: the same structs with only those
   fields, at the kernel's offsets, which libbpf takes as
   btf_custom_path.  */
#ifndef GORC_PROF_BTF_H
#define GORC_PROF_BTF_H

#include <stddef.h>
#include <stdio.h>

/* Room for the path prof_btf_minimal gives.  */
#define PROF_BTF_PATH_MAX 32

/* prof_btf_minimal's FLAGS: */
#define PROF_BTF_READ 1u   /* the kernel's BTF read, not mapped, as where the
                              kernel cannot map it (before 6.16): for the tests */

/* The minimal BTF of the running kernel in a memory file: its path
   (/proc/self/fd/N) into PATH, and the descriptor (the caller closes it
   once every load that names it is done); -1 when the kernel's BTF
   cannot be read or lacks a field (then libbpf is left to read it
   whole, and says what it finds).  *VMA: 1 when it has the fields of
   the walker's lookup of a mapping in the kernel (bpf_find_vma), else 0
   (not asked of the walker).  OUT, unless NULL: how the kernel's BTF
   was read and each field's offset found, a line each (for the
   tests).  */
int prof_btf_minimal(char *path, size_t pathlen, unsigned flags, FILE *out, int *vma);

#endif
