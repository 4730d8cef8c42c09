# tests/lib.sh: assertions for fek's test scripts (bash).  Source it first:
#
#   . "$TOP/tests/lib.sh"      (or: . "$(dirname "$0")/lib.sh")
#
# scripts/runtests exports TOP (repo root), BIN (the built tools), RESULTS
# (each assertion appends "PASS name", "FAIL name: reason" or
# "SKIP name: reason") and TMP (a fresh scratch directory; we cd into it).
# Run alone (bash tests/X.sh) it makes its own, prints a summary at the end
# and exits 1 on any failure.
#
# Each assertion prints "ok name" / "FAIL name: reason" / "skip name: reason"
# and returns 0 on pass, 1 on fail, so dependent checks can be chained:
#   t wham 0 'wham-gpu -T < in > out' && numcmp_files wham.out out exp
# Do not use set -e in test scripts.

if [ -z "${TOP:-}" ]; then
	TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fi
BIN=${BIN:-$TOP/bin}
PATH=$BIN:$PATH
export TOP BIN PATH
# No progress lines on stderr (fek(7) FEK_PROGRESS), however long a run
# takes on a loaded machine: a test that wants them sets FEK_PROGRESS on
# its command (tests/progress.sh).
export FEK_PROGRESS=0

_t_alone=0 _t_own_tmp=0
if [ -z "${TMP:-}" ]; then
	TMP=$(mktemp -d)
	_t_own_tmp=1
fi
if [ -z "${RESULTS:-}" ]; then
	RESULTS=$TMP/RESULTS
	: > "$RESULTS"
	_t_alone=1
fi
export TMP RESULTS
cd "$TMP" || exit 70

# Return status of the last assertion; see _t_exit.
_t_last=0

# _t_record STATUS NAME [REASON]: append a result line and show it.
_t_record() {
	local status=$1 name=$2 reason=${3:-}
	reason=${reason//$'\n'/ }
	name=${name//[$'\n' ]/_}
	case $status in
	PASS) echo "PASS $name" >> "$RESULTS"; echo "ok $name"; _t_last=0 ;;
	FAIL) echo "FAIL $name: $reason" >> "$RESULTS"; echo "FAIL $name: $reason"; _t_last=1 ;;
	SKIP) echo "SKIP $name: $reason" >> "$RESULTS"; echo "skip $name: $reason"; _t_last=0 ;;
	esac
	return $_t_last
}

# A script whose last command is a failing assertion would exit 1 and be
# counted twice (its FAIL line, and "FAIL script:X" by the runner): that
# exit is turned into 0.  Alone, the summary decides the exit status.
_t_exit() {
	local rc=$?
	if [ "$_t_alone" = 1 ]; then
		local p f s
		p=$(grep -c '^PASS' "$RESULTS")
		f=$(grep -c '^FAIL' "$RESULTS")
		s=$(grep -c '^SKIP' "$RESULTS")
		if [ "$f" = 0 ] && [ "$rc" = 0 ]; then
			echo "$p passed, 0 failed, $s skipped"
			[ "$_t_own_tmp" = 0 ] || { cd / && rm -rf "$TMP"; }
			exit 0
		fi
		echo "$p passed, $f failed, $s skipped (scratch: $TMP)"
		exit 1
	fi
	[ "$rc" = 1 ] && [ "$_t_last" = 1 ] && exit 0
	exit "$rc"
}
trap _t_exit EXIT

# _t_file NAME: NAME made safe as a file name in $TMP.
_t_file() {
	local f=${1//[\/ ]/_}
	echo "$TMP/$f"
}

# _t_lastline FILE: the last non-empty line of FILE.
_t_lastline() {
	awk 'NF { l = $0 } END { print l }' "$1" 2>/dev/null
}

# _t_check NAME EXPECTED_RC SHELL...: run the command line in "$@", judge it.
_t_check() {
	local name=$1 want=$2 f rc nerr last
	shift 2
	f=$(_t_file "$name")
	timeout -k 5 "${T_TIMEOUT:-300}" "$@" < /dev/null > "$f.out" 2> "$f.err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		if [ "$rc" = 124 ]; then
			_t_record FAIL "$name" "timed out after ${T_TIMEOUT:-300} s"
		else
			last=$(_t_lastline "$f.err")
			_t_record FAIL "$name" "exit $rc, expected $want${last:+: $last}"
		fi
		return
	fi
	if [ "$want" != 0 ]; then
		nerr=$(awk 'END { print NR }' "$f.err")
		if [ "$nerr" != 1 ]; then
			_t_record FAIL "$name" "stderr has $nerr lines, want one: $(_t_lastline "$f.err")"
			return
		fi
		if ! grep -q ': ' "$f.err"; then
			_t_record FAIL "$name" "stderr not 'tool: fact': $(cat "$f.err")"
			return
		fi
		if [ -s "$f.out" ] && [ "${T_ALLOW_STDOUT:-0}" != 1 ]; then
			_t_record FAIL "$name" "exit $rc but stdout not empty"
			return
		fi
	fi
	_t_record PASS "$name"
}

# t NAME EXPECTED_RC CMD...: run CMD (joined into one sh -c string; stdin
# /dev/null unless it redirects; stdout/stderr in $TMP/NAME.out/.err).
# Pass iff the exit status is EXPECTED_RC; for a nonzero status stderr must
# also be exactly one line containing ": " and stdout must be empty (unless
# T_ALLOW_STDOUT=1).  T_TIMEOUT (default 300 s) bounds the command.
t() {
	local name=$1 want=$2
	shift 2
	_t_check "$name" "$want" sh -c "$*"
}

# t_pipe NAME EXPECTED_RC "cmd | cmd": as t, run by bash -o pipefail, so a
# failing stage anywhere in the pipeline sets the status.
t_pipe() {
	local name=$1 want=$2
	shift 2
	_t_check "$name" "$want" bash -o pipefail -c "$*"
}

# ok NAME CMD...: pass iff CMD (argv, run in a subshell; shell functions
# work) succeeds.  Reason: its last stderr line, or its status.
ok() {
	local name=$1 f rc
	shift
	f=$(_t_file "$name")
	( "$@" ) < /dev/null > "$f.out" 2> "$f.err"
	rc=$?
	if [ "$rc" = 0 ]; then
		_t_record PASS "$name"
	elif [ -s "$f.err" ]; then
		_t_record FAIL "$name" "$(_t_lastline "$f.err")"
	else
		_t_record FAIL "$name" "exit $rc: $*"
	fi
}

# near NAME GOT EXPECTED TOL: pass iff |GOT - EXPECTED| <= TOL.
near() {
	if awk -v g="$2" -v e="$3" -v tol="$4" 'BEGIN {
		n = "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"
		if (g !~ n || e !~ n || tol !~ n) exit 1
		d = g - e; if (d < 0) d = -d
		exit !(d <= tol + 0) }'; then
		_t_record PASS "$1"
	else
		_t_record FAIL "$1" "got '$2', expected $3 within $4"
	fi
}

# le NAME GOT LIMIT: pass iff GOT <= LIMIT (both numbers).
le() {
	if awk -v g="$2" -v l="$3" 'BEGIN {
		n = "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"
		exit !(g ~ n && l ~ n && g + 0 <= l + 0) }'; then
		_t_record PASS "$1"
	else
		_t_record FAIL "$1" "got '$2', limit $3"
	fi
}

# ge NAME GOT LIMIT: pass iff GOT >= LIMIT (both numbers).
ge() {
	if awk -v g="$2" -v l="$3" 'BEGIN {
		n = "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"
		exit !(g ~ n && l ~ n && g + 0 >= l + 0) }'; then
		_t_record PASS "$1"
	else
		_t_record FAIL "$1" "got '$2', at least $3 wanted"
	fi
}

# same_file NAME A B: pass iff A and B are byte for byte the same.
same_file() {
	local msg
	if msg=$(cmp "$2" "$3" 2>&1); then
		_t_record PASS "$1"
	else
		_t_record FAIL "$1" "$(echo "$msg" | head -n 1)"
	fi
}

# numcmp_files NAME A B [RELTOL [ABSTOL]]: pass iff scripts/numcmp finds the
# text files equal within the tolerances (defaults 1e-9, 1e-12).
numcmp_files() {
	local msg
	if msg=$("$TOP/scripts/numcmp" -r "${4:-1e-9}" -a "${5:-1e-12}" "$2" "$3" 2>&1); then
		_t_record PASS "$1"
	else
		_t_record FAIL "$1" "$(echo "$msg" | head -n 1)"
	fi
}

# skip NAME REASON: record that a check was not run, and why.
skip() {
	_t_record SKIP "$1" "$2"
}

# fail NAME REASON / pass NAME: record a verdict reached by other means.
fail() {
	_t_record FAIL "$1" "$2"
}
pass() {
	_t_record PASS "$1"
}

# vmlimit KB: "ulimit -v KB;" to put before a command string, so that a
# tool that tried a huge allocation would fail at once; nothing where the
# tools are built with ASan (make SANITIZE=1), whose shadow memory takes
# terabytes of address space at start.
vmlimit() {
	ldd "$BIN/pmf" 2> /dev/null | grep -q libasan || printf 'ulimit -v %s;' "$1"
}

# have CMD: true iff CMD is on PATH (for skip decisions).
have() {
	command -v "$1" > /dev/null 2>&1
}

# rows FILE...: the data rows of text streams (no "#" lines).
rows() { grep -hv '^#' "$@"; }

# has_py MODULE: true iff Debian's python3 imports MODULE.
PY=/usr/bin/python3
has_py() { [ -x "$PY" ] && "$PY" -c "import $1" > /dev/null 2>&1; }

# says NAME REGEX: the one-line error of check NAME matches REGEX
says() {
	if grep -Eq -- "$2" "$TMP/$1.err" 2> /dev/null; then
		pass "$1-says"
	else
		fail "$1-says" "stderr '$(cat "$TMP/$1.err" 2> /dev/null)' does not match /$2/"
	fi
}

# t_usage NAME CMD: a usage error: exit 64, empty stdout, one or more
# "tool: fact" lines (every bad option is reported), then optionally the
# usage synopsis ("usage: ..." and indented continuation lines), nothing
# else.
t_usage() {
	local name=$1 rc why
	shift
	timeout -k 5 "${T_TIMEOUT:-300}" sh -c "$*" < /dev/null > "$name.out" 2> "$name.err"
	rc=$?
	if [ "$rc" != 64 ]; then
		fail "$name" "exit $rc, expected 64: $(tail -n 1 "$name.err")"
	elif [ -s "$name.out" ]; then
		fail "$name" "exit 64 but stdout not empty"
	elif ! why=$(awk '
		u == 0 && /^usage: / { u = 1; next }
		u == 0 && /^[a-z-]+: ./ && !/^usage:/ { e++; next }
		u == 1 && /^[ \t]/ { next }
		{ print "stray stderr line " NR ": " $0; bad = 1; exit }
		END { if (!bad && e == 0) print "no \"tool: fact\" line"; exit bad || e == 0 }' "$name.err"); then
		fail "$name" "$why"
	else
		pass "$name"
	fi
}

# split_first_window IN A B: the text histogram stream IN with its first
# window's counts halved into A, and that halved section alone into B, so
# A then B is the same problem with windows no longer on a grid.  (Half
# counts need a float column: histogram writes integer counts as i32.)
split_first_window() {
	awk '/^#FEK/ { s++ } s == 1 && /^#COL count/ { $3 = "f64" }
	    s == 1 && !/^#/ { $2 = $2 / 2 } { print }' "$1" > "$2"
	awk '/^#FEK/ { s++ } s == 1 && /^#COL count/ { $3 = "f64" }
	    s == 1 && !/^#/ { $2 = $2 / 2 } s == 1 { print }' "$1" > "$3"
}

# hist_means IN: per window of the text histogram stream IN, the mean of each
# axis from the bin centres, minimum image about the window's centre on
# periodic axes ("%.10g" per value, one line per window).
hist_means() {
	awk '
	/^#FEK/ { flush(); D = 0; n = 0; inrow = 0; delete m }
	/^#AXIS/ { D++; lo[D] = $3; hi[D] = $4; per[D] = ($5 == "periodic") }
	/^#BINS/ { for (d = 1; d <= D; d++) nb[d] = $(d + 1) }
	/^#WINDOW/ { win = $0 }
	/^#END/ { split(win, f, " "); for (d = 1; d <= D; d++) c[d] = f[d + 1] }
	/^#/ { next }
	NF == 2 {
		b = $1; k = $2; n += k
		for (d = D; d >= 1; d--) {
			i = b % nb[d]; b = int(b / nb[d])
			w = (hi[d] - lo[d]) / nb[d]
			dx = lo[d] + (i + 0.5) * w - c[d]
			if (per[d]) { L = hi[d] - lo[d]; r = dx / L
				dx -= L * (r >= 0 ? int(r + 0.5) : -int(-r + 0.5)) }
			m[d] += k * dx
		}
	}
	function flush(  d, s) {
		if (n == 0) return
		s = ""
		for (d = 1; d <= D; d++) s = s sprintf("%s%.10g", d > 1 ? " " : "", c[d] + m[d] / n)
		print s
	}
	END { flush() }' "$1"
}
# pooled_means IN D: the mean_ columns of the windows section of IN.
pooled_means() {
	awk -v D="$2" '/^#KIND windows/ { w = 1 } w && !/^#/ && NF {
		s = ""; for (d = 1; d <= D; d++) s = s sprintf("%s%.10g", d > 1 ? " " : "", $(2 * D + 1 + d))
		print s }' "$1"
}
