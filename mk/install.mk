# make install / make uninstall (included through mk/dropin.mk).
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [PLUGINDIR=...]
#
#   $(PREFIX)/bin       gorc-gcc gorc-g++ gorc-dump gorc-check gorc-prof
#   $(PREFIX)/lib       libgorc.a libgorc.so libgorc-preload.so pkgconfig/gorc.pc
#   $(PREFIX)/include   gorc.h and everything else in runtime/include
#   $(PLUGINDIR)        gorc.so; default: the plugin directory of the GCC it
#                       was built for ($(CC) -print-file-name=plugin)
#
# The installed gorc-gcc/gorc-g++ and gorc.pc name the installed paths
# (without DESTDIR).  gorc-prof finds libgorc-preload.so in ../lib next to
# itself (or GORC_PRELOAD).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PLUGINDIR ?= $(GCC_PLUGIN_DIR)
GORC_VERSION = 0.1
INSTALL ?= install

GORC_HEADERS = $(shell cd runtime/include && find . -name '*.h' | sed 's|^\./||' | sort)
INSTALLED_BIN = gorc-gcc gorc-g++ gorc-dump gorc-check gorc-prof
INSTALLED_LIB = libgorc.a libgorc.so libgorc-preload.so

.PHONY: install uninstall
install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(PLUGINDIR)
	$(INSTALL) -m 755 $(PLUGIN) $(DESTDIR)$(PLUGINDIR)/gorc.so
	$(INSTALL) -m 755 tools/gorc-dump tools/gorc-check tools/gorc-prof $(DESTDIR)$(BINDIR)/
	$(call gorc_wrapper,gorc-gcc,$(CC),$(PLUGINDIR)/gorc.so,$(LIBDIR),$(INCLUDEDIR),GORC_CC) \
	  >$(DESTDIR)$(BINDIR)/gorc-gcc
	$(call gorc_wrapper,gorc-g++,$(CXX),$(PLUGINDIR)/gorc.so,$(LIBDIR),$(INCLUDEDIR),GORC_CXX) \
	  >$(DESTDIR)$(BINDIR)/gorc-g++
	chmod 755 $(DESTDIR)$(BINDIR)/gorc-gcc $(DESTDIR)$(BINDIR)/gorc-g++
	$(INSTALL) -m 644 runtime/libgorc.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 runtime/libgorc.so runtime/libgorc-preload.so $(DESTDIR)$(LIBDIR)/
	for h in $(GORC_HEADERS); do \
	  $(INSTALL) -D -m 644 runtime/include/$$h $(DESTDIR)$(INCLUDEDIR)/$$h || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@PLUGIN@|$(PLUGINDIR)/gorc.so|g' \
	  -e 's|@VERSION@|$(GORC_VERSION)|g' gorc.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/gorc.pc

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INSTALLED_BIN))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(INSTALLED_LIB))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(GORC_HEADERS))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/gorc 2>/dev/null
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/gorc.pc $(DESTDIR)$(PLUGINDIR)/gorc.so
