# gorc: exact unwind records for C built without frame pointers.
#
#   make          build plugin/gorc.so, tools/gorc-dump, tools/gorc-check,
#                 runtime/libgorc.a and runtime/libgorc.so
#   make demo     build the bundled example with the plugin, show its records
#   make check    run the DejaGnu testsuite; ends with "N passed, M failed"
#                 (GORC_CC=gcc-11: against GCC 11, with its plugin;
#                 RUNTESTFLAGS=runtime.exp: one .exp, as runtest takes it)
#   make PLUGIN_CC=gcc-11   also build the plugin for another installed GCC
#   make ARCH=aarch64       also the plugin for the aarch64 cross compiler
#                 (= PLUGIN_CC=aarch64-linux-gnu-gcc-12; built by default
#                 when that compiler and its plugin headers are installed)
#   make runtime-aarch64    libgorc cross-built for aarch64:
#                 runtime/aarch64/libgorc.a and .so (also built by default
#                 when the aarch64 plugin is)
#   make bench    size of the records vs .eh_frame(+hdr) and .sframe, compile
#                 time (also for gcc-11 when installed), start-up, stack walks,
#                 static calls; BENCH_ONLY=unwind: the stack walks alone;
#                 last, records vs SFrame v3 with the newest GCC of the sid
#                 root (bench/sframe-v3.sh; skipped without the root)
#   make deps     install the Debian packages gorc needs (run automatically)
#   make check-matrix   the testsuite for GCC 13 to 16 (and their aarch64
#                 cross compilers) in a Debian sid root (scripts/sid-root.sh,
#                 docs/GCC_VERSIONS.md); MATRIX_GCC="15 16": some of them;
#                 MATRIX_JOBS=N: N versions at once (default 2)

# GCC the plugin is for, and the C++ compiler of the same GCC to build it.
CC := $(if $(filter default,$(origin CC)),gcc,$(CC))
CXX := $(if $(filter default,$(origin CXX)),g++,$(CXX))

# The plugin runs only in the GCC it was built for.  `make` builds it for
# $(CC) (plugin/gcc-N/gorc.so, N its major version; plugin/gorc.so links to
# it) and also for PLUGIN_CC when that is another GCC:
#   make PLUGIN_CC=gcc-11              plugin/gcc-11/gorc.so as well
#   make install PLUGIN_CC=gcc-11      installs it into gcc-11's plugin dir
#   make check GORC_CC=gcc-11          the testsuite against gcc-11
# The C++ compiler of that GCC builds it (PLUGIN_CXX: gcc -> g++ in the name).
SUPPORTED_GCC = 11 12 13 14 15 16
gcc_major = $(shell $(1) -dumpversion 2>/dev/null | cut -d. -f1)
gcc_arch = $(shell $(1) -dumpmachine 2>/dev/null | cut -d- -f1)
CC_MAJOR := $(call gcc_major,$(CC))
HOST_ARCH := $(call gcc_arch,$(CC))
# A cross compiler's plugin: ARCH=aarch64 names the Debian cross GCC of
# $(CC)'s version.  The plugin runs inside that GCC on this machine, so
# the host's g++ of the same version builds it, against the cross
# compiler's plugin headers.
AARCH64_CC ?= aarch64-linux-gnu-gcc-$(CC_MAJOR)
GORC_CC ?= $(CC)
PLUGIN_CC ?= $(if $(filter aarch64,$(ARCH)),$(AARCH64_CC),$(GORC_CC))
gxx_of = $(if $(filter $(CC),$(1)),$(CXX),$(subst gcc,g++,$(1)))
GORC_CXX ?= $(call gxx_of,$(GORC_CC))
PLUGIN_MAJOR := $(call gcc_major,$(PLUGIN_CC))
PLUGIN_ARCH := $(call gcc_arch,$(PLUGIN_CC))
PLUGIN_CXX ?= $(if $(filter $(HOST_ARCH),$(PLUGIN_ARCH)),$(call gxx_of,$(PLUGIN_CC)),g++-$(PLUGIN_MAJOR))
# Where a GCC's plugin goes: plugin/gcc-N for a GCC of this machine,
# plugin/gcc-N-ARCH for a cross compiler.
plugin_key = $(1)$(if $(filter-out $(HOST_ARCH),$(2)),-$(2))
CC_KEY := $(CC_MAJOR)
PLUGIN_KEY := $(call plugin_key,$(PLUGIN_MAJOR),$(PLUGIN_ARCH))
# The aarch64 plugin is part of `all` (and the aarch64 tests of `make
# check`) when the cross compiler and its plugin headers are installed
# (make deps installs them; without them the aarch64 tests are
# UNSUPPORTED).
AARCH64_PLUGIN_DIR := $(if $(shell command -v $(AARCH64_CC) 2>/dev/null),$(shell $(AARCH64_CC) -print-file-name=plugin))
HAVE_AARCH64 := $(if $(wildcard $(AARCH64_PLUGIN_DIR)/include/plugin-version.h),yes)
AARCH64_KEY := $(if $(HAVE_AARCH64),$(call plugin_key,$(call gcc_major,$(AARCH64_CC)),aarch64))
# Recursive (=): evaluated after `make deps` may have installed the headers.
gcc_plugin_dir = $(shell $(1) -print-file-name=plugin)
GCC_PLUGIN_DIR = $(call gcc_plugin_dir,$(CC))
# gcc-N-plugin-dev lacks dwarf2.h (dwarf2out.h includes it): plugin/compat
# has a stand-in, used only when the real header is missing.
plugin_compat_inc = $(if $(wildcard $(1)/include/dwarf2.h),,-Iplugin/compat)

PLUGIN_CXXFLAGS = -std=gnu++17 -O2 -g -fPIC -fno-rtti -fno-exceptions -Wall -Wextra \
	-Wno-unused-parameter -MMD -MP -Iinclude
TOOL_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Iinclude
TOOL_LIBS = -lelf -ldw
# gorc-check decodes the instructions where records and CFI differ on
# purpose (docs/FORMAT.md, "Where gorc's records differ from GCC's CFI").
CHECK_LIBS = -lcapstone

PLUGIN_SRCS = plugin/gorc-plugin.cc plugin/cfi-interp.cc plugin/bp-restore.cc plugin/records-pass.cc \
	plugin/records-emit.cc plugin/ranges.cc plugin/thunks.cc plugin/static-calls.cc
# The code gorc-dump, gorc-check and gorc-prof share (tools/lib/).  Every
# object's header dependencies come from the compiler (-MMD -MP: a .d
# beside each object), never from a list kept by hand.
TOOL_LIB_SRCS = tools/lib/common.c tools/lib/elfload.c tools/lib/mapped.c tools/lib/symtab.c \
	tools/lib/gopclntab.c tools/lib/arch.c tools/lib/arch-x86_64.c tools/lib/arch-aarch64.c
TOOL_LIB_OBJS = $(TOOL_LIB_SRCS:.c=.o)
TOOL_CFLAGS += -Itools/lib -MMD -MP

tools/%.o: tools/%.c
	$(CC) $(TOOL_CFLAGS) -c $< -o $@
-include $(TOOL_LIB_SRCS:.c=.d) tools/gorc-dump.d tools/gorc-check.d

PLUGIN = plugin/gorc.so
plugin_for = plugin/gcc-$(1)/gorc.so
PLUGINS = $(sort $(call plugin_for,$(CC_KEY)) $(call plugin_for,$(PLUGIN_KEY)) \
	$(if $(AARCH64_KEY),$(call plugin_for,$(AARCH64_KEY))))
TOOLS = tools/gorc-dump tools/gorc-check

.PHONY: all deps demo check check-matrix bench clean FORCE

.DEFAULT_GOAL := all
include runtime/Makefile.inc
include mk/bpf.mk
include mk/dropin.mk
include mk/fuzz.mk

all: $(PLUGIN) $(PLUGINS) $(TOOLS) $(RUNTIME_LIBS) $(if $(HAVE_AARCH64),$(A64_RT_LIBS))

deps:
	CC=$(CC) PLUGIN_CC=$(PLUGIN_CC) scripts/deps.sh install

# Every make but `make deps` and `make clean` first installs what is
# missing.  It does so as the remaking of an included makefile, so that
# when it installs anything make reads its makefiles again: what the
# build takes from the machine (the BPF walker, the aarch64 plugin) is
# then decided with the packages there, not as they were before.
DEPS_MARK := mk/deps-installed.mk
ifeq ($(filter deps clean,$(MAKECMDGOALS)),)
-include $(DEPS_MARK)
endif
$(DEPS_MARK): FORCE
	@CC=$(CC) PLUGIN_CC=$(PLUGIN_CC) scripts/deps.sh check >/dev/null 2>&1 || \
	  { CC=$(CC) PLUGIN_CC=$(PLUGIN_CC) scripts/deps.sh install && \
	    echo "# make installed the packages gorc needs, $$(date -u)" >$@; }

# plugin/gorc.so names $(CC)'s plugin: looked at on every make, since
# another make (CC=gcc-11, as the GCC 11 testsuite run's make install
# does) may have pointed it at another GCC's.
.PHONY: plugin-link
plugin-link: $(call plugin_for,$(CC_MAJOR))
	@test "$$(readlink $(PLUGIN) 2>/dev/null)" = gcc-$(CC_MAJOR)/gorc.so || \
	  ln -sfn gcc-$(CC_MAJOR)/gorc.so $(PLUGIN)
$(PLUGIN): plugin-link

# plugin_rule GCC G++ MAJOR KEY: the plugin for one GCC, refused with a
# clear message for a version gorc does not support or without its headers.
define plugin_rule
$(call plugin_for,$(4)): $$(PLUGIN_SRCS:plugin/%.cc=plugin/gcc-$(4)/%.o)
	$(2) -shared -o $$@ $$^
plugin/gcc-$(4)/%.o: plugin/%.cc
	@test -n "$(3)" || { echo "gorc: cannot run '$(1)' (set CC or PLUGIN_CC to an installed GCC)" >&2; exit 1; }
	@case " $$(SUPPORTED_GCC) " in *" $(3) "*) ;; *) \
	  echo "gorc: $(1) is GCC $(3); the plugin supports these GCC versions only: $$(SUPPORTED_GCC)" \
	       "(docs/GCC_VERSIONS.md, 'Porting to another GCC'); build with one of those: make PLUGIN_CC=gcc-N" >&2; \
	  exit 1;; esac
	@test -f "$$(call gcc_plugin_dir,$(1))/include/plugin-version.h" || { \
	  echo "gorc: GCC plugin headers not found in $$(call gcc_plugin_dir,$(1))/include;" \
	       "install gcc-$(3)-plugin-dev (a cross compiler's: gcc-$(3)-plugin-dev-TRIPLET)" \
	       "(make deps PLUGIN_CC=$(1))" >&2; exit 1; }
	@mkdir -p $$(@D)
	$(2) $$(PLUGIN_CXXFLAGS) -I$$(call gcc_plugin_dir,$(1))/include \
	  $$(call plugin_compat_inc,$$(call gcc_plugin_dir,$(1))) -c $$< -o $$@
-include $$(PLUGIN_SRCS:plugin/%.cc=plugin/gcc-$(4)/%.d)
endef
$(eval $(call plugin_rule,$(CC),$(CXX),$(CC_MAJOR),$(CC_KEY)))
ifneq ($(PLUGIN_KEY),$(CC_KEY))
$(eval $(call plugin_rule,$(PLUGIN_CC),$(PLUGIN_CXX),$(PLUGIN_MAJOR),$(PLUGIN_KEY)))
endif
ifneq ($(AARCH64_KEY),)
ifneq ($(AARCH64_KEY),$(PLUGIN_KEY))
$(eval $(call plugin_rule,$(AARCH64_CC),g++-$(call gcc_major,$(AARCH64_CC)),$(call gcc_major,$(AARCH64_CC)),$(AARCH64_KEY)))
endif
endif

tools/gorc-dump: tools/gorc-dump.o $(TOOL_LIB_OBJS)
	$(CC) -o $@ $^ $(TOOL_LIBS)

tools/gorc-check: tools/gorc-check.o $(TOOL_LIB_OBJS)
	$(CC) -o $@ $^ $(TOOL_LIBS) $(CHECK_LIBS)

demo: all
	$(MAKE) -C examples CC=$(CC) PLUGIN=$(CURDIR)/$(PLUGIN) RUNTIME=$(CURDIR)/runtime \
	  demo demo-sampled
	scripts/demo.sh

# SANITIZE=1: against sanitized tools and libgorc (mk/fuzz.mk).
ifeq ($(SANITIZE),1)
check: check-sanitize
else
check: all
	rm -rf testsuite/out && mkdir -p testsuite/out
	cd testsuite && runtest --tool gorc --srcdir . --outdir out \
	  GORC_ROOT=$(CURDIR) GORC_CC=$(GORC_CC) GORC_CXX=$(GORC_CXX) $(RUNTESTFLAGS) \
	  >out/runtest.log 2>&1; \
	  tail -n 20 out/runtest.log
	testsuite/summary.sh testsuite/out
endif

# The newer GCCs, each in the sid root in a copy of this tree (the host's
# build and testsuite/out stay as they are); results in testsuite/out-matrix.
MATRIX_GCC ?= 13 14 15 16
check-matrix:
	scripts/check-matrix.sh $(MATRIX_GCC)

# The other supported GCCs installed here (gcc-N on the PATH) get the size
# and compile-time part of the bench; the walk, profiler and static-call
# timings measure libgorc and are run for $(CC) only.
BENCH_OTHER_GCCS ?= $(foreach m,$(filter-out $(CC_MAJOR),$(SUPPORTED_GCC)),\
	$(if $(shell command -v gcc-$(m)),gcc-$(m)))
# The plugin for them is built by a make named through this variable: a
# recipe line that names $(MAKE) itself runs even under `make -n`, and
# this one runs the bench.
BENCH_PLUGIN_MAKE = $(MAKE) -s

# aarch64 (when the cross tools are installed): the records' size against
# .eh_frame(+hdr) and .sframe of the C programs cross-built, and the walks
# of bench/unwind's chains under qemu-user, gorc_backtrace against libgcc's
# _Unwind_Backtrace (bench/unwind/aarch64.sh: ratios only, the emulation
# is no hardware).  aarch64 GCC keeps frame records (x29) at -O2 unless
# told otherwise, hence -fomit-frame-pointer.
BENCH_AARCH64_ONLY ?= demo sqlite3 lua5.4 zlib bzip2
BENCH_AARCH64_CFLAGS ?= -O2 -fomit-frame-pointer

# BENCH_ONLY=unwind: the stack walks alone, for $(CC) only.
bench: all
	GORC_ROOT=$(CURDIR) CC=$(CC) bench/run.sh
	$(if $(HAVE_AARCH64),test "$$BENCH_ONLY" = unwind || \
	  GORC_ROOT=$(CURDIR) CC=$(AARCH64_CC) BENCH_ONLY="$(BENCH_AARCH64_ONLY)" \
	  BENCH_CFLAGS="$(BENCH_AARCH64_CFLAGS)" \
	  BENCH_SKIP_STARTUP=1 BENCH_SKIP_UNWIND=1 BENCH_SKIP_PROF=1 BENCH_SKIP_STATIC_CALL=1 \
	  bench/run.sh)
	$(if $(HAVE_AARCH64),GORC_ROOT=$(CURDIR) AARCH64_CC=$(AARCH64_CC) bench/unwind/aarch64.sh)
	test "$$BENCH_ONLY" = unwind || for cc in $(BENCH_OTHER_GCCS); do \
	  $(BENCH_PLUGIN_MAKE) PLUGIN_CC=$$cc all && \
	  GORC_ROOT=$(CURDIR) CC=$$cc BENCH_SKIP_UNWIND=1 BENCH_SKIP_PROF=1 \
	    BENCH_SKIP_STATIC_CALL=1 bench/run.sh || exit 1; done
	test "$$BENCH_ONLY" = unwind || bench/sframe-v3.sh

clean: runtime-clean
	rm -f $(PLUGIN) $(TOOLS) $(DROPIN_TOOLS) tools/prof/profile.pb-c.c tools/prof/profile.pb-c.h
	rm -f tools/*.[od] tools/*/*.[od]
	rm -rf $(wildcard plugin/gcc-[0-9]*)
	rm -rf testsuite/out testsuite/out-matrix testsuite/out-ci
	-$(MAKE) -C examples clean
