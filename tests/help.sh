# tests/help.sh - the options every tool shares (fek(7) COMMON OPTIONS):
# --help and -h print the
# usage on stdout, nothing on stderr, and exits 0; that usage is the one a
# bad option prints on stderr with exit 64, and it is the man page's
# SYNOPSIS (its first word the tool); --version prints one line and
# exits 0.
. "$(dirname "$0")/lib.sh"

for tool in bar-solve bd-rate bd-step bias-build fpt-count histogram md-gpu \
    milestone-kmat pmf qstat-mfpt rmsd sample-gen tpi-gpu wham-gpu; do
	for flag in --help -h; do
		name=help-$tool$flag
		"$tool" $flag < /dev/null > "$name.out" 2> "$name.err"
		rc=$?
		if [ "$rc" != 0 ]; then
			fail "$name" "exit $rc, expected 0"
		elif [ -s "$name.err" ]; then
			fail "$name" "stderr: $(head -n 1 "$name.err")"
		elif ! head -n 1 "$name.out" | grep -q "^usage: $tool "; then
			fail "$name" "stdout does not start with 'usage: $tool'"
		else
			pass "$name"
		fi
	done
	# the same text for a bad option, on stderr
	"$tool" --no-such-option < /dev/null > bad.out 2> bad.err
	rc=$?
	sed -n '/^usage: /,$p' bad.err > bad.usage
	if [ "$rc" != 64 ]; then
		fail "help-$tool-bad-option" "exit $rc, expected 64"
	elif ! cmp -s bad.usage "help-$tool--help.out"; then
		fail "help-$tool-bad-option" "the usage on stderr differs from --help's"
	else
		pass "help-$tool-bad-option"
	fi
	t "version-$tool" 0 "$tool --version > v.out && test \$(wc -l < v.out) = 1"
done

# md-gpu's time step was -h: given a number, -h is refused, not the help
t md-gpu-h-step 64 "md-gpu -p dw -r -2:2 -h 0.001"
t md-gpu-h-step-says 0 "grep -q 'the time step is -H' md-gpu-h-step.err"
