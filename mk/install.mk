# make install / make uninstall (included through mk/dropin.mk).
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [PLUGINDIR=...]
#                [PLUGIN_CC=gcc-11 [PLUGIN_CC_DIR=...]]
#
#   $(PREFIX)/bin       gorc-gcc gorc-g++ gorc-dump gorc-check gorc-prof
#   $(PREFIX)/lib       libgorc.a libgorc.so libgorc-preload.so pkgconfig/gorc.pc
#   $(PREFIX)/include   gorc.h and everything else in runtime/include
#   $(PLUGINDIR)        gorc.so for $(CC); default: that GCC's plugin
#                       directory ($(CC) -print-file-name=plugin)
#   $(PLUGIN_CC_DIR)    with PLUGIN_CC another GCC: gorc.so for it; default:
#                       its plugin directory
#
# The installed gorc-gcc/gorc-g++ and gorc.pc name the installed paths
# (without DESTDIR): the wrappers load the plugin of the GCC they run
# (GORC_CC=gcc-11), gorc.pc has `plugin` ($(CC)'s) and plugin_gccN for each.  gorc-prof finds libgorc-preload.so in ../lib next to
# itself (or GORC_PRELOAD).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PLUGINDIR ?= $(GCC_PLUGIN_DIR)
PLUGIN_CC_DIR ?= $(call gcc_plugin_dir,$(PLUGIN_CC))
# "MAJOR:DIR" of each plugin installed.
INSTALL_PLUGINS = $(CC_MAJOR):$(PLUGINDIR) \
	$(if $(filter-out $(CC_MAJOR),$(PLUGIN_MAJOR)),$(PLUGIN_MAJOR):$(PLUGIN_CC_DIR))
plugin_major = $(firstword $(subst :, ,$(1)))
plugin_dir = $(lastword $(subst :, ,$(1)))
INSTALLED_PLUGINS = $(foreach p,$(INSTALL_PLUGINS),$(call plugin_dir,$(p))/gorc.so)
WRAPPER_PLUGINS = $(foreach p,$(INSTALL_PLUGINS),$(p)/gorc.so)
empty :=
space := $(empty) $(empty)
# gorc.pc's plugin_gccN= lines, joined by sed's \n (paths have no spaces)
PC_PLUGIN_VARS = $(subst $(space),\n,$(strip $(foreach p,$(INSTALL_PLUGINS),\
	plugin_gcc$(call plugin_major,$(p))=$(call plugin_dir,$(p))/gorc.so)))
GORC_VERSION = 0.1
INSTALL ?= install

GORC_HEADERS = $(shell cd runtime/include && find . -name '*.h' | sed 's|^\./||' | sort)
INSTALLED_BIN = gorc-gcc gorc-g++ gorc-dump gorc-check gorc-prof
INSTALLED_LIB = libgorc.a libgorc.so libgorc-preload.so

.PHONY: install uninstall
install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR)
	for p in $(INSTALL_PLUGINS); do \
	  $(INSTALL) -D -m 755 plugin/gcc-$${p%%:*}/gorc.so $(DESTDIR)$${p#*:}/gorc.so || exit 1; done
	$(INSTALL) -m 755 tools/gorc-dump tools/gorc-check tools/gorc-prof $(DESTDIR)$(BINDIR)/
	$(call gorc_wrapper,gorc-gcc,$(CC),$(PLUGINDIR)/gorc.so,$(LIBDIR),$(INCLUDEDIR),GORC_CC,$(WRAPPER_PLUGINS)) \
	  >$(DESTDIR)$(BINDIR)/gorc-gcc
	$(call gorc_wrapper,gorc-g++,$(CXX),$(PLUGINDIR)/gorc.so,$(LIBDIR),$(INCLUDEDIR),GORC_CXX,$(WRAPPER_PLUGINS)) \
	  >$(DESTDIR)$(BINDIR)/gorc-g++
	chmod 755 $(DESTDIR)$(BINDIR)/gorc-gcc $(DESTDIR)$(BINDIR)/gorc-g++
	$(INSTALL) -m 644 runtime/libgorc.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 runtime/libgorc.so runtime/libgorc-preload.so $(DESTDIR)$(LIBDIR)/
	for h in $(GORC_HEADERS); do \
	  $(INSTALL) -D -m 644 runtime/include/$$h $(DESTDIR)$(INCLUDEDIR)/$$h || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@PLUGIN@|$(PLUGINDIR)/gorc.so|g' \
	  -e 's|@VERSION@|$(GORC_VERSION)|g' \
	  -e 's|@PLUGIN_VARS@|$(PC_PLUGIN_VARS)|' gorc.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/gorc.pc

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INSTALLED_BIN))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(INSTALLED_LIB))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(GORC_HEADERS))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/gorc 2>/dev/null
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/gorc.pc \
	  $(addprefix $(DESTDIR),$(INSTALLED_PLUGINS))
