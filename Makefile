# optinc - build, test, benchmark, install.  See README.md.
#
#   make demo       install missing Debian packages, build, run the main job
#   make check      install missing packages, build, run every test
#   make bench      benchmarks against the machine's measured limits (memory bandwidth,
#                   zgemm/cgemm), zgesdd and MPI_Allreduce; a closing table of targets
#   make install    PREFIX=/usr/local (program, liboptinc, headers, man pages, optinc.pc)
#   make netlists   regenerate the golden netlists/ from specs/
#   make fuzz       libFuzzer targets in fuzz/ (clang), each for FUZZ_TIME seconds (60)
#   make valgrind   the tests that do not start MPI, under valgrind memcheck
#   SAN=1           build everything with AddressSanitizer + UBSan (in build-san/)
#   BLAS=reference  make check / make valgrind against the reference BLAS/LAPACK

VERSION  := 0.1.0
PREFIX   ?= /usr/local
CC       ?= cc
# MPI is optional (Lua's core apart from its libraries): without an MPI
# compiler on PATH, or with MPI=0, the MPI backend is left out, everything
# else builds, and `--backend mpi` and the MPI tests say why they cannot run.
MPI      ?= $(shell command -v mpicc >/dev/null 2>&1 && pkg-config --exists ompi-c && echo 1)
PKGS     := lapacke blas yaml-0.1 libgvc zlib $(if $(filter 1,$(MPI)),ompi-c)
ifeq ($(FUZZ),1)
# The library with libFuzzer coverage, ASan and UBSan, for the fuzz targets.
# glibc defines CMPLX only for gcc; clang has the same builtin.  clang 14
# names a target_clones function NAME.ifunc, which other files cannot call
# (fixed in clang 16), so this build keeps only the default versions.
BUILD    := build/fuzz
CC       := clang
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined
CFLAGS   += -D'CMPLX(x,y)=__builtin_complex((double)(x),(double)(y))' \
            -D'target_clones(...)=unused'
OPT      := -O1 -g
else ifeq ($(SAN),1)
BUILD    := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT      := -O1 -g
else
BUILD    := build
SANFLAGS :=
OPT      := -O2 -g
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
CFLAGS   += $(OPT) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
            -Wno-unused-parameter -Iinclude -I. -DOPTINC_VERSION='"$(VERSION)"' -fPIC $(SANFLAGS) \
            -MMD -MP $(if $(filter 1,$(MPI)),-DOPTINC_HAVE_MPI)
LDFLAGS  += $(SANFLAGS)

# One folder per subsystem, layered core -> compiler -> runtime -> cli
# (ARCHITECTURE.md).
LIB_SRC  := $(sort $(wildcard compiler/*/*.c runtime/*/*.c))
ifneq ($(MPI),1)
LIB_SRC  := $(filter-out runtime/allreduce/backend_mpi.c,$(LIB_SRC))
endif
CLI_SRC  := $(sort $(wildcard cli/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
BENCH_SRC:= $(sort $(wildcard bench/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCHES  := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZERS  := $(FUZZ_SRC:fuzz/%.c=build/fuzz/bin/%)
FUZZ_TIME?= 60
LIBA     := $(BUILD)/liboptinc.a
LIBSO    := $(BUILD)/liboptinc.so
PROG     := $(BUILD)/optinc
# Debian's python3, which python3-torch serves (not a python earlier on PATH).
PYTHON   := /usr/bin/python3
# BLAS=reference runs the tests (make check, make valgrind) against Debian's
# reference BLAS and LAPACK (libblas3, liblapack3) instead of OpenBLAS: the
# same binaries, with those libraries' folders first on the loader's path.
# With OpenBLAS on its own kernel for the CPU, the two builds round
# differently in the last bits, as two machines do; CI runs both.  The
# Python workload tests (torch's arithmetic, optinc's all-reduce, which uses
# no BLAS) skip there, with that reason.
ifeq ($(BLAS),reference)
BLAS_DIR := /usr/lib/$(shell $(CC) -print-multiarch)
TEST_ENV := LD_LIBRARY_PATH=$(BLAS_DIR)/blas:$(BLAS_DIR)/lapack$(if $(LD_LIBRARY_PATH),:$(LD_LIBRARY_PATH)) \
            OPTINC_TEST_BLAS=reference
else ifneq ($(BLAS),)
$(error BLAS=$(BLAS): the tests run on OpenBLAS (no BLAS=) or BLAS=reference)
endif

# Tests each test binary runs at once.  One under SAN=1: Criterion's runner
# itself leaks 48 bytes at exit after running tests side by side (its own
# calloc, seen in test_gds and test_hostile; LeakSanitizer fails the binary
# for it with every test passing).
TEST_JOBS := $(if $(filter 1,$(SAN)),1,2)

# Tests and MPI runs as root on a 2-core machine: mpirun refuses root and
# more ranks than cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1

.PHONY: all deps demo check check-python bench install uninstall clean netlists lint fuzz fuzzers valgrind
all: $(PROG) $(LIBSO)

deps:
	@sh scripts/install-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBSO): $(LIB_OBJ)
	$(CC) -shared -o $@ $^ $(LDFLAGS) $(PKG_LIBS)

$(PROG): $(CLI_OBJ) $(LIBA)
	$(CC) -o $@ $(CLI_OBJ) $(LIBA) $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/tests/%: tests/%.c $(LIBA) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags criterion) -Itests $< -o $@ \
	    $(LIBA) $(LDFLAGS) $(PKG_LIBS) $(shell pkg-config --libs criterion)

$(BUILD)/bench/%: bench/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $< -o $@ $(LIBA) $(LDFLAGS) $(PKG_LIBS)

# Tests find the program and the build through these variables; the first
# line of the output names the BLAS and LAPACK the tests load.
check: deps
	@sh scripts/check-layers.sh
	@$(MAKE) --no-print-directory $(PROG) $(TESTS)
	@$(TEST_ENV) sh scripts/blas-in-use.sh $(PROG) $(BLAS)
	@$(TEST_ENV) OPTINC=$(abspath $(PROG)) OPTINC_BUILD=$(abspath $(BUILD)) \
	    OPTINC_TEST_JOBS=$(TEST_JOBS) sh scripts/run-tests.sh $(TESTS)
	@$(MAKE) --no-print-directory check-python

# The Python package's tests (python/tests/, unittest) over this build's
# liboptinc.so; skipped with a message without torch, and under SAN=1 (an
# ASan library cannot be loaded into an uninstrumented python).
check-python: $(PROG) $(LIBSO)
ifeq ($(SAN),1)
	@echo "check-python: skipped: SAN=1 builds a library python cannot load"
else
	@if $(PYTHON) -c 'import torch, numpy' 2>/dev/null; then \
	    $(TEST_ENV) OPTINC=$(abspath $(PROG)) OPTINC_LIBRARY=$(abspath $(LIBSO)) PYTHONPATH=python \
	    PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m unittest discover -s python/tests; \
	else echo "check-python: skipped: $(PYTHON) cannot import torch and numpy" \
	    "(apt-get install python3-torch python3-numpy)"; fi
endif

# Each fuzz target runs FUZZ_TIME seconds on its corpus (fuzz/corpus/<target>/
# seeds, new finds in fuzz/corpus-work/); see scripts/fuzz.sh.
fuzz: deps
	@$(MAKE) --no-print-directory FUZZ=1 fuzzers
	@FUZZ_TIME=$(FUZZ_TIME) sh scripts/fuzz.sh $(FUZZERS)

fuzzers: $(FUZZERS)

build/fuzz/bin/%: fuzz/%.c fuzz/fuzz.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -fsanitize=fuzzer $< -o $@ $(LIBA) $(LDFLAGS) $(PKG_LIBS)

# Memcheck over the Criterion tests, with tests/valgrind/*.supp.
valgrind: deps
	@$(MAKE) --no-print-directory $(PROG) $(TESTS)
	@$(TEST_ENV) sh scripts/blas-in-use.sh $(PROG) $(BLAS)
	@$(TEST_ENV) OPTINC=$(abspath $(PROG)) OPTINC_BUILD=$(abspath $(BUILD)) \
	    sh scripts/valgrind.sh $(TESTS)

demo: deps
	@$(MAKE) --no-print-directory $(PROG)
	@OPTINC=$(abspath $(PROG)) sh scripts/demo.sh

# $(call python_bench,SCRIPT,MODULES,PACKAGES): a Python benchmark over this
# build's library, its output kept with the others', when $(PYTHON) imports
# every one of MODULES (else a line naming the Debian PACKAGES).
define python_bench
	@if $(PYTHON) -c 'import sys, importlib; [importlib.import_module(m) for m in sys.argv[1:]]' \
	    $(2) 2>/dev/null; then echo "== $(1)"; \
	    { OPTINC_LIBRARY=$(abspath $(LIBSO)) $(PYTHON) $(1); \
	      echo $$? > $(BUILD)/bench/status; } | tee -a $(BUILD)/bench/output.txt; \
	    test "$$(cat $(BUILD)/bench/status)" = 0 || exit 1; \
	else echo "$(notdir $(1)): skipped: $(PYTHON) cannot import $(2) (apt-get install $(3))"; fi
endef

# The machine's limits first (bench_limits), then every benchmark, its output
# kept in $(BUILD)/bench/output.txt, then the closing table of the TARGET
# lines they printed (scripts/bench-table.sh), with the load average before
# and after: the machine is often shared.  The DDP hook's bench
# (bench/bench_hook.py) and the decompositions from Python
# (bench/bench_decompose.py) run last, when python3 has torch and numpy.
BENCH_RUN := $(BUILD)/bench/bench_limits $(filter-out $(BUILD)/bench/bench_limits,$(BENCHES))
bench: deps
	@$(MAKE) --no-print-directory $(PROG) $(BENCHES)
	@echo "load average before: $$(cut -d' ' -f1-3 /proc/loadavg)" | tee $(BUILD)/bench/output.txt
	@for b in $(BENCH_RUN); do echo "== $$b"; \
	    { $$b; echo $$? > $(BUILD)/bench/status; } | tee -a $(BUILD)/bench/output.txt; \
	    test "$$(cat $(BUILD)/bench/status)" = 0 || exit 1; done
	@$(MAKE) --no-print-directory $(LIBSO)
	$(call python_bench,bench/bench_hook.py,torch,python3-torch)
	$(call python_bench,bench/bench_decompose.py,numpy,python3-numpy)
	@echo "load average after: $$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $(BUILD)/bench/output.txt
	@sh scripts/bench-table.sh $(BUILD)/bench/output.txt

netlists: $(PROG)
	@OPTINC=$(abspath $(PROG)) sh scripts/make-netlists.sh

lint:
	@for m in man/*.[0-9]; do mandoc -T lint -W warning $$m || exit 1; done

install: $(PROG) $(LIBA) $(LIBSO)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include/optinc $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(PROG) $(DESTDIR)$(PREFIX)/bin/optinc
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/liboptinc.a
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/liboptinc.so
	install -m 644 include/optinc/*.h $(DESTDIR)$(PREFIX)/include/optinc/
	for m in man/*.1; do install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done
	for m in man/*.5; do install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man5/; done
	for m in $(wildcard man/*.7); do install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man7/; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@REQUIRES@|$(PKGS)|g' scripts/optinc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/optinc.pc

clean:
	rm -rf build build-san

# Header dependencies, written by -MMD -MP beside each object.
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TESTS:=.d) $(BENCHES:=.d) $(FUZZERS:=.d)
