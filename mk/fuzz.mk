# Fuzzing and sanitizers (docs/FUZZING.md), included by the Makefile.
#
#   make fuzz     every libFuzzer target (scripts/fuzz.sh) for FUZZ_SECONDS
#                 each, in fuzz/ (its corpora kept there between runs):
#                 executions and crashes per target and in total
#
# 300 s each.  The in-memory targets make most of the executions: on
# this project's 2-core VM, quiet, the .eh_frame lookup ran about 9,000
# a second with its seeds and the record decoder 30,000 (five targets:
# about 12 million, estimated from 5-second runs); shared at a load of
# 14, a run made 5.0 million
# (docs/FUZZING.md has the figures), so give a busy machine more time.
FUZZ_SECONDS ?= 300

.PHONY: fuzz
fuzz: all
	CC=$(CC) scripts/fuzz.sh -t $(FUZZ_SECONDS) -o fuzz

.PHONY: fuzz-clean
clean: fuzz-clean
fuzz-clean:
	rm -rf fuzz

# make check SANITIZE=1: the whole testsuite against a build of the
# tools with ASan and UBSan and of libgorc with UBSan, made in san/ (a
# copy of the sources: the normal build is left alone; the plugins are
# the normal build's, linked).  GORC_ROOT is san/, so every test finds
# the sanitized tools and libraries where it looks for them.
#   tools    -fsanitize=address,undefined, gorc-prof linked dynamically
#            (ASan cannot be -static-pie); a report (written to
#            san/sanitizer-reports/, a file per process that had one: a
#            process stops at its first; a report the run-time prints to
#            the test's output instead, as seen in gorc.dropin's, is
#            counted from the test log) makes the tool exit 99, which
#            fails its test.
#   libgorc  -fsanitize=undefined in trap mode: no sanitizer run-time, so
#            libgorc.a links into the test programs as it is, and the
#            checks run in signal handlers, where the UBSan run-time's
#            reporting is not async-signal-safe; a finding is a SIGILL at
#            the faulting instruction, which fails its test.
# The run ends with "sanitizer: N reports" and fails when N > 0.  Tests
# that cannot run under a sanitizer (valgrind over a tool) are
# UNSUPPORTED, told by GORC_SANITIZE=1.
SAN_DIR = san
SAN_TOOL_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
SAN_RUNTIME_FLAGS = -fsanitize=undefined -fsanitize-undefined-trap-on-error

ifeq ($(SAN_INNER),1)
TOOL_CFLAGS += $(SAN_TOOL_FLAGS)
TOOL_LIBS += $(SAN_TOOL_FLAGS)
PROF_LDFLAGS = $(SAN_TOOL_FLAGS)
RUNTIME_CFLAGS += $(SAN_RUNTIME_FLAGS)
SAN_REPORTS = $(CURDIR)/sanitizer-reports
export GORC_SANITIZE = 1
export ASAN_OPTIONS = exitcode=99:log_path=$(SAN_REPORTS)/asan:detect_leaks=1
export UBSAN_OPTIONS = halt_on_error=1:exitcode=99:print_stacktrace=1:log_path=$(SAN_REPORTS)/ubsan
endif

.PHONY: check-sanitize san-tree
check-sanitize: all
	@command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || \
	  { echo "gorc: make check SANITIZE=1 copies the sources listed by git: not a git checkout" >&2; exit 1; }
	mkdir -p $(SAN_DIR)
	git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C $(SAN_DIR)
	for d in plugin/gcc-*; do [ -e "$(SAN_DIR)/$$d" ] || ln -s "$(CURDIR)/$$d" "$(SAN_DIR)/$$d"; done
	rm -rf $(SAN_DIR)/sanitizer-reports && mkdir -p $(SAN_DIR)/sanitizer-reports
	-$(MAKE) -C $(SAN_DIR) SANITIZE= SAN_INNER=1 GORC_CC=$(GORC_CC) check
	@n=$$(( $$(ls $(SAN_DIR)/sanitizer-reports | wc -l) + $$(grep -c \
	  'runtime error: \|ERROR: AddressSanitizer\|ERROR: LeakSanitizer' \
	  $(SAN_DIR)/testsuite/out/gorc.log) )); \
	  echo "sanitizer: $$n reports (in $(SAN_DIR)/sanitizer-reports/)"; \
	  ls $(SAN_DIR)/sanitizer-reports/* >/dev/null 2>&1 && cat $(SAN_DIR)/sanitizer-reports/* | head -n 40; \
	  test "$$n" = 0 && testsuite/summary.sh $(SAN_DIR)/testsuite/out >/dev/null

clean: san-clean
.PHONY: san-clean
san-clean:
	rm -rf $(SAN_DIR)
