# tests/infra.sh: the test infrastructure itself (numcmp, man-examples,
# install-deps, tests/lib.sh).  Needs no built tools.
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts

# numcmp --------------------------------------------------------------
cat > a.txt <<'EOF'
# kind pmf
# x  F  label
0.5  1.000000000  a
1.0  2.5e-3       b

1.5  inf          c
2.0  -inf         d
2.5  nan          e
EOF
cat > b.txt <<'EOF'
# another header, more comment lines
#
0.5  1.0000000001 a
1.0  0.0025       b
1.5  Inf          c
2.0  -inf         d
2.5  -nan         e
EOF
t numcmp-equal 0 "$S/numcmp a.txt b.txt"
t numcmp-self 0 "$S/numcmp a.txt a.txt"

printf '1 2 3\n4 5 6.000001\n' > c.txt
printf '1 2 3\n4 5 6\n' > d.txt
t numcmp-rel-within 0 "$S/numcmp -r 1e-6 c.txt d.txt"
t numcmp-abs-within 0 "$S/numcmp -r 0 -a 2e-6 c.txt d.txt"
t numcmp-outside 1 "$S/numcmp c.txt d.txt"
ok numcmp-outside-names-field grep -q 'c.txt:2 field 3: 6.000001 vs 6 (diff ' numcmp-outside.err

printf '1 inf\n' > i1.txt
printf '1 -inf\n' > i2.txt
printf '1 1e308\n' > i3.txt
t numcmp-inf-sign 1 "$S/numcmp i1.txt i2.txt"
t numcmp-inf-number 1 "$S/numcmp -r 1 i1.txt i3.txt"

printf '1 2 3\n' > f3.txt
printf '1 2\n' > f2.txt
t numcmp-fields 1 "$S/numcmp f3.txt f2.txt"
printf '1 2 3\n1 2 3\n' > l2.txt
t numcmp-lines 1 "$S/numcmp f3.txt l2.txt"
t numcmp-lines-other 1 "$S/numcmp l2.txt f3.txt"
printf 'x 1\n' > s1.txt
printf 'y 1\n' > s2.txt
t numcmp-strings 1 "$S/numcmp -r 1 -a 1 s1.txt s2.txt"
: > empty.txt
printf '# only a comment\n\n' > comment.txt
t numcmp-empty 0 "$S/numcmp empty.txt comment.txt"
t numcmp-usage 2 "$S/numcmp a.txt"
t numcmp-badtol 2 "$S/numcmp -r x a.txt b.txt"
t numcmp-missing 2 "$S/numcmp a.txt no-such-file"

# man-examples --------------------------------------------------------
cat > demo.1 <<'EOF'
.Dd January 1, 2025
.Dt DEMO 1
.Os
.Sh NAME
.Nm demo
.Nd a page for testing man-examples
.Sh DESCRIPTION
.Bd -literal
exit 1
.Ed
.Sh EXAMPLES
Un-escaping, and a script run with sh -e:
.Bd -literal -offset indent
x=$(printf \(aq%s\en\(aq a\e\-b)
test "$x" = a\-b
y=\(aq\e\(aq
test ${#y} -eq 1
test "\&.x" = .x
test -z "$(ls)"
.Ed
Needs a cluster:
.Bd -literal -offset indent
# not run
parallel --sshloginfile nodes false ::: 1
.Ed
.Sh SEE ALSO
.Xr sh 1
EOF
sed -e 's/^test -z .*/echo bad >\&2; false/' -e '/^Needs a cluster/,/^\.Ed/d' demo.1 > bad.1
t man-examples 0 "RESULTS=$TMP/man.results $S/man-examples demo.1"
ok man-examples-pass grep -qx 'PASS man:demo.1:1' man.results
ok man-examples-skip grep -qx 'SKIP man:demo.1:2: not run' man.results
ok man-examples-count test "$(wc -l < man.results)" -eq 2
t man-examples-bad 1 "RESULTS=$TMP/bad.results $S/man-examples bad.1 >&2"
ok man-examples-fail grep -qx 'FAIL man:bad.1:1: rc=1: bad' bad.results

# install-deps --------------------------------------------------------
t install-deps-help 0 "$S/install-deps --help"
t install-deps-usage 64 "$S/install-deps nonsense"
if have dpkg-query; then
	missing=
	for p in gcc make libgsl-dev libmatheval-dev libopenblas-dev mandoc parallel gawk; do
		[ "$(dpkg-query -W -f='${Status}' $p 2>/dev/null)" = "install ok installed" ] ||
			missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		t install-deps-check 0 "$S/install-deps -n check"
		ok install-deps-silent test ! -s install-deps-check.err
	else
		"$S/install-deps" -n check 2> deps.err
		ok install-deps-check-69 test $? = 69
		ok install-deps-sudo-line grep -qx "sudo apt-get install$missing" deps.err
	fi
else
	skip install-deps-check "not Debian (no dpkg-query)"
fi

# tests/lib.sh: failures are recorded as failures -----------------------
sub() { (RESULTS=$TMP/sub.results; "$@") > /dev/null; }
: > sub.results
sub t lib-t-rc 0 'exit 3'
sub t lib-t-twolines 1 'echo "x: a" >&2; echo "x: b" >&2; exit 1'
sub t lib-t-noformat 1 'echo oops >&2; exit 1'
sub t lib-t-stdout 1 'echo half; echo "x: y" >&2; exit 1'
sub t_pipe lib-t-pipefail 0 'false | true'
sub near lib-near 1.0 1.2 0.1
sub near lib-near-nan nan 1 1
sub le lib-le 2 1
sub same_file lib-same a.txt b.txt
sub numcmp_files lib-numcmp c.txt d.txt 1e-9 0
sub ok lib-ok false
ok lib-all-failed test "$(grep -c '^FAIL lib-' sub.results)" -eq 11
ok lib-fail-reason grep -qx 'FAIL lib-t-rc: exit 3, expected 0' sub.results

T_ALLOW_STDOUT=1 t lib-allow-stdout 1 'echo half; echo "x: y" >&2; exit 1'
t_pipe lib-pipefail 1 'echo "x: y" >&2; false | true'
near lib-near-pass 1.05 1 0.1
near lib-near-neg -2e-3 -0.002 0
le lib-le-pass 1 1
same_file lib-same-pass a.txt a.txt
numcmp_files lib-numcmp-pass c.txt d.txt 1e-6
ok lib-ok-pass test -f a.txt
