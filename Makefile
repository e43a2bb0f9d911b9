# gorc: exact unwind records for C built without frame pointers.
#
#   make          build plugin/gorc.so, tools/gorc-dump, tools/gorc-check,
#                 runtime/libgorc.a and runtime/libgorc.so
#   make demo     build the bundled example with the plugin, show its records
#   make check    run the DejaGnu testsuite; ends with "N passed, M failed"
#   make bench    size of the records vs .eh_frame(+hdr) and .sframe
#   make deps     install the Debian packages gorc needs (run automatically)

# GCC the plugin is for, and the C++ compiler of the same GCC to build it.
CC := $(if $(filter default,$(origin CC)),gcc,$(CC))
CXX := $(if $(filter default,$(origin CXX)),g++,$(CXX))

# Recursive (=): evaluated after `make deps` may have installed the headers.
GCC_PLUGIN_DIR = $(shell $(CC) -print-file-name=plugin)
# gcc-12-plugin-dev lacks dwarf2.h (dwarf2out.h includes it): plugin/compat
# has a stand-in, used only when the real header is missing.
PLUGIN_COMPAT_INC = $(if $(wildcard $(GCC_PLUGIN_DIR)/include/dwarf2.h),,-Iplugin/compat)

PLUGIN_CXXFLAGS = -std=gnu++17 -O2 -g -fPIC -fno-rtti -fno-exceptions -Wall -Wextra \
	-Wno-unused-parameter -I$(GCC_PLUGIN_DIR)/include $(PLUGIN_COMPAT_INC) -Iinclude
TOOL_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Iinclude
TOOL_LIBS = -lelf -ldw

PLUGIN_SRCS = plugin/gorc-plugin.cc plugin/cfi-interp.cc plugin/records-pass.cc \
	plugin/records-emit.cc plugin/thunks.cc plugin/static-calls.cc
PLUGIN_HDRS = plugin/gcc-compat.h plugin/arch.h plugin/cfi-interp.h plugin/records.h \
	plugin/compat/dwarf2.h include/gorc/format.h plugin/static-calls.h \
	runtime/include/gorc/static_call.h
TOOL_COMMON = tools/common.c tools/elfload.c
TOOL_HDRS = tools/common.h tools/elfload.h include/gorc/format.h

PLUGIN = plugin/gorc.so
TOOLS = tools/gorc-dump tools/gorc-check

.PHONY: all deps deps-if-missing demo check bench clean

.DEFAULT_GOAL := all
include runtime/Makefile.inc
include mk/dropin.mk

all: $(PLUGIN) $(TOOLS) $(RUNTIME_LIBS)

deps:
	scripts/deps.sh install

deps-if-missing:
	@scripts/deps.sh check >/dev/null 2>&1 || scripts/deps.sh install

$(PLUGIN) $(TOOLS) $(RUNTIME_OBJS): | deps-if-missing

$(PLUGIN): $(PLUGIN_SRCS) $(PLUGIN_HDRS)
	@test -f "$(GCC_PLUGIN_DIR)/include/plugin-version.h" || { \
	  echo "gorc: GCC plugin headers not found in $(GCC_PLUGIN_DIR)/include;" \
	       "install gcc-$$($(CC) -dumpversion | cut -d. -f1)-plugin-dev (make deps)" >&2; exit 1; }
	$(CXX) $(PLUGIN_CXXFLAGS) -shared -o $@ $(PLUGIN_SRCS)

tools/gorc-dump: tools/gorc-dump.c $(TOOL_COMMON) $(TOOL_HDRS)
	$(CC) $(TOOL_CFLAGS) -o $@ tools/gorc-dump.c $(TOOL_COMMON) $(TOOL_LIBS)

tools/gorc-check: tools/gorc-check.c $(TOOL_COMMON) $(TOOL_HDRS)
	$(CC) $(TOOL_CFLAGS) -o $@ tools/gorc-check.c $(TOOL_COMMON) $(TOOL_LIBS)

demo: all deps-if-missing
	$(MAKE) -C examples CC=$(CC) PLUGIN=$(CURDIR)/$(PLUGIN) RUNTIME=$(CURDIR)/runtime \
	  demo demo-sampled
	scripts/demo.sh

check: all deps-if-missing
	rm -rf testsuite/out && mkdir -p testsuite/out
	cd testsuite && runtest --tool gorc --srcdir . --outdir out \
	  GORC_ROOT=$(CURDIR) GORC_CC=$(CC) GORC_CXX=$(CXX) >out/runtest.log 2>&1; \
	  tail -n 20 out/runtest.log
	testsuite/summary.sh testsuite/out

bench: all
	GORC_ROOT=$(CURDIR) CC=$(CC) bench/run.sh

clean: runtime-clean
	rm -f $(PLUGIN) $(TOOLS)
	rm -rf testsuite/out
	-$(MAKE) -C examples clean
