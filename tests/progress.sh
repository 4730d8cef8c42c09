# tests/progress.sh - the progress of the long-running tools
# (lib/core/progress.c, fek(7) FEK_PROGRESS) when standard error is not a
# terminal: for md-gpu (particles, replica run, umbrella, Milestoning,
# molecules and their replicas), tpi-gpu, bd-step, sample-gen, qstat-mfpt
# -B, bar-solve -c and wham-gpu (iterations, -B), a run with FEK_PROGRESS
# of 0.2 s (0.1 s for the shorter ones; a fifth of the run, at least
# 0.05 s, where that is shorter) writes complete progress lines
# only (no carriage return, each in the form of progress.h, none sooner
# than that after the start or the line before); FEK_PROGRESS=0 and -q
# write none; standard output is the same bytes in all three (PROV aside);
# a value that is not a number of seconds is ignored (the default, 10 s:
# none in a short run); -v writes complete lines; on a terminal
# (script(1)) the line is rewritten in place and ended by a newline, and
# under -v it is not.
. "$(dirname "$0")/lib.sh"

P=0.2

# lines NAME TOOL FILE: FILE is TOOL's progress lines, at least one, each
# complete (FILE ends with a newline) and in the reporter's form; their
# times at least P apart, the first P after the start (each shown to 0.1 s).
lines() {
	local name=$1 tool=$2 f=$3
	if [ -n "$(tail -c 1 "$f")" ]; then
		_t_record FAIL "$name" "$f: the last line is not ended"
		return
	fi
	ok "$name" awk -v tool="$tool" -v p="$P" '
	BEGIN {
		t = "[0-9.]+ (s|min|h)"
		re = "^" tool ": ([0-9]+ %( [(][0-9]+ of [0-9]+ [a-z ]+[)])?|" \
		    "[0-9]+ [a-z ]+), " t "(, ~" t " left)?(, .*)?$"
	}
	function bad(why) { print why ": " $0 > "/dev/stderr"; failed = 1; exit 1 }
	/\r/ { bad("a carriage return") }
	$0 !~ re { bad("not a progress line") }
	{
		split($0, a, ", ")
		el = a[2] + 0
		if (a[2] !~ / s$/ || (n == 0 && el < p - 0.05) ||
		    (n > 0 && el - last < p - 0.1))
			bad("too soon")
		last = el
		n++
	}
	END {
		if (failed)
			exit 1
		if (n == 0) {
			print "no progress line" > "/dev/stderr"
			exit 1
		}
	}' "$f"
}

# same_np NAME A B: A and B the same bytes but for their PROV lines (the
# command line: -q, -v; #PROV in the text twin)
same_np() {
	grep -avE '^#?PROV ' "$2" > "$2.np"
	grep -avE '^#?PROV ' "$3" > "$3.np"
	same_file "$1" "$2.np" "$3.np"
}

# prog NAME TOOL "ARGS" [q]: TOOL ARGS with FEK_PROGRESS=$P (stdout NAME.a,
# stderr NAME.ea: progress lines), with FEK_PROGRESS=0 (NAME.b, nothing on
# stderr) and, with q, with -q (NAME.c, nothing); the same stdout (#PROV
# aside with -q).
prog() {
	local name=$1 tool=$2 args=$3 t0 t1 P=$P
	t0=$(date +%s.%N)
	t "$name-off" 0 "FEK_PROGRESS=0 $tool $args > $name.b 2> $name.eb" &&
	    ok "$name-off-silent" test ! -s "$name.eb"
	t1=$(date +%s.%N)
	# the interval: P, or a fifth of the run where that is shorter (a
	# fast machine must still see a line); 0.05 s at least
	P=$(awk -v p="$P" -v a="$t0" -v b="$t1" 'BEGIN { d = (b - a) / 5
		if (d < p) p = d; if (p < 0.05) p = 0.05; printf "%.3f", p }')
	t "$name-on" 0 "FEK_PROGRESS=$P $tool $args > $name.a 2> $name.ea" &&
	    lines "$name-lines" "$tool" "$name.ea"
	same_file "$name-off-same" "$name.a" "$name.b"
	if [ "${4:-}" = q ]; then
		t "$name-q" 0 "FEK_PROGRESS=$P $tool -q $args > $name.c 2> $name.ec" &&
		    ok "$name-q-silent" test ! -s "$name.ec"
		same_np "$name-q-same" "$name.a" "$name.c"
	fi
}

# ---- md-gpu --------------------------------------------------------------------
# particles (told at most once a second by the step loop)
prog pmd md-gpu "-d cpu --lattice fcc:5 --density 0.8 -t 1 -i baoab -n 12000 -e 4000 -s 5" q
# a replica run, umbrella windows, Milestoning: told within each pass
prog run md-gpu "-d cpu -p dw:2 -r -2:2 -E kT -R 2000 -n 10000 -e 10000 -s 1" q
prog umb md-gpu "-d cpu -p dw -r -2:2 -g 10 -k 10 -R 50 -n 20000 -e 10 -s 1"
prog mil md-gpu "-d cpu -p dw:2 -r -1.5:1.5 -E kT -M -1,0,1 -R 4000 -H 0.001 -s 1"
# -v: its own lines and complete progress lines
# (a line every 0.05 s: the run, the same as prog's, took 0.19 s in a
# fresh-clone run, under $P, and then no line came)
t run-v 0 "FEK_PROGRESS=0.05 md-gpu -v -d cpu -p dw:2 -r -2:2 -E kT -R 2000 -n 10000 -e 10000 -s 1 > run.v 2> run.ev" &&
    ok run-v-lines sh -c "grep -c '^md-gpu: [0-9]* % (' run.ev && ! grep -q \"\$(printf '\\r')\" run.ev"
same_np run-v-same run.a run.v
# molecules: dynamics (told at its frames) and replicas
GMXTOP=/usr/share/gromacs/top
if [ -f "$GMXTOP/spc216.gro" ]; then
	cp "$GMXTOP/spc216.gro" "$TOP/testdata/mm/spce216.top" .
	printf '%s\n' 'integrator = sd' 'dt = 0.002' 'tau-t = 0.5' \
	    'ref-t = 300' 'gen-vel = yes' 'gen-temp = 300' \
	    'coulombtype = Reaction-Field' 'epsilon-rf = 0' 'rcoulomb = 0.9' \
	    'rvdw = 0.9' > sd.mdp
	prog mm md-gpu "-d cpu --top spce216.top --mdp sd.mdp --config spc216.gro -n 40 -e 10 -s 1"
	prog mm-rep md-gpu "-d cpu --top spce216.top --mdp sd.mdp --config spc216.gro -R 4 -n 10 -s 1"
else
	skip mm "no GROMACS data ($GMXTOP/spc216.gro: scripts/install-deps check)"
fi

# ---- tpi-gpu and bar-solve -c on its frames --------------------------------------
t frames 0 "md-gpu -d cpu --lattice fcc:4 --density 0.5 -t 1.5 --rc 3 -i baoab -n 400 -e 20 -s 5 > fr.fek"
prog tpi tpi-gpu "-d cpu -n 20000 fr.fek" q
P=0.1 prog trace bar-solve "-c trace.fek tpi.a"

# ---- bd-step ------------------------------------------------------------------
printf 'ATOM      1  X   SPH     1       0.000   0.000   0.000  0.0000 0.0000\n' > n.pqr
echo "1 1" > one.rxn
prog bd bd-step "-d cpu --diff 0.01:0 --rdiff 0:0 --bsphere 50 --qsphere 100 --contacts 1 --dt 0.05:100 --dt-range 20:100 -n 300 --rxn-dist 20 -s 1 n.pqr - n.pqr - one.rxn" q

# ---- sample-gen, wham-gpu ---------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 40; i++) printf "%g 0.002\n", -180 + 9 * i }' > w1.txt
SG="-p '0.3*(1+cos(x*pi/180))' -r -180:180:p -w w1.txt -n 60000 -s 1"
prog sg sample-gen "$SG" q
awk 'BEGIN { for (i = 0; i < 19; i++) for (j = 0; j < 19; j++)
	printf "%.10g %.10g 0.001 0.001\n", -180 + 20 * i, -180 + 20 * j }' > w2.txt
t_pipe wham-input 0 "sample-gen -q -p '0.3*(1+cos(x*pi/180))+0.7*(1+cos(3*x*pi/180))+0.3*(1+cos(y*pi/180))+0.7*(1+cos(3*y*pi/180))' -r -180:180:p -r -180:180:p -w w2.txt -n 2000 -u deg -s 1 | histogram -q -b 180 -b 180 | bias-build > w2.fek"
P=0.1 prog wham wham-gpu "--solver iterate --tol 1e-13 w2.fek"
P=0.1 prog wboot wham-gpu "-B 6 w2.fek"

# ---- qstat-mfpt -B -----------------------------------------------------------------
t_pipe kmat 0 "md-gpu -d cpu -p dw:2 -r -1.5:1.5 -E kT -M -1.2,-0.9,-0.6,-0.3,0,0.3,0.6,0.9,1.2 -R 100 -H 0.001 -s 1 | milestone-kmat > m9.k"
P=0.1 prog boot qstat-mfpt "-B 20000 -i 0 -f 8 m9.k"

# ---- FEK_PROGRESS that is not a number of seconds: ignored (10 s) -------------------
for v in 0.2x -0.2 nan inf 1e7 ''; do
	n=bad-$(printf '%s' "$v" | tr -c 'a-z0-9.' '_')
	t "$n" 0 "FEK_PROGRESS='$v' sample-gen $SG > $n.out 2> $n.err" &&
	    ok "$n-silent" test ! -s "$n.err"
	same_file "$n-same" sg.a "$n.out"
done

# ---- a terminal: the line rewritten in place, ended; -v complete lines ------------
# ends_crlf FILE: FILE ends with a newline (which the terminal writes as
# CR LF)
ends_crlf() { [ "$(tail -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = 0d0a ]; }
if have script && script -qec true /dev/null > /dev/null 2>&1; then
	CR=$(printf '\r')
	t tty 0 "script -qec \"sample-gen $SG > tty.out\" /dev/null > tty.log"
	ok tty-in-place grep -q "${CR}sample-gen: [0-9]* % (" tty.log
	ok tty-ended ends_crlf tty.log
	same_file tty-same sg.a tty.out
	# a run of about a second, several times FEK_PROGRESS (10000 steps
	# took 0.19 s on an idle 2-core machine: no line at 0.2 s)
	t tty-v 0 "FEK_PROGRESS=$P script -qec \"md-gpu -v -d cpu -p dw:2 -r -2:2 -E kT -R 2000 -n 60000 -e 60000 -s 1 > /dev/null\" /dev/null > ttyv.log"
	ok tty-v-lines grep -q "^md-gpu: [0-9]* % (" ttyv.log
	ok tty-v-not-in-place sh -c "! grep -q '${CR}md-gpu' ttyv.log"
else
	skip tty "no script(1) that runs a command (util-linux)"
fi
