# tests/fuzz.sh - a short run of every fuzz target (fuzz/NAME.c, one per
# reader; make fuzz-build, scripts/fuzz): FUZZ_TIME seconds (10) each on
# its seeds testdata/fuzz/NAME, under ASan and UBSan.  A check fuzz-NAME
# fails on any finding (a sanitizer report, a hang past 10 s, an
# allocation above 512 MB, a leak, an exit), with libFuzzer's log and the
# reproducer kept in the scratch directory.  Skipped where clang cannot
# link a libFuzzer program.  The long runs are make fuzz (README.md).
. "$(dirname "$0")/lib.sh"

cat > probe.c <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{ (void)d; (void)n; return 0; }
EOF
if ! have clang; then
	skip fuzz "clang not installed (Debian clang: make fuzz-build)"
	exit 0
fi
if ! clang -fsanitize=fuzzer,address,undefined -fopenmp -o probe probe.c \
    > probe.err 2>&1; then
	skip fuzz "clang cannot link a libFuzzer program with OpenMP: $(
	    head -n 1 probe.err)"
	exit 0
fi

t fuzz-build 0 "nice make -s -C '$TOP' fuzz-build > build.log 2>&1" || exit 0
targets=$(cd "$TOP/fuzz" && ls ./*.c | sed 's|^\./||; s|\.c$||' | grep -vx fuzz)
for n in $targets; do
	if (cd "$TOP" && FUZZ_TIME=${FUZZ_TIME:-10} FUZZ_OUT="$TMP/run" \
	    scripts/fuzz "$n") > "fuzz-$n.out" 2>&1; then
		pass "fuzz-$n"
	else
		fail "fuzz-$n" "$(tail -n 1 "fuzz-$n.out")"
	fi
done
