# gorc as a drop-in (issue 5), included by the top-level Makefile:
#   tools/gorc-gcc, tools/gorc-g++   compiler wrappers (build-tree paths)
#   tools/gorc-prof                  sampling profiler (perf events; --preload)
#   make check-projects              real projects built with CC=gorc-gcc
#   make install / uninstall         mk/install.mk

DROPIN_TOOLS = tools/gorc-gcc tools/gorc-g++ tools/gorc-prof

all: $(DROPIN_TOOLS)

# gorc_wrapper NAME DRIVER PLUGIN LIBDIR INCDIR CCVAR PLUGINS
# PLUGINS: "MAJOR:PATH ..." the plugin for each GCC major version.
gorc_wrapper = sed -e 's|@NAME@|$(1)|g' -e 's|@DRIVER@|$(2)|g' -e 's|@CCVAR@|$(6)|g' -e 's|@PLUGIN@|$(3)|g' \
	-e 's|@LIBDIR@|$(4)|g' -e 's|@INCDIR@|$(5)|g' -e 's|@PLUGINS@|$(strip $(7))|g' \
	-e 's|@SUPPORTED@|$(SUPPORTED_GCC)|g' tools/gorc-gcc.in

# The build tree's wrappers know every supported version's place.
BUILD_PLUGINS = $(foreach m,$(SUPPORTED_GCC),$(m):$(CURDIR)/$(call plugin_for,$(m)))

tools/gorc-gcc: tools/gorc-gcc.in mk/dropin.mk
	$(call gorc_wrapper,gorc-gcc,$(CC),$(CURDIR)/$(PLUGIN),$(CURDIR)/runtime,$(CURDIR)/runtime/include,GORC_CC,$(BUILD_PLUGINS)) >$@.tmp
	chmod +x $@.tmp && mv $@.tmp $@

tools/gorc-g++: tools/gorc-gcc.in mk/dropin.mk
	$(call gorc_wrapper,gorc-g++,$(CXX),$(CURDIR)/$(PLUGIN),$(CURDIR)/runtime,$(CURDIR)/runtime/include,GORC_CXX,$(BUILD_PLUGINS)) >$@.tmp
	chmod +x $@.tmp && mv $@.tmp $@

# The symbol reader (include/gorc/elf_symbols.h) is the crash handler's,
# the .eh_frame reader (include/gorc/eh_frame.h) libgorc's, run over the
# bytes of a file, the step rules (include/gorc/step.h) libgorc's, over
# a sample's stack copy, and the signal return code
# (include/gorc/sigreturn.h) the one libgorc's ports look for.  gorc-prof is linked static, libc
# too (-static-pie: still position independent): loading and relocating
# libelf, protobuf-c and zlib was about 0.7 ms of every run's start-up
# (gorc-prof --help: 2.8 ms of CPU against 2.1 ms), and libc's another
# 0.7 ms and 30 of a small perf.data's 360 page faults (perf stat -r 40,
# gorc-prof --perf-data of bench/prof/run.sh's demo-x30: task-clock 11.4
# against 10.7 ms).
PROF_SRCS = tools/prof/gorc-prof.c tools/prof/prof-svg.c tools/prof/prof-data.c \
	tools/prof/prof-fold.c tools/prof/prof-preload.c tools/prof/prof-record.c \
	tools/prof/prof-feed.c tools/prof/prof-perf.c tools/prof/prof-unwind.c \
	tools/prof/prof-perfdata.c tools/prof/prof-pprof.c tools/prof/prof-kernel.c \
	tools/prof/prof-bpf.c tools/prof/prof-btf.c tools/prof/prof-cache.c tools/prof/prof-keep.c \
	tools/prof/prof-ksym.c tools/prof/prof-publish.c \
	tools/prof/profile.pb-c.c
PROF_OBJS = $(PROF_SRCS:.c=.o)
PROF_LDFLAGS = -static-pie
tools/prof/%.o: TOOL_CFLAGS += -Itools/prof
# Every gorc-prof object waits for the generated pprof header, which
# several of them include.
$(PROF_OBJS): | tools/prof/profile.pb-c.h
-include $(PROF_SRCS:.c=.d)
# libelf.a's own libraries from its pkg-config file (elfutils 0.196's needs zstd).
tools/gorc-prof: $(PROF_OBJS) $(TOOL_LIB_OBJS)
	$(CC) -o $@ $^ $(PROF_LDFLAGS) -pthread $(PROF_BPF_LIBS) $$(pkg-config --static --libs libelf) -lprotobuf-c -lz \
	  "$$($(CC) -print-file-name=libsupc++.a)"

# pprof's profile.proto (golang-github-google-pprof-dev) compiled by protoc-c.
PPROF_PROTO = /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
tools/prof/profile.pb-c.c:
	protoc-c --c_out=tools/prof -I$(dir $(PPROF_PROTO)) $(PPROF_PROTO)
tools/prof/profile.pb-c.h: tools/prof/profile.pb-c.c

.PHONY: check-projects
check-projects: all
	GORC_ROOT=$(CURDIR) testsuite/projects/run.sh

include mk/install.mk
