# gorc-prof --unwind=bpf: the BPF walker (tools/prof/prof-bpf.bpf.c),
# compiled by clang for the BPF target with CO-RE (its few kernel types
# are declared in the source and relocated against the running kernel's
# BTF at load: no vmlinux.h), embedded in gorc-prof through a bpftool
# skeleton and loaded with libbpf (libbpf-dev, linked static).  Without
# clang, bpftool or libbpf gorc-prof is built without it: the BPF mode
# then says it was not built, and its tests are UNSUPPORTED.
BPF_CLANG := $(firstword $(foreach c,clang clang-16 clang-15 clang-14,$(if $(shell command -v $(c) 2>/dev/null),$(c))))
BPFTOOL := $(firstword $(foreach c,bpftool /usr/sbin/bpftool,$(if $(shell command -v $(c) 2>/dev/null),$(c))))
HAVE_BPF := $(if $(and $(BPF_CLANG),$(BPFTOOL),$(wildcard /usr/include/bpf/bpf_helpers.h),$(wildcard /usr/lib/$(shell $(CC) -print-multiarch)/libbpf.a)),yes)
BPF_MULTIARCH_INC := /usr/include/$(shell $(CC) -print-multiarch)
# The objects GORC_HAVE_BPF changes.  They are built again when the BPF
# mode comes or goes (clang or libbpf installed after a build): they
# depend on a mark that holds HAVE_BPF, written only when that changes.
PROF_BPF_DEFINED := tools/prof/prof-bpf.o tools/prof/prof-ksym.o tools/prof/prof-keep.o \
  tools/prof/prof-publish.o

ifeq ($(HAVE_BPF),yes)
# Two objects: the walker, and the program that names kernel addresses
# (prof-ksym.bpf.c).  Their header dependencies come from clang (-MMD
# -MP), as every object's.
PROF_BPF_OBJS := tools/prof/prof-bpf.bpf.o tools/prof/prof-ksym.bpf.o
$(PROF_BPF_OBJS): %.bpf.o: %.bpf.c
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -ffreestanding -Wall -Wextra \
	  -Wno-unused-parameter -MMD -MP -I$(BPF_MULTIARCH_INC) -Iinclude -Itools/prof -c $< -o $@
-include $(PROF_BPF_OBJS:.o=.d)
tools/prof/prof-bpf.skel.h: SKEL_NAME := prof_walker
tools/prof/prof-ksym.skel.h: SKEL_NAME := prof_ksym
tools/prof/prof-bpf.skel.h tools/prof/prof-ksym.skel.h: %.skel.h: %.bpf.o
	$(BPFTOOL) gen skeleton $< name $(SKEL_NAME) >$@.tmp && mv $@.tmp $@
tools/prof/prof-bpf.o: tools/prof/prof-bpf.skel.h
tools/prof/prof-ksym.o: tools/prof/prof-ksym.skel.h
$(PROF_BPF_DEFINED): TOOL_CFLAGS += -DGORC_HAVE_BPF
PROF_BPF_LIBS := -lbpf
endif
PROF_BPF_MARK := tools/prof/have-bpf.txt
$(PROF_BPF_MARK): FORCE
	@echo '$(HAVE_BPF)' | cmp -s - $@ || echo '$(HAVE_BPF)' >$@
$(PROF_BPF_DEFINED): $(PROF_BPF_MARK)
clean: clean-bpf
.PHONY: clean-bpf
clean-bpf:
	rm -f $(PROF_BPF_MARK) $(foreach o,prof-bpf prof-ksym,tools/prof/$(o).bpf.o tools/prof/$(o).bpf.d \
	  tools/prof/$(o).skel.h tools/prof/$(o).skel.h.tmp)
