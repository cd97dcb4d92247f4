# tdaudit - one Makefile for everything; out-of-tree builds under build/.
#
#   make            build the release variant in build/
#   make test       install what is missing (ci/deps), build, run the suite in
#                   float (build/) and double precision (build/double)
#   make asan       ASan + UBSan build in build/asan running the whole suite
#   make check      everything CI runs, in CI's order (test, then asan)
#   make audit      install what is missing, build, run the audit job on this
#                   repository: mutate, reproduce --all, audit, ledger check
#   make coverage   gcov/lcov line coverage summary from build/coverage
#   make fuzz       clang libFuzzer targets of fuzz/ (build/fuzz), each run
#                   FUZZ_TIME seconds (default 60; CI runs FUZZ_TIME=10) from
#                   its seed corpus fuzz/corpus/TARGET; FUZZ_TARGETS="idx ctok"
#                   picks some. Findings land in build/fuzz/artifacts/
#                   (fuzz/README.md)
#   make valgrind   the suite under valgrind memcheck (build/valgrind), one
#                   process per test group, suppressions in ci/valgrind.supp;
#                   slow, so the weekly job runs it whole and
#                   VALGRIND_GROUPS="ctok debugmd" runs some groups
#   make stress     SIGKILL at random moments, 50 kills (STRESS_TRIALS=N,
#                   STRESS_SEED=S to replay)
#   make config     print every detected value
#   make install    PREFIX=/usr/local (DESTDIR honoured); make uninstall
#   make clean
#
# Variants are one Makefile invoked again with VARIANT=release|double|asan|
# coverage|fuzz|valgrind; each has its own build directory, so they never share objects.
# CUDA=auto (default) compiles kernels/*.cu with nvcc when nvcc exists;
# CUDA=0 builds without, CUDA=1 insists.

.DELETE_ON_ERROR:
.SECONDARY: # keep the *_main.o objects make would otherwise delete as intermediates
.SUFFIXES:
MAKEFLAGS += --no-builtin-rules

VARIANT ?= release
CUDA ?= auto
PREFIX ?= /usr/local
BUILDROOT ?= build
FUZZ_CC ?= clang

# --- variant -------------------------------------------------------------
# GCC 12's -O2 vectorises a loop only when no scalar remainder is needed
# (-fvect-cost-model=very-cheap), so a loop over a run-time count - most of
# the core's - stayed scalar. The dynamic model is -O3's. Vectorising never
# reorders a floating-point sum (that would take -ffast-math) and C11 mode
# never contracts a multiply-add (FPFLAGS below), so results are bitwise the same.
#
# ARCH is the instruction set the compiler may use everywhere: x86-64-v3
# (AVX2, 32-byte vectors) when the building CPU has AVX2, else the
# compiler's default. The binary then runs on CPUs like the one that built
# it; `make ARCH=` builds one for any x86-64 (the GEMM still picks its AVX2
# kernel at run time, gemm.h). Results are bitwise the same either way, for
# the two reasons above: bench/core's hashes compare the two builds.
ARCH ?= $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo x86-64-v3)
# Clang (make CC=clang) has no -fvect-cost-model: its -O2 already runs the
# loop vectoriser with its own cost model.
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo 1)
OPT := -O2 -g $(if $(CC_IS_CLANG),,-fvect-cost-model=dynamic) $(if $(ARCH),-march=$(ARCH))
ifeq ($(VARIANT),release)
  BUILD := $(BUILDROOT)
  VFLAGS := $(OPT)
else ifeq ($(VARIANT),double)
  BUILD := $(BUILDROOT)/double
  VFLAGS := $(OPT) -DTD_REAL_DOUBLE
else ifeq ($(VARIANT),asan)
  BUILD := $(BUILDROOT)/asan
  VFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
  VLDFLAGS := -fsanitize=address,undefined
  override CUDA := 0 # the CUDA runtime and ASan's shadow memory do not mix
else ifeq ($(VARIANT),fuzz) # make fuzz: clang, libFuzzer's coverage hooks, ASan + UBSan
  BUILD := $(BUILDROOT)/fuzz
  override CC := $(FUZZ_CC)
  VFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	    -fno-sanitize-recover=all
  VLDFLAGS := -fsanitize=address,undefined
  override CUDA := 0
else ifeq ($(VARIANT),valgrind) # make valgrind: plain code memcheck can follow
  BUILD := $(BUILDROOT)/valgrind
  VFLAGS := -O1 -g
  override CUDA := 0 # the CUDA runtime's mappings drown memcheck's reports
else ifeq ($(VARIANT),coverage)
  BUILD := $(BUILDROOT)/coverage
  VFLAGS := -O0 -g --coverage
  VLDFLAGS := --coverage
  override CUDA := 0
else
  $(error VARIANT=$(VARIANT) is not one of: release double asan coverage)
endif

# --- CUDA ----------------------------------------------------------------
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
ifeq ($(CUDA),auto)
  override CUDA := $(if $(NVCC),1,0)
endif
ifeq ($(CUDA),1)
  ifeq ($(NVCC),)
    $(error CUDA=1 but no nvcc was found; put it on PATH, set NVCC=, or build with CUDA=0)
  endif
  CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))
  # sm_75 machine code plus sm_90 (H100/H200) and its PTX for newer parts.
  NVCC_ARCH ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=[sm_90,compute_90]
  KERN_OBJ := $(BUILD)/kernels/cuda.o $(BUILD)/kernels/ops.o $(BUILD)/kernels/exec.o
  CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcudart -lstdc++
else
  KERN_OBJ := $(BUILD)/kernels/nocuda.o
endif

# --- dependencies (pkg-config names; .pkgcheck maps them to Debian packages) ---
PKGS := libgit2 sqlite3 lua5.4 cmocka zlib
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS))

# --- flags ---------------------------------------------------------------
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?=
# -ffp-contract=off: no multiply-add is fused into one rounding. GCC's C11
# mode already never fuses; clang's default fuses within an expression (an
# FMA with -march=x86-64-v3), which changes the bits the tests compare.
FPFLAGS := -ffp-contract=off
CFLAGS_ALL = -std=c11 -D_POSIX_C_SOURCE=200809L $(VFLAGS) $(FPFLAGS) $(WARN) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
# -Wconversion where practical: the core and kernels (numeric code), not
# the cmocka tests, whose macros convert freely.
CONV := -Wconversion
LDLIBS_ALL = $(VLDFLAGS) $(PKG_LIBS) $(CUDA_LIBS) -lm -lpthread

# --- sources ---------------------------------------------------------------
# A file named *_main.c is a program's entry point; every .c file in base/
# (errors, files, hashing, growable arrays, string vectors, JSON) goes into
# libtdbase.a, every other one in core/ into libtdcore.a, and every one in
# harness/ and ledger/ into libtdaudit.a. The core and the harness both
# build on the base; the harness never links the core. Adding a file adds
# it to the build.
BASE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard base/*.c))
CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out %_main.c,$(wildcard core/*.c)))
AUDIT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out %_main.c,$(wildcard harness/*.c ledger/*.c)))
LIBBASE := $(BUILD)/libtdbase.a
LIBCORE := $(BUILD)/libtdcore.a
LIBAUDIT := $(BUILD)/libtdaudit.a
PROGS := $(patsubst core/%_main.c,$(BUILD)/%,$(wildcard core/*_main.c)) \
	 $(patsubst harness/%_main.c,$(BUILD)/%,$(wildcard harness/*_main.c))
BENCHES := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
TEST_GROUPS := $(patsubst tests/test_%.c,%,$(wildcard tests/test_*.c))
TEST_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/*.c))
TDTEST := $(BUILD)/tests/tdtest

.PHONY: all test asan double coverage check audit config install uninstall clean \
	deps run-tests fuzz fuzz-run valgrind valgrind-run stress FORCE
all: $(LIBBASE) $(LIBCORE) $(LIBAUDIT) $(PROGS) $(TDTEST) $(BENCHES)

$(BUILD)/.pkgcheck:
	@missing=""; for p in $(PKGS); do pkg-config --exists $$p || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  for p in $$missing; do \
	    case $$p in libgit2) d=libgit2-dev;; sqlite3) d=libsqlite3-dev;; lua5.4) d=liblua5.4-dev;; cmocka) d=libcmocka-dev;; zlib) d=zlib1g-dev;; esac; \
	    echo "make: pkg-config cannot find $$p: install the Debian package $$d (ci/deps installs everything)" >&2; \
	  done; exit 2; fi
	@mkdir -p $(@D) && touch $@

$(BUILD)/base/%.o $(BUILD)/core/%.o $(BUILD)/harness/%.o $(BUILD)/ledger/%.o: | $(BUILD)/.pkgcheck
$(BUILD)/base/%.o: base/%.c $(BUILD)/.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CONV) -c $< -o $@
$(BUILD)/core/%.o: core/%.c $(BUILD)/.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CONV) -c $< -o $@
$(BUILD)/harness/%.o: harness/%.c $(BUILD)/.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CONV) -c $< -o $@
$(BUILD)/ledger/%.o: ledger/%.c $(BUILD)/.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CONV) -c $< -o $@

$(BUILD)/kernels/nocuda.o: kernels/nocuda.c $(BUILD)/.flags | $(BUILD)/.pkgcheck
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CONV) -c $< -o $@

# -fmad=false: a multiply and an add stay two IEEE operations, as in C11
# mode on the CPU, so the kernels' bodies (kernels/ops.h) give the CPU's bits.
$(BUILD)/kernels/%.o: kernels/%.cu kernels/backend.h kernels/cuda_int.h kernels/ops.h base/error.h \
		core/hd.h core/fastmath.h core/fixedsum.h core/real.h core/exec.h
	@mkdir -p $(@D)
	$(NVCC) -O2 -std=c++17 -fmad=false $(NVCC_ARCH) -Werror all-warnings \
		-Xcompiler -Wall,-Wextra,-Werror -c $< -o $@

# The CUDA setting this build directory was last built with: switching it
# (make, then make CUDA=0) must rebuild the archive, or it keeps the other
# backend's object and the link fails.
$(BUILD)/.cuda: FORCE
	@mkdir -p $(@D)
	@echo "$(CUDA)" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# The compiler flags this build directory was last built with: changing
# them (ARCH, CFLAGS) rebuilds every object, not only the edited ones.
$(BUILD)/.flags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CFLAGS_ALL) $(CONV)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(LIBBASE): $(BASE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $(BASE_OBJ)

$(LIBCORE): $(CORE_OBJ) $(KERN_OBJ) $(BUILD)/.cuda
	@rm -f $@
	$(AR) rcs $@ $(CORE_OBJ) $(KERN_OBJ)

$(LIBAUDIT): $(AUDIT_OBJ)
	@rm -f $@
	$(AR) rcs $@ $(AUDIT_OBJ)

$(BUILD)/%: $(BUILD)/core/%_main.o $(LIBCORE) $(LIBBASE)
	$(CC) $(VFLAGS) $^ -o $@ $(LDLIBS_ALL)
$(BUILD)/%: $(BUILD)/harness/%_main.o $(LIBAUDIT) $(LIBBASE)
	$(CC) $(VFLAGS) $^ -o $@ $(LDLIBS_ALL)

# Benchmark programs (bench/*.c): built with everything, so they cannot rot.
# They link the harness too (bench/overlap measures harness/overlap.c).
$(BUILD)/bench/%: bench/%.c $(LIBAUDIT) $(LIBCORE) $(LIBBASE) $(BUILD)/.flags | $(BUILD)/.pkgcheck
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CONV) $< $(LIBAUDIT) $(LIBCORE) $(LIBBASE) -o $@ $(LDLIBS_ALL)

# The runner's group list, rewritten only when the set of test files changes.
$(BUILD)/tests/groups.h: FORCE
	@mkdir -p $(@D)
	@printf '#define TD_GROUPS %s\n' "$(foreach g,$(TEST_GROUPS),X($(g)))" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/tests/tdtest.o: $(BUILD)/tests/groups.h
$(BUILD)/tests/%.o: tests/%.c $(BUILD)/.flags | $(BUILD)/.pkgcheck
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -I$(BUILD)/tests -DTD_SOURCE_DIR='"$(CURDIR)"' -DTD_BUILD_DIR='"$(CURDIR)/$(BUILD)"' -c $< -o $@

# Tests may run the programs and the benchmarks (end-to-end), so they are
# built first.
$(TDTEST): $(TEST_OBJ) $(LIBAUDIT) $(LIBCORE) $(LIBBASE) | $(PROGS) $(BENCHES)
	$(CC) $(VFLAGS) $(TEST_OBJ) $(LIBAUDIT) $(LIBCORE) $(LIBBASE) -o $@ $(LDLIBS_ALL)

run-tests: $(TDTEST)
	@echo "== suite: VARIANT=$(VARIANT) CUDA=$(CUDA) ($(BUILD))"
	$(TDTEST)

# --- entry points ------------------------------------------------------------
deps:
	@ci/deps

test: deps
	$(MAKE) --no-print-directory VARIANT=release run-tests
	$(MAKE) --no-print-directory VARIANT=double run-tests

double: deps
	$(MAKE) --no-print-directory VARIANT=double run-tests

asan: deps
	$(MAKE) --no-print-directory VARIANT=asan run-tests

check: test asan

# The main job on this repository: every mutant of mutations/, every
# finding of DEBUG.md reproduced through git history, the audits of
# audits/ on tdtrain's runs (docs/audit.md), then DEBUG.md checked
# against the ledger those runs wrote (scratch trees under .tdaudit/).
audit: deps
	$(MAKE) --no-print-directory VARIANT=release all
	$(BUILDROOT)/tdaudit mutate
	$(BUILDROOT)/tdaudit reproduce --all
	$(BUILDROOT)/tdaudit audit -j2
	$(BUILDROOT)/tdaudit ledger check

coverage: deps
	$(MAKE) --no-print-directory VARIANT=coverage run-tests
	lcov --quiet --capture --directory $(BUILDROOT)/coverage --output-file $(BUILDROOT)/coverage/lcov.info
	lcov --quiet --extract $(BUILDROOT)/coverage/lcov.info '$(CURDIR)/base/*' '$(CURDIR)/core/*' '$(CURDIR)/kernels/*' \
		'$(CURDIR)/harness/*' '$(CURDIR)/ledger/*' \
		--output-file $(BUILDROOT)/coverage/lcov.info
	lcov --summary $(BUILDROOT)/coverage/lcov.info

# --- stress: SIGKILL at random moments (tests/test_stress.c) -------------------
# STRESS_TRIALS kills (default 50) delivered to tdaudit mutate, reproduce,
# bisect, ledger merge and tdtrain train, each followed by the checks and a
# run to the end; STRESS_SEED=S replays a run's kill moments (it prints its
# seed). `make test` runs the same test with 5 kills.
STRESS_TRIALS ?= 50
stress: deps
	$(MAKE) --no-print-directory VARIANT=release all
	STRESS_TRIALS=$(STRESS_TRIALS) $(if $(STRESS_SEED),STRESS_SEED=$(STRESS_SEED)) \
		$(TDTEST) --only test_sigkill_at_any_moment_leaves_tree_ledger_and_checkpoint_sound
# --- end of stress ----------------------------------------------------------

config:
	@echo "VARIANT   = $(VARIANT)"
	@echo "BUILD     = $(BUILD)"
	@echo "VFLAGS    = $(VFLAGS)"
	@echo "CC        = $(CC) ($(shell $(CC) -dumpfullversion 2>/dev/null))"
	@echo "CUDA      = $(CUDA)"
	@echo "NVCC      = $(or $(NVCC),(none found))"
	@echo "CUDA_HOME = $(CUDA_HOME)"
	@echo "PREFIX    = $(PREFIX)"
	@for p in $(PKGS); do printf '%-9s = %s\n' $$p "$$(pkg-config --modversion $$p 2>/dev/null || echo 'missing (run ci/deps)')"; done

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/tdaudit/base \
		$(DESTDIR)$(PREFIX)/include/tdaudit/core $(DESTDIR)$(PREFIX)/include/tdaudit/kernels
	install -m 644 $(LIBCORE) $(LIBBASE) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(wildcard base/*.h) $(DESTDIR)$(PREFIX)/include/tdaudit/base/
	$(if $(PROGS),install -d $(DESTDIR)$(PREFIX)/bin && install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/)
	install -m 644 $(filter-out %_int.h,$(wildcard core/*.h)) $(DESTDIR)$(PREFIX)/include/tdaudit/core/
	install -m 644 kernels/backend.h $(DESTDIR)$(PREFIX)/include/tdaudit/kernels/
	install -d $(DESTDIR)$(PREFIX)/bin && install -m 755 ci/weekly $(DESTDIR)$(PREFIX)/bin/tdaudit-weekly

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libtdcore.a $(DESTDIR)$(PREFIX)/lib/libtdbase.a $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(PROGS)) tdaudit-weekly)
	rm -rf $(DESTDIR)$(PREFIX)/include/tdaudit

clean:
	rm -rf $(BUILDROOT)

# --- fuzzing (make fuzz) ------------------------------------------------------
# One libFuzzer program per fuzz/fuzz_TARGET.c, linked with the three
# libraries built in the fuzz variant. Each run starts from the committed
# seeds (fuzz/corpus/TARGET, read only) and keeps what it finds new in
# build/fuzz/corpus/TARGET; a crash, leak, sanitizer report or timeout
# writes the input to build/fuzz/artifacts/ and fails the target. Every
# target runs even when one fails; make fails at the end if any did.
FUZZ_TIME ?= 60
FUZZ_TIMEOUT ?= 30 # seconds per input: the Lua loaders' instruction budget takes a few
FUZZ_TARGETS ?= $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c $(LIBAUDIT) $(LIBCORE) $(LIBBASE) $(BUILD)/.flags | $(BUILD)/.pkgcheck
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer $< $(LIBAUDIT) $(LIBCORE) $(LIBBASE) -o $@ $(LDLIBS_ALL)

fuzz-run: $(FUZZ_BINS)
	@failed=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/corpus/$$t $(BUILD)/artifacts; \
	  echo "== fuzz $$t: $(FUZZ_TIME) s from fuzz/corpus/$$t"; \
	  $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=$(FUZZ_TIMEOUT) \
	    -artifact_prefix=$(BUILD)/artifacts/$$t- -print_final_stats=1 \
	    $(BUILD)/corpus/$$t fuzz/corpus/$$t 2>$(BUILD)/fuzz-$$t.log \
	    || failed="$$failed $$t"; \
	  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)' \
	    $(BUILD)/fuzz-$$t.log || true; \
	done; \
	if [ -n "$$failed" ]; then \
	  echo "make fuzz: failed:$$failed (logs: $(BUILD)/fuzz-TARGET.log, inputs: $(BUILD)/artifacts/)" >&2; \
	  exit 1; fi

fuzz: deps
	$(MAKE) --no-print-directory VARIANT=fuzz fuzz-run

# --- valgrind (make valgrind) ------------------------------------------------
# The suite under memcheck, one tdtest --group per process so that a report
# names its group. A memcheck error or a definite or indirect leak exits 99,
# a failing test 1; both fail the target, after every group has run. The
# programs the end-to-end tests start (tdaudit, tdtrain, git) are not
# traced. ci/valgrind.supp holds the suppressions, each with its reason.
# Memcheck runs code some 20-50 times slower, so a test with a wall-clock
# deadline would fail as a test: eight ledger writers sharing SQLite's 5 s
# lock wait (test_eight_writers_at_once_lose_no_rows) is one, so the runs
# carry TDTEST_VALGRIND=1 and that test skips, saying so. The per-group
# line says which exit each group had.
VALGRIND ?= valgrind
VALGRIND_GROUPS ?= $(TEST_GROUPS)
VALGRIND_FLAGS ?= --tool=memcheck --error-exitcode=99 --leak-check=full \
	--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
	--suppressions=ci/valgrind.supp --num-callers=30 --quiet

valgrind-run: $(TDTEST)
	@failed=""; for g in $(VALGRIND_GROUPS); do \
	  echo "== valgrind: group $$g"; \
	  TDTEST_VALGRIND=1 $(VALGRIND) $(VALGRIND_FLAGS) $(TDTEST) --group $$g > $(BUILD)/valgrind-$$g.log 2>&1; \
	  rc=$$?; tail -1 $(BUILD)/valgrind-$$g.log; \
	  if [ $$rc -ne 0 ]; then failed="$$failed $$g(exit $$rc)"; fi; \
	done; \
	if [ -n "$$failed" ]; then \
	  echo "make valgrind: failed:$$failed (logs: $(BUILD)/valgrind-GROUP.log)" >&2; exit 1; fi

valgrind: deps
	$(MAKE) --no-print-directory VARIANT=valgrind valgrind-run

-include $(wildcard $(BUILD)/*/*.d)
