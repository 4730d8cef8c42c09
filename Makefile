# fek - free energy and kinetics.  See README.md and DESIGN.md.
#
#   make              build every tool (installs missing Debian packages
#                     when run as root; otherwise prints the apt-get line)
#   make check        known-answer, exit-code and man-page tests
#   make check-quick  one check a tool against a known answer (tests/quick.sh,
#                     under a minute): the edit-test loop
#   make check-gpu    the GPU paths against the CPU reference (GPU machine)
#   make demo         the 19x19-window, 90x90-bin WHAM case end to end
#   make bench        CPU benchmarks (scripts/bench-wham, scripts/bench-pmd),
#                     see bench/RESULTS.md
#   make lint         mandoc -Tlint and a -Werror rebuild
#   make install      PREFIX=/usr/local DESTDIR=
#   make SANITIZE=1   build with ASan and UBSan

PREFIX ?= /usr/local
MANPREFIX ?= $(PREFIX)/share/man
CC ?= cc
CFLAGS ?= -O2 -g
CWARN = -Wall -Wextra -Wno-unused-parameter
CPPFLAGS += -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Ilib
# each object's headers, found by the compilers (-MMD), as NAME.d beside it
DEPFLAGS = -MMD -MP
# OpenMP: window-parallel loops on the CPU (wham-gpu's reader); GCC's own.
OMPFLAGS = -fopenmp
LDLIBS = -lgsl -lopenblas -lmatheval -lfftw3 -lz -lm

ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
# Error exits leave memory to the OS; a leak report would replace the
# documented exit code.  An allocation too large for ASan's allocator
# returns NULL, as malloc does, so the tools' "out of memory" exit is what
# is tested (ASan would abort with exit 1 instead).  Memory errors still
# fail the run.
export ASAN_OPTIONS = detect_leaks=0:allocator_may_return_null=1
endif

# CUDA: found on PATH or in /usr/local/cuda.  Without it the build is
# CPU-only and -d gpu exits 69: each GPU interface lib/X/*_gpu.h is then
# answered by the stub beside it, lib/X/X_gpu_stub.c, instead of kernels/X.
NVCC ?= $(shell command -v nvcc 2>/dev/null || \
	(test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
NVCCFLAGS ?= -O3 -std=c++17 -Ilib -Ikernels $(CUDA_ARCH)
NVCCFLAGS += $(DEPFLAGS)

# lib/X is a subsystem, kernels/X its GPU twin; C never includes kernels/
LIBSRC = $(filter-out %_gpu_stub.c,$(wildcard lib/*/*.c))
CUSRC = $(wildcard kernels/*/*.cu)
ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
GPUOBJ = $(CUSRC:.cu=.o)
# NVRTC (user formulas on the device) is linked only into the tools that
# call it (--as-needed) and found through the rpath.  cuBLAS is not used:
# loading it costs about 0.3 s per process (libcublasLt is 540 MB), more
# than a whole GPU WHAM solve; the products it would do here are small.
LDLIBS += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
	-Wl,--as-needed -lnvrtc -lcufft -Wl,--no-as-needed \
	-lcudart_static -lrt -ldl -lpthread -lstdc++
else
GPUOBJ = $(patsubst %.c,%.o,$(wildcard lib/*/*_gpu_stub.c))
endif
LIBOBJ = $(LIBSRC:.c=.o) $(GPUOBJ)

# Every tool is built as bin/NAME: from tools/NAME.c, or (md-gpu) from the
# files of tools/NAME/.
TOOLSRC = $(wildcard tools/*.c)
MDGPUSRC = $(wildcard tools/md-gpu/*.c)
TOOLS = $(patsubst tools/%.c,bin/%,$(TOOLSRC)) bin/md-gpu
# C programs of the tests that link libfek (built by make check)
TESTPROGS = tests/pmd-fd tests/md-config-check tests/trajin-check tests/bd-check \
	tests/mm-top-check tests/mm-bonded-check tests/mm-pme-check \
	tests/mm-constr-check tests/mm-gpu-check tests/tpi-mol-check \
	tests/tpi-molv-check
# those of them that print verdicts through tests/check.c
CHECKPROGS = tests/mm-bonded-check tests/mm-pme-check tests/mm-constr-check \
	tests/mm-gpu-check
MAN1 = $(wildcard man/man1/*.1)
MAN5 = $(wildcard man/man5/*.5)
MAN7 = $(wildcard man/man7/*.7)

.PHONY: all check check-quick check-gpu demo bench lint install uninstall clean FORCE
.SUFFIXES:

all: $(TOOLS)

# Rebuild everything when the flags change (make check SANITIZE=1 after a
# plain build must not reuse plain objects).
BUILDFLAGS = $(CC) $(CFLAGS) $(OMPFLAGS) $(CWARN) $(CPPFLAGS) $(LDFLAGS) $(NVCC)
.build-flags: FORCE
	@echo '$(BUILDFLAGS)' | cmp -s - $@ || echo '$(BUILDFLAGS)' > $@

# Debian packages the build needs; the stamp keeps make quiet afterwards.
.deps-build: scripts/install-deps
	scripts/install-deps build
	@touch $@

lib/%.o: lib/%.c .build-flags | .deps-build
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(OMPFLAGS) $(CWARN) \
	    $(OBJFLAGS) -c -o $@ $<

# tpi-gpu --top's pair loops vectorise only where sqrt need not set errno
# (it never sees a negative there); the values are the same
lib/tpi/mol_pairs.o: OBJFLAGS = -fno-math-errno

# the text of lib/md/replica_eval.h is assembled in (.incbin), unseen by -MMD
lib/md/replica_src.o: lib/md/replica_eval.h

kernels/%.o: kernels/%.cu .build-flags | .deps-build
	$(NVCC) $(NVCCFLAGS) -c -o $@ $<

# md-gpu --top's kernels launch on the host thread's own stream, which
# kernels/mm/run.cu captures as a CUDA graph (the legacy stream cannot be)
kernels/mm/%.o: NVCCFLAGS += --default-stream per-thread

lib/libfek.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

bin/%: tools/%.c lib/libfek.a .build-flags
	@mkdir -p bin
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(OMPFLAGS) $(CWARN) $(LDFLAGS) -o $@ $< \
	    lib/libfek.a $(LDLIBS)

# md-gpu: the dispatcher and its modes, compiled together (one command:
# their headers named here, not found by -MMD)
bin/md-gpu: $(MDGPUSRC) $(wildcard tools/md-gpu/*.h lib/*/*.h) lib/libfek.a \
    .build-flags
	@mkdir -p bin
	$(CC) $(CPPFLAGS) $(CFLAGS) $(OMPFLAGS) $(CWARN) $(LDFLAGS) -o $@ \
	    $(MDGPUSRC) lib/libfek.a $(LDLIBS)

$(TESTPROGS): %: %.c lib/libfek.a .build-flags
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(OMPFLAGS) $(CWARN) $(LDFLAGS) -o $@ $< \
	    $(filter tests/%.o,$^) lib/libfek.a $(LDLIBS)

# the check programs' verdicts, "ok NAME" / "FAIL NAME: why" (tests/check.h)
$(CHECKPROGS): tests/check.o
tests/check.o: tests/check.c .build-flags | .deps-build
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(OMPFLAGS) $(CWARN) -c -o $@ $<

check:
	scripts/install-deps check
	$(MAKE) all $(TESTPROGS)
	scripts/runtests

check-quick: all
	FEK_NO_MAN=1 scripts/runtests quick

check-gpu: all $(TESTPROGS)
	FEK_TEST_GPU=1 scripts/runtests $(notdir $(wildcard tests/gpu*.sh))

demo:
	scripts/install-deps demo || scripts/install-deps build
	$(MAKE) all
	$(MAKE) -C pipelines/wham-2d demo

bench: all
	scripts/bench-wham
	scripts/bench-pmd -d cpu -p -m 1000 -n 500
	scripts/bench-tpi-mol

lint:
	scripts/install-deps check
	mandoc -Tlint -Wwarning $(MAN1) $(MAN5) $(MAN7)
	$(MAKE) clean
	$(MAKE) all CWARN="$(CWARN) -Werror"

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 \
	    $(DESTDIR)$(MANPREFIX)/man5 $(DESTDIR)$(MANPREFIX)/man7
	cp -f $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	cp -f $(MAN1) $(DESTDIR)$(MANPREFIX)/man1/
	cp -f $(MAN5) $(DESTDIR)$(MANPREFIX)/man5/
	cp -f $(MAN7) $(DESTDIR)$(MANPREFIX)/man7/

uninstall:
	for t in $(notdir $(TOOLS)); do rm -f $(DESTDIR)$(PREFIX)/bin/$$t; done
	for m in $(notdir $(MAN1)); do rm -f $(DESTDIR)$(MANPREFIX)/man1/$$m; done
	for m in $(notdir $(MAN5)); do rm -f $(DESTDIR)$(MANPREFIX)/man5/$$m; done
	for m in $(notdir $(MAN7)); do rm -f $(DESTDIR)$(MANPREFIX)/man7/$$m; done

clean:
	rm -f lib/*/*.[od] lib/libfek.a kernels/*/*.[od] tests/*.[od] $(TOOLS) \
	    $(TESTPROGS) .build-flags
	rm -rf bin

-include $(wildcard lib/*/*.d kernels/*/*.d bin/*.d tests/*.d)

# ---- fuzzing (fuzz/, testdata/fuzz/, scripts/fuzz; README.md) -------------
#   make fuzz-build   the targets build/fuzz/fuzz-NAME, one per reader
#                     (fuzz/NAME.c), with clang's libFuzzer, ASan and UBSan
#                     against a copy of the library built so (CPU only)
#   make fuzz         build, then run each target FUZZ_TIME seconds (60)
#                     on its seeds testdata/fuzz/NAME (scripts/fuzz)
#   make fuzz-clean   remove build/fuzz
FUZZ_CC ?= clang
FUZZDIR = build/fuzz
FUZZ_TIME ?= 60
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CFLAGS = -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -fopenmp
FUZZ_LIBOBJ = $(patsubst %.c,$(FUZZDIR)/%.o,$(LIBSRC) \
	$(wildcard lib/*/*_gpu_stub.c))
FUZZ_TARGETS = $(filter-out fuzz,$(patsubst fuzz/%.c,%,$(wildcard fuzz/*.c)))
FUZZ_BINS = $(addprefix $(FUZZDIR)/fuzz-,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-build fuzz-clean

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	FUZZ_TIME=$(FUZZ_TIME) scripts/fuzz

$(FUZZDIR)/lib/%.o: lib/%.c | .deps-build
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(DEPFLAGS) $(FUZZ_CFLAGS) $(CWARN) -c -o $@ $<

# the .incbin of lib/md/replica_src.c names its file from the top
$(FUZZDIR)/lib/md/replica_src.o: lib/md/replica_eval.h

$(FUZZDIR)/libfek.a: $(FUZZ_LIBOBJ)
	rm -f $@
	ar rcs $@ $(FUZZ_LIBOBJ)

$(FUZZDIR)/fuzz.o: fuzz/fuzz.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(DEPFLAGS) $(FUZZ_CFLAGS) $(CWARN) -c -o $@ $<

$(FUZZDIR)/fuzz-%: fuzz/%.c $(FUZZDIR)/fuzz.o $(FUZZDIR)/libfek.a
	$(FUZZ_CC) $(CPPFLAGS) $(DEPFLAGS) $(FUZZ_CFLAGS) $(CWARN) \
	    -fsanitize=fuzzer -o $@ $< $(FUZZDIR)/fuzz.o $(FUZZDIR)/libfek.a \
	    $(LDLIBS)

fuzz-clean:
	rm -rf $(FUZZDIR)

-include $(wildcard $(FUZZDIR)/lib/*/*.d $(FUZZDIR)/*.d)
# ---- end of fuzzing ---------------------------------------------------------
