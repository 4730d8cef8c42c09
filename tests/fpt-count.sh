# tests/fpt-count.sh: fpt-count (lib/milestone/passage.c), direct mean
# first passage times between two core sets, against answers that do not
# come from the code: series counted by hand from fpt-count(1)'s
# definition (samples of two replicas, a periodic axis with cores across
# the period, frames with uneven times and a restart); two-state Markov
# (telegraph) series written by awk, whose MFPT is dt / p exactly, for two
# asymmetric parameter sets, within 4 sd; the coverage of the chi-square
# 95 % interval over 100 short series; overdamped Brownian dynamics in
# Eb (x^2 - 1)^2 by md-gpu (Eb = 2 and 3 kT) against the MFPT by
# quadrature (tests/milestone-exact.c -p); binary = text, concatenated runs add
# up, -s; bad options (64) and bad input (65, 66, 74), one line each.
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}
# val ROW NAME FILE: column NAME of row ROW (1: A -> B, 2: B -> A) of the
# text mfpt section in FILE
val() {
	awk -v r="$1" -v c="$2" '/^#COL / { n++; if ($2 == c) want = n }
		!/^#/ && NF && ++k == r { print $want }' "$3"
}
# calc EXPR: the value of an awk expression, %.12g
calc() { awk "BEGIN { printf \"%.17g\\n\", $* }"; }
# samples R DT: a samples section head for R replicas of the rows that
# follow on stdin, dt DT ps between them (text twin)
samples() {
	awk -v R="$1" -v dt="$2" '{ x[n++] = $1 } END {
		print "#FEK 1\n#KIND samples\n#ROWS " n "\n#COL x f64 1"
		print "#REPLICAS " R "\n#TIMESTEP " dt " ps\n#SAMPLING 0 1\n#END"
		for (i = 0; i < n; i++) print x[i] }'
}

t build-helper 0 "$CC -O2 -o mexact '$TOP/tests/milestone-exact.c' -lgsl -lopenblas -lm"

# ---- counted by hand --------------------------------------------------------
# Two replicas, 10 samples each, 1 ps apart (TIMESTEP 0.5, every 2);
# A = 0, B = 1, 0.5 between.  Replica 1: enters A at 1, B at 3 (A -> B,
# passage 2), A at 6 (B -> A, passage 3), B at 9 (A -> B, passage 3);
# replica 2 starts in B (no entry), A at 3 (B -> A, no passage), then A
# to its end at 9 (censored).  T_A = 2 + 3 + 6 = 11, T_B = 3 + 3 = 6.
cat > hand.txt <<'EOF'
#FEK 1
#KIND samples
#ROWS 20
#COL x f64 1
#AXIS x -1 2 open 1
#TEMP 300
#REPLICAS 2
#TIMESTEP 0.5 ps
#SAMPLING 0 2
#PROV by hand
#END
0.5
0
0.5
1
0.5
1
0
0
0.5
1
1
1
0.5
0
0
0.5
0.5
0.5
0.5
0.5
EOF
t hand 0 'fpt-count -T -a -0.1:0.1 -b 0.9:1.1 hand.txt > hand.out'
near hand-n-AB "$(val 1 n hand.out)" 2 0
near hand-time-A "$(val 1 time hand.out)" 11 1e-12
near hand-mfpt-AB "$(val 1 mfpt hand.out)" 5.5 1e-12
near hand-rate-AB "$(val 1 rate hand.out)" "$(calc 2 / 11)" 1e-12
near hand-sd-AB "$(val 1 sd_mfpt hand.out)" "$(calc '5.5 / sqrt(2)')" 1e-12
# chi2_0.975(4) = 11.1433, chi2_0.025(4) = 0.48442 (tables)
near hand-lo95-AB "$(val 1 lo95 hand.out)" "$(calc 22 / 11.1433)" 1e-4
near hand-hi95-AB "$(val 1 hi95 hand.out)" "$(calc 22 / 0.48442)" 2e-3
near hand-passages-AB "$(val 1 passages hand.out)" 2 0
near hand-mean-passage-AB "$(val 1 mean_passage hand.out)" 2.5 1e-12
near hand-n-BA "$(val 2 n hand.out)" 2 0
near hand-time-B "$(val 2 time hand.out)" 6 1e-12
near hand-mfpt-BA "$(val 2 mfpt hand.out)" 3 1e-12
near hand-passages-BA "$(val 2 passages hand.out)" 1 0
near hand-mean-passage-BA "$(val 2 mean_passage hand.out)" 3 1e-12
ok hand-start-target awk '!/^#/ && NF { s = s $1 $2 } END { exit !(s == "0110") }' hand.out
ok hand-keys sh -c "grep -qx '#CORE A -0.10000000000000001 0.10000000000000001' hand.out &&
	grep -qx '#CORE B 0.90000000000000002 1.1000000000000001' hand.out &&
	grep -qx '#COLUMN x 1' hand.out && grep -qx '#TIMEUNIT ps' hand.out &&
	grep -qx '#TRAJECTORIES 2' hand.out && grep -qx '#SAMPLES 20' hand.out &&
	grep -qx '#TEMP 300' hand.out && grep -qx '#PROV by hand' hand.out &&
	grep -qx '#AXIS x -1 2 open 1' hand.out && grep -q '^#PROV fpt-count ' hand.out"
ok hand-mfpt-unit grep -qx '#COL mfpt f64 ps' hand.out
ok hand-rate-unit grep -qx '#COL rate f64 1/ps' hand.out
# -c names the column; -H replaces the time between samples (2 ps: twice
# every time)
t hand-c 0 'fpt-count -T -c x -a -0.1:0.1 -b 0.9:1.1 hand.txt > hand-c.out'
near hand-c-same "$(val 1 mfpt hand-c.out)" 5.5 1e-12
t hand-H 0 'fpt-count -T -H 2 -a -0.1:0.1 -b 0.9:1.1 hand.txt > hand-H.out'
near hand-H-time-A "$(val 1 time hand-H.out)" 22 1e-12
near hand-H-mean-passage-BA "$(val 2 mean_passage hand-H.out)" 6 1e-12

# A periodic axis: A = 170:-170 across the period, B = 80:100; the values
# 180, -190 (= 170) and 540 (= 180) are in A, 100 (the edge) in B.  One
# trajectory, 1 ps apart: A from 1, B at 5, A at 7, B at 8.
printf '%s\n' 0 175 -175 180 -190 90 0 540 100 |
	awk '{ x[n++] = $1 } END {
		print "#FEK 1\n#KIND samples\n#ROWS " n "\n#COL phi f64 deg"
		print "#AXIS phi -180 180 periodic deg\n#TIMESTEP 1 ps"
		print "#SAMPLING 0 1\n#END"; for (i = 0; i < n; i++) print x[i] }' > wrap.txt
t wrap 0 'fpt-count -T -a 170:-170 -b 80:100 wrap.txt > wrap.out'
near wrap-n-AB "$(val 1 n wrap.out)" 2 0
near wrap-time-A "$(val 1 time wrap.out)" 5 1e-12
near wrap-mean-passage-AB "$(val 1 mean_passage wrap.out)" 2.5 1e-12
near wrap-n-BA "$(val 2 n wrap.out)" 1 0
near wrap-time-B "$(val 2 time wrap.out)" 2 1e-12
# the domain's end is its start: a core to 180 holds -180
printf '%s\n' 0 -180 90 | awk '{ x[n++] = $1 } END {
	print "#FEK 1\n#KIND samples\n#ROWS " n "\n#COL phi f64 deg"
	print "#AXIS phi -180 180 periodic deg\n#END"
	for (i = 0; i < n; i++) print x[i] }' > end.txt
t wrap-end 0 'fpt-count -T -H 1 -a 170:180 -b 80:100 end.txt > end.out'
near wrap-end-n "$(val 1 n end.out)" 1 0

# Frames: two rows, STEP 1 2 3 at times 0.1 0.2 0.4, then a second run
# (STEP back to 1).  Row 0: A (first sample) -> B at 0.2 -> A at 0.4
# (passage 0.2); row 1: B -> A at 0.2, between at 0.4 (A 0.2 more); run
# 2: B -> A and B -> B.  n_AB 1 (no complete passage), T_A 0.3; n_BA 3,
# T_B 0.5, one passage of 0.2; 4 trajectories.
frame() {	# frame STEP TIME X0 X1
	printf '#FEK 1\n#KIND frames\n#ROWS 2\n#COL x f64 1\n#COL U f64 kT\n'
	printf '#STEP %s\n#TIME %s\n#AXIS x -3 3 open 1\n#TIMESTEP 0.1 1\n' $1 $2
	printf '#END\n%s 0\n%s 0\n' $3 $4
}
{ frame 1 0.1 0 1; frame 2 0.2 1 0; frame 3 0.4 0 0.5
  frame 1 0.1 1 1; frame 2 0.2 0 1; } > frames.txt
t frames 0 'fpt-count -T -a -0.1:0.1 -b 0.9:1.1 frames.txt > frames.out'
near frames-n-AB "$(val 1 n frames.out)" 1 0
near frames-time-A "$(val 1 time frames.out)" 0.3 1e-12
near frames-passages-AB "$(val 1 passages frames.out)" 0 0
ok frames-no-passage-inf test "$(val 1 mean_passage frames.out)" = inf
near frames-n-BA "$(val 2 n frames.out)" 3 0
near frames-time-B "$(val 2 time frames.out)" 0.5 1e-12
near frames-mfpt-BA "$(val 2 mfpt frames.out)" "$(calc 0.5 / 3)" 1e-12
near frames-passages-BA "$(val 2 passages frames.out)" 1 0
near frames-mean-passage-BA "$(val 2 mean_passage frames.out)" 0.2 1e-12
ok frames-trajectories grep -qx '#TRAJECTORIES 4' frames.out
ok frames-time-unit grep -qx '#COL mfpt f64 1' frames.out
# -s 0.1: times 0, 0.1, 0.2 and 0, 0.1: T_A 0.2, T_B 0.4
t frames-H 0 'fpt-count -T -H 0.1 -a -0.1:0.1 -b 0.9:1.1 frames.txt > frames-H.out'
near frames-H-time-A "$(val 1 time frames-H.out)" 0.2 1e-12
near frames-H-time-B "$(val 2 time frames-H.out)" 0.4 1e-12
# the U column, which has no AXIS: 0 everywhere, never in B
t frames-c-U 0 'fpt-count -T -c U -a -1:1 -b 2:3 frames.txt > frames-U.out'
says frames-c-U 'no sample in it'
# all in A, committed from each trajectory's first sample: 0.3 + 0.3 +
# 0.1 + 0.1
near frames-c-U-time "$(val 1 time frames-U.out)" 0.8 1e-12

# No transition: inf, rate 0, and the bound 2 T / chi2_0.975(2) with
# chi2_0.975(2) = -2 ln 0.025 (two degrees of freedom: exponential)
printf '0\n0\n0\n0\n' | samples 1 0.5 > stay.txt
t stay 0 'fpt-count -T -a -0.1:0.1 -b 0.9:1.1 stay.txt > stay.out'
says stay 'no transition A -> B: .*1.5 ps'
ok stay-inf test "$(val 1 mfpt stay.out) $(val 1 sd_mfpt stay.out) $(val 1 hi95 stay.out) $(val 1 rate stay.out)" = 'inf inf inf 0'
near stay-lo95 "$(val 1 lo95 stay.out)" "$(calc '1.5 / -log(0.025)')" 1e-12
t stay-q 0 'fpt-count -q -a -0.1:0.1 -b 0.9:1.1 stay.txt > /dev/null'
ok stay-q-silent test ! -s stay-q.err

# ---- two-state Markov series: MFPT = dt / p ----------------------------------
# telegraph SEED R N PAB PBA: R replicas of N samples, one step from A
# (x = 0) to B (x = 1) with probability PAB, back with PBA
telegraph() {
	awk -v seed=$1 -v R=$2 -v N=$3 -v pab=$4 -v pba=$5 'BEGIN { srand(seed)
		for (r = 0; r < R; r++) for (k = s = 0; k < N; k++) {
			print s; s = rand() < (s ? pba : pab) ? 1 - s : s } }'
}
# set 1: 0.02 and 0.005, 0.5 ps: MFPT 25 and 100 ps (about 400 A -> B)
telegraph 11 20 5000 0.02 0.005 | samples 20 0.5 > tg1.txt
t tg1 0 'fpt-count -T -a -0.1:0.1 -b 0.9:1.1 tg1.txt > tg1.out'
near tg1-mfpt-AB "$(val 1 mfpt tg1.out)" 25 "$(calc "4 * $(val 1 sd_mfpt tg1.out)")"
near tg1-mfpt-BA "$(val 2 mfpt tg1.out)" 100 "$(calc "4 * $(val 2 sd_mfpt tg1.out)")"
le tg1-transitions 300 "$(val 1 n tg1.out)"
# set 2: 0.3 and 0.1, 0.1 ps: MFPT 1/3 and 1 ps
telegraph 12 10 2000 0.3 0.1 | samples 10 0.1 > tg2.txt
t tg2 0 'fpt-count -T -a -0.1:0.1 -b 0.9:1.1 tg2.txt > tg2.out'
near tg2-mfpt-AB "$(val 1 mfpt tg2.out)" "$(calc 0.1 / 0.3)" "$(calc "4 * $(val 1 sd_mfpt tg2.out)")"
near tg2-mfpt-BA "$(val 2 mfpt tg2.out)" 1 "$(calc "4 * $(val 2 sd_mfpt tg2.out)")"
# the mean of complete passages: the same law, no censored stays
near tg2-mean-passage-AB "$(val 1 mean_passage tg2.out)" "$(calc 0.1 / 0.3)" "$(calc "4 * $(val 1 sd_mfpt tg2.out)")"

# The 95 % interval covers the exact MFPT in about 95 % of short series:
# 100 series of 1000 steps, p 0.02 and 0.04 (about 13 transitions A -> B
# and 7 B -> A each), 200 intervals: 190 expected, sd 3.1.
: > cover.txt
for s in $(seq 1 100); do
	telegraph $((100 + s)) 1 1000 0.02 0.04 | samples 1 1 |
		fpt-count -T -a -0.1:0.1 -b 0.9:1.1 > c.out 2> /dev/null || break
	awk '!/^#/ && NF { print $6, $7, ($1 == 0 ? 50 : 25) }' c.out >> cover.txt
done
covered=$(awk '$1 <= $3 && $3 <= $2 { c++ } END { print c + 0 }' cover.txt)
ok cover-count test "$(wc -l < cover.txt)" = 200
le cover-low 181 "$covered"
le cover-high "$covered" 199

# Many transitions: strict alternation (p = 1), 500000 each way; the
# interval tends to mfpt +- 1.959964 sd (GSL 2.7's chi-square quantile
# fails at 1e6 degrees of freedom, where the Wilson-Hilferty cube takes
# over)
awk 'BEGIN { for (k = 0; k <= 1000000; k++) print k % 2 }' | samples 1 1 > alt.txt
t alternate 0 'fpt-count -T -a -0.1:0.1 -b 0.9:1.1 alt.txt > alt.out'
near alternate-n "$(val 1 n alt.out)" 500000 0
near alternate-mfpt "$(val 1 mfpt alt.out)" 1 1e-12
near alternate-width "$(calc "($(val 1 hi95 alt.out) - $(val 1 lo95 alt.out)) / (2 * 1.959964 * $(val 1 sd_mfpt alt.out))")" 1 1e-4
le alternate-lo "$(val 1 lo95 alt.out)" 0.9973
le alternate-hi 1.0027 "$(val 1 hi95 alt.out)"

# ---- overdamped Brownian dynamics against quadrature ------------------------
# md-gpu -E kT (beta = 1), D = 1, walls at -3 and 3, from x = 0; cores
# A = x <= -0.8, B = x >= 0.8; dt 1e-3, sampled at every step.  A
# crossing is seen at the steps only, which moves the cores' edges out by
# about 0.58 sqrt(2 D dt) = 0.026 (Siegmund's correction for a discretely
# watched boundary): by quadrature that lengthens the MFPT by 1 % (4.819
# -> 4.865 for Eb = 2), a fifth of the 5 % error of 400 transitions, and
# it is added to the tolerance (4 sd, as the telegraph series').
bd() {	# bd EB R N SEED: one run, binary, into bd-EB.out (text mfpt)
	t bd$1-run 0 "md-gpu -d cpu -p dw:$1 -r -3:3 -E kT -R $2 -n $3 -e 1 -s $4 -q |
		fpt-count -T -a -3:-0.8 -b 0.8:3 > bd$1.out"
	exact=$(./mexact -p $1 1 -3 3 -0.8 0.8 | cut -d' ' -f1)
	moved=$(./mexact -p $1 1 -3 3 -0.826 0.826 | cut -d' ' -f1)
	for r in 1 2; do
		sd=$(val $r sd_mfpt bd$1.out)
		near bd$1-mfpt-$r "$(val $r mfpt bd$1.out)" "$exact" \
			"$(calc "4 * $sd + ($moved - $exact)")"
	done
	# the two ways of a symmetric well: the same within their errors
	near bd$1-symmetric "$(val 1 mfpt bd$1.out)" "$(val 2 mfpt bd$1.out)" \
		"$(calc "4 * sqrt($(val 1 sd_mfpt bd$1.out)^2 + $(val 2 sd_mfpt bd$1.out)^2)")"
	le bd$1-transitions 300 "$(val 1 n bd$1.out)"
}
t exact-eb2 0 "./mexact -p 2 1 -3 3 -0.8 0.8 > ex2 && awk '{ exit !(\$1 > 4.8 && \$1 < 4.84 && \$1 == \$2) }' ex2"
bd 2 200 20000 5
bd 3 100 70000 6

# ---- binary = text, concatenation, md-gpu's molecules -----------------------
md-gpu -d cpu -p dw:1 -r -3:3 -E kT -R 20 -n 2000 -e 2 -s 7 -q > r7.fek
md-gpu -d cpu -p dw:1 -r -3:3 -E kT -R 20 -n 2000 -e 2 -s 7 -q -T > r7.txt
md-gpu -d cpu -p dw:1 -r -3:3 -E kT -R 30 -n 3000 -e 2 -s 8 -q > r8.fek
C='-a -3:-0.8 -b 0.8:3'
t bin 0 "fpt-count -T $C r7.fek | grep -v '^#PROV' > bin.out"
t text 0 "fpt-count -T $C r7.txt | grep -v '^#PROV' > text.out"
same_file binary-is-text bin.out text.out
t r8 0 "fpt-count -T $C r8.fek > r8.out"
t cat 0 "cat r7.fek r8.fek | fpt-count -T $C > cat.out"
ok cat-trajectories grep -qx '#TRAJECTORIES 50' cat.out
for r in 1 2; do
	for c in n time passages; do
		near cat-$c-$r "$(val $r $c cat.out)" \
			"$(calc "$(val $r $c bin.out) + $(val $r $c r8.out)")" 1e-9
	done
done
t bin-out 0 "fpt-count $C r7.fek > bin.fek"
ok bin-out-binary sh -c "head -c 4 bin.fek | od -An -c | grep -q '223   F   E   K'"
t frames-H-equal 0 "fpt-count -T -H 0.002 $C r7.fek | grep -v '^#PROV' > s.out"
numcmp_files frames-H-same-times bin.out s.out 1e-9 1e-12
# md-gpu --top's samples: REPLICAS, TIMESTEP in ps, SAMPLING, a periodic
# axis in degrees (butane, md-gpu(1)'s example inputs)
cat > butane.top <<'EOF'
[ defaults ]
1 2 no 1.0 1.0
[ atomtypes ]
CH3 15.035 0 A 0.375 0.8661
CH2 14.027 0 A 0.395 0.3822
[ moleculetype ]
BUT 3
[ atoms ]
1 CH3 1 BUT C1 1 0
2 CH2 1 BUT C2 1 0
3 CH2 1 BUT C3 1 0
4 CH3 1 BUT C4 1 0
[ constraints ]
1 2 1 0.153
2 3 1 0.153
3 4 1 0.153
[ angles ]
1 2 3 1 111 462
2 3 4 1 111 462
[ dihedrals ]
1 2 3 4 3 9.28 12.16 -13.12 -3.06 26.24 -31.5
[ system ]
butane
[ molecules ]
BUT 1
EOF
cat > butane.gro <<'EOF'
butane
4
    1BUT     C1    1   1.000   1.000   1.000
    1BUT     C2    2   1.126   1.087   1.000
    1BUT     C3    3   1.252   1.000   1.000
    1BUT     C4    4   1.378   1.087   1.000
   3.00000   3.00000   3.00000
EOF
printf 'integrator = sd\ndt = 0.002\nref-t = 300\ngen-vel = yes\n' > sd.mdp
t butane 0 "md-gpu -d cpu --top butane.top --mdp sd.mdp --config butane.gro -n 4000 -e 10 -R 4 --dihedral phi=1,2,3,4 -q > butane.fek &&
	fpt-count -T -a 130:-130 -b -110:-10 butane.fek > butane.out"
ok butane-keys sh -c "grep -qx '#TRAJECTORIES 4' butane.out && grep -qx '#SAMPLES 1604' butane.out &&
	grep -qx '#COL mfpt f64 ps' butane.out && grep -qx '#AXIS phi -180 180 periodic deg' butane.out"
# the committed times add up to at most the 4 x 400 intervals of 0.02 ps
le butane-time "$(calc "$(val 1 time butane.out) + $(val 2 time butane.out)")" 32.0000001

# ---- bad options: 64 ---------------------------------------------------------
t_usage usage-no-core "fpt-count hand.txt"
t_usage usage-no-b "fpt-count -a 0:1 hand.txt"
says usage-no-b 'core B is needed'
t_usage usage-bad-core "fpt-count -a 0 -b 1:2 hand.txt"
t_usage usage-bad-core-nan "fpt-count -a nan:1 -b 2:3 hand.txt"
t_usage usage-H-zero "fpt-count -H 0 -a 0:1 -b 2:3 hand.txt"
t_usage usage-H-text "fpt-count -H fast -a 0:1 -b 2:3 hand.txt"
t_usage usage-c-empty "fpt-count -c '' -a 0:1 -b 2:3 hand.txt"
t_usage usage-two-files "fpt-count -a 0:1 -b 2:3 hand.txt hand.txt"
t_usage usage-unknown "fpt-count -Z -a 0:1 -b 2:3 hand.txt"
t overlap 64 'fpt-count -a -0.1:0.6 -b 0.5:1.1 hand.txt'
says overlap 'cores A -0.1:0.6 and B 0.5:1.1 overlap'
t overlap-edge 64 'fpt-count -a 0:0.5 -b 0.5:1 hand.txt'
t overlap-wrap 64 'fpt-count -a 170:-170 -b -175:-160 wrap.txt'
says overlap-wrap 'overlap \(deg\)'
t overlap-wrap-end 64 'fpt-count -a 170:180 -b -180:-175 wrap.txt'
t wrap-open 64 'fpt-count -a 1:0 -b 2:3 hand.txt'
says wrap-open 'core A 1:0: lo > hi, .*open'
t wrap-outside 64 'fpt-count -a 170:200 -b 80:100 wrap.txt'
says wrap-outside 'core A 170:200: outside the periodic axis -180 to 180 deg'

# ---- bad input: 65, 66, 74 ---------------------------------------------------
C='-a -0.1:0.1 -b 0.9:1.1'
: > empty
t empty 65 "fpt-count $C < empty"
says empty 'stdin: empty input'
t missing-file 66 "fpt-count $C no-such-file"
says missing-file 'no-such-file'
mkdir -p adir
t directory 66 "fpt-count $C adir"
T_TIMEOUT=60 t zero 65 "fpt-count $C /dev/zero"
t write-error 74 "fpt-count $C hand.txt > /dev/full"
t window 65 "md-gpu -d cpu -p dw:1 -r -3:3 -g 3 -k 10 -R 2 -n 100 -q | fpt-count $C"
says window 'stdin: section 1: key WINDOW: a biased'
sed 's/^#REPLICAS 2$/#REPLICAS 2\n#WINDOW 0 1/' hand.txt > window.txt
t window-second 65 "cat hand.txt window.txt | fpt-count $C"
says window-second 'section 2: key WINDOW'
sed '14s/.*/abc/' hand.txt > word.txt
t non-numeric 65 "fpt-count $C word.txt"
says non-numeric 'word.txt: section 1: row 3'
sed '14s/.*/inf/' hand.txt > inf.txt
t not-finite 65 "fpt-count $C inf.txt"
says not-finite 'row 3'
t no-column 65 "fpt-count -c psi $C hand.txt"
says no-column 'hand.txt: section 1: no column psi \(the first is x\)'
sed 's/^#COL x f64 1$/#COL y f64 1/' hand.txt > y.txt
t column-changes 65 "cat hand.txt y.txt | fpt-count $C"
says column-changes 'section 2: the first column is y, but x'
sed 's/^#COL x f64 1$/#COL x f64 nm/' hand.txt > nm.txt
t unit-changes 65 "cat hand.txt nm.txt | fpt-count $C"
says unit-changes 'section 2: column x: unit nm, but 1'
sed 's/^#AXIS x -1 2 open 1$/#AXIS x -1 2 periodic 1/' hand.txt > per.txt
t axis-changes 65 "cat hand.txt per.txt | fpt-count $C"
says axis-changes 'section 2: key AXIS x'
sed 's/^#TIMESTEP 0.5 ps$/#TIMESTEP 0.5 fs/' hand.txt > fs.txt
t time-unit-changes 65 "cat hand.txt fs.txt | fpt-count $C"
sed '/^#SAMPLING/d' hand.txt > nosampling.txt
t no-time 65 "fpt-count $C nosampling.txt"
says no-time 'no key SAMPLING: .*-s'
t no-time-H 0 "fpt-count -H 1 $C nosampling.txt > /dev/null"
sed 's/^#ROWS 20$/#ROWS 19/; $d' hand.txt > odd.txt
t replicas-odd 65 "fpt-count $C odd.txt"
says replicas-odd 'key REPLICAS: 19 rows are not 2 replicas'
sed 's/^#REPLICAS 2$/#REPLICAS 0/' hand.txt > rep0.txt
t replicas-zero 65 "fpt-count $C rep0.txt"
sed 's/^#TIMESTEP 0.5 ps$/#TIMESTEP -1 ps/' hand.txt > negdt.txt
t timestep-negative 65 "fpt-count $C negdt.txt"
t other-kind 65 "fpt-count -T $C hand.txt | fpt-count $C"
says other-kind 'KIND mfpt, expected samples or frames'
frame 1 0.1 0 1 | sed 's/^#STEP 1$/#BOX 3 3 3/' > box.txt
t particles 65 "fpt-count $C box.txt"
says particles 'key BOX'
frame 1 0.1 0 1 | sed '/^#TIME /d;/^#STEP /d' > notime.txt
t frames-no-time 65 "fpt-count $C notime.txt"
says frames-no-time 'no key TIME'
{ frame 1 0.2 0 1; frame 2 0.1 1 0; } > backwards.txt
t frames-backwards 65 "fpt-count $C backwards.txt"
says frames-backwards 'section 2: key TIME: 0.1, not after'
printf '#FEK 1\n#KIND samples\n#ROWS 0\n#COL x f64 1\n#END\n' > norows.txt
t no-samples 65 "fpt-count -H 1 $C norows.txt"
says no-samples 'no samples in 1 section'
