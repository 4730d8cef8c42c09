# tests/milestone.sh: milestone-kmat and qstat-mfpt (lib/milestone/milestone.c,
# lib/ms_*.c) against Milestoning answers known exactly: the thesis's
# 3-milestone K (MFPT 4), free diffusion between unit-spaced milestones
# (MFPT L^2/2D = 50), the double well Eb (x^2-1)^2 whose K, tau, MFPTs,
# committor and equilibrium milestone probabilities tests/milestone-exact.c
# computes by quadrature (MFPT 5.170946 for Eb = 2, seed 003 extraction,
# tests C and D); synthetic records drawn from a known K with exponential
# lifetimes (tests/milestone-gen.c), whose errors must be calibrated over
# many seeds; union of shards, binary = text; bad input (65), usage (64),
# disconnected and singular K (1, naming the milestones).
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}
# kind KIND FILE: data rows of the (first) section of KIND in a text stream
kind() {
	awk -v k="$1" '/^#FEK/ { s = 0 } $0 == "#KIND " k { s = 1 } s && !/^#/ && NF' "$2"
}
# col KIND NAME FILE: the column NAME of section KIND, one value a line
col() {
	awk -v k="$1" -v c="$2" '/^#FEK/ { s = 0; n = 0 } $0 == "#KIND " k { s = 1 }
		s && /^#COL / { n++; if ($2 == c) want = n }
		s && !/^#/ && NF { print $want }' "$3"
}
first() { head -n 1 "$1"; }

t build-helpers 0 "$CC -O2 -o mexact '$TOP/tests/milestone-exact.c' -lgsl -lopenblas -lm && $CC -O2 -o mgen '$TOP/tests/milestone-gen.c' -lgsl -lopenblas -lm"

# ---- the thesis's 3-milestone example (Eq. 2.88): MFPT 4 ---------------------
cat > k3.txt <<'EOF'
# K = [[0,1,0],[1/2,0,1/2],[0,0,0]], tau = [1,1,0], start 0
K 0 1 1
K 1 0 0.5   # back
K 1 2 0.5
tau 0 1
tau 1 1
tau 2 0
EOF
t k3-run 0 'qstat-mfpt -i 0 -f 2 k3.txt > k3.out'
near k3-mfpt "$(first k3.out)" 4 1e-12
ok k3-first-line-alone awk 'NR == 1 { exit !(NF == 1) }' k3.out
near k3-recycle "$(col mfpt recycle k3.out | head -n 1)" 4 1e-12
near k3-rate "$(col mfpt rate k3.out | head -n 1)" 0.25 1e-14
# back from 2 under the reflecting row K_21 = 1, tau_2 = 0: x1 = 1 + x1/2
near k3-reverse "$(col mfpt mfpt k3.out | sed -n 2p)" 2 1e-12
near k3-committor "$(col kinetics committor k3.out | sed -n 2p)" 0.5 1e-14
ok k3-stream-after-line sh -c "tail -n +2 k3.out | grep -c '^#FEK 1' | grep -qx 2"

# ---- free diffusion, milestones x = 0..10, D = 1: MFPT 50 ----------------------
awk 'BEGIN { print "K 0 1 1"
	for (i = 1; i < 10; i++) print "K", i, i - 1, 0.5 "\nK", i, i + 1, 0.5
	for (i = 0; i <= 10; i++) print "tau", i, 0.5 }' > flat.txt
t flat-run 0 'qstat-mfpt -i 0 -f 10 flat.txt > flat.out'
near flat-mfpt "$(first flat.out)" 50 1e-10
ok flat-solver-key grep -qx '#SOLVER tridiag' flat.out
for s in band dense; do
	t flat-$s 0 "qstat-mfpt --solver $s -i 0 -f 10 flat.txt > flat-$s.out"
	numcmp_files flat-$s-same flat.out flat-$s.out 1e-10 1e-12
done
# cumulative MFPT 0 -> m = m^2 h^2 / 2D; MFPT m -> 10 = (100 - m^2) / 2;
# committor m / 10; equilibrium p = [1/20, 1/10 x 9, 1/20] (reflecting ends)
awk 'BEGIN { for (m = 0; m <= 10; m++) print m * m / 2 }' > flat-from.want
col kinetics mfpt_from flat.out > flat-from
numcmp_files flat-cumulative flat-from.want flat-from 1e-12 1e-12
awk 'BEGIN { for (m = 0; m <= 10; m++) print (100 - m * m) / 2 }' > flat-to.want
col kinetics mfpt_to flat.out > flat-to
numcmp_files flat-mfpt-to flat-to.want flat-to 1e-12 1e-12
awk 'BEGIN { for (m = 0; m <= 10; m++) print m / 10 }' > flat-c.want
col kinetics committor flat.out > flat-c
numcmp_files flat-committor flat-c.want flat-c 1e-12 1e-14
awk 'BEGIN { for (m = 0; m <= 10; m++) print (m == 0 || m == 10) ? 0.05 : 0.1 }' > flat-p.want
col kinetics p flat.out > flat-p
numcmp_files flat-equilibrium-p flat-p.want flat-p 1e-12 1e-14
near flat-reverse "$(col mfpt mfpt flat.out | sed -n 2p)" 50 1e-10
# a product set {9, 10}: the first of them is 9, at 81/2; no way back
t flat-set 0 'qstat-mfpt -i 0 -f 9,10 flat.txt > flat-set.out'
near flat-set-mfpt "$(first flat-set.out)" 40.5 1e-10
ok flat-set-one-row sh -c "test \"\$(awk '/^#KIND mfpt/ { k = 1 } k && /^#ROWS/ { print \$2; exit }' flat-set.out)\" = 1"
near flat-set-target-column "$(col mfpt target flat-set.out)" -1 0
# recycling boundary: the same MFPT, and the identity agrees
t flat-recycle 0 'qstat-mfpt -b recycle -i 0 -f 10 flat.txt > flat-rec.out'
near flat-recycle-mfpt "$(first flat-rec.out)" 50 1e-10
near flat-recycle-identity "$(col mfpt recycle flat-rec.out | head -n 1)" 50 1e-9
ok flat-recycle-key grep -qx '#BOUNDARY recycle 0' flat-rec.out
# the same chain from trajectory records: two per interior milestone (to
# each side), one from 0, all 0.5 long: K and tau exactly those above
awk 'BEGIN { print "#FEK 1\n#KIND trajectories\n#ROWS ?\n#COL start i32 1"
	print "#COL end i32 1\n#COL t f64 ns\n#COL valid i32 1\n#MILESTONES 11"
	for (i = 0; i <= 10; i++) print "#MILESTONE", i, i
	print "#TEMP 300\n#END\n0 1 0.5 1"
	for (i = 1; i < 10; i++) print i, i - 1, 0.5, 1 "\n" i, i + 1, 0.5, 1 }' > flat-tr.txt
t_pipe flat-records 0 'milestone-kmat -q flat-tr.txt | qstat-mfpt -q -i 0 -f 10 > flat-tr.out'
near flat-records-mfpt "$(first flat-tr.out)" 50 1e-10
ok flat-records-units sh -c "grep -q '^#COL mfpt f64 ns' flat-tr.out && grep -q '^#COL rate f64 1/ns' flat-tr.out"
ok flat-records-position grep -q '^#COL position f64' flat-tr.out
ok flat-records-temp grep -qx '#TEMP 300' flat-tr.out
# milestone-kmat's milestones section must agree with its kernel: an
# index, a count or MILESTONES changed there is bad data, not ignored
milestone-kmat -q -T flat-tr.txt > flat-k.txt
sed 's/^#MILESTONES 11$/#MILESTONES 99999999999/' flat-k.txt > flat-k-big.txt
t flat-ms-key 65 'qstat-mfpt flat-k-big.txt'
awk '/^#KIND kernel/ { k = 1 } !k && !/^#/ && !d { $1 = -1; d = 1 } { print }' flat-k.txt > flat-k-idx.txt
t flat-ms-index 65 'qstat-mfpt flat-k-idx.txt'
says flat-ms-index 'milestones: row 1: milestone -1'
awk '/^#KIND kernel/ { k = 1 } !k && $1 == 3 { $2 = 99999999999 } { print }' flat-k.txt > flat-k-n.txt
t flat-ms-n 65 'qstat-mfpt flat-k-n.txt'
says flat-ms-n 'milestone 3: n 99999999999 in the milestones section, but 2 transitions'
awk '/^#KIND kernel/ { k = 1 } !k && /^#MILESTONES/ { $2 = 12 } { print }' flat-k.txt > flat-k-12.txt
t flat-ms-12 65 'qstat-mfpt flat-k-12.txt'
# two runs concatenated: the sections' counts add up
t flat-ms-cat 0 'cat flat-k.txt flat-k.txt | qstat-mfpt -q -i 0 -f 10 > flat-cat.out'
near flat-ms-cat-mfpt "$(first flat-cat.out)" 50 1e-10
# F in kcal/mol at the input's TEMP: kT ln 2 between an end and the middle
t_pipe flat-kcal 0 'milestone-kmat -q flat-tr.txt | qstat-mfpt -q -u kcal > flat-kcal.out'
near flat-kcal-F "$(col kinetics F flat-kcal.out | head -n 1)" \
    "$(awk 'BEGIN { printf "%.15g", 0.0019872042586408316 * 300 * log(2) }')" 1e-12
ok flat-kcal-unit grep -q '^#COL F f64 kcal/mol' flat-kcal.out
t_pipe flat-kJ-t 0 'milestone-kmat -q flat-tr.txt | qstat-mfpt -q -u kJ -t 310 > flat-kj.out'
near flat-kJ-F "$(col kinetics F flat-kj.out | head -n 1)" \
    "$(awk 'BEGIN { printf "%.15g", 0.00831446261815324 * 310 * log(2) }')" 1e-12

# ---- the double well Eb = 2, exact by quadrature --------------------------------
t dw-quadrature 0 './mexact 2 -1.5 0.25 10 dw.txt dw.exp'
DW_MFPT=$(awk '$1 == "mfpt" { print $2 }' dw.exp)
DW_REV=$(awk '$1 == "reverse" { print $2 }' dw.exp)
near dw-exact-integral "$DW_MFPT" 5.170946 1e-6
# the quadrature's K and tau against the extraction's table (test C)
near dw-K12 "$(awk '$1 == "K" && $2 == 1 && $3 == 2 { print $4 }' dw.txt)" 0.849611 1e-6
near dw-K45 "$(awk '$1 == "K" && $2 == 4 && $3 == 5 { print $4 }' dw.txt)" 0.329130 1e-6
near dw-tau2 "$(awk '$1 == "tau" && $2 == 2 { print $3 }' dw.txt)" 0.037319 1e-6
near dw-tau0 "$(awk '$1 == "tau" && $2 == 0 { print $3 }' dw.txt)" 0.015996 1e-6
t dw-run 0 'qstat-mfpt -i 0 -f 10 dw.txt > dw.out'
near dw-mfpt "$(first dw.out)" "$DW_MFPT" 1e-6
near dw-mfpt-published "$(first dw.out)" 5.170946 1e-6
near dw-recycle "$(col mfpt recycle dw.out | head -n 1)" "$DW_MFPT" 1e-6
near dw-reverse "$(col mfpt mfpt dw.out | sed -n 2p)" "$DW_REV" 1e-6
near dw-reverse-recycle "$(col mfpt recycle dw.out | sed -n 2p)" "$DW_REV" 1e-6
awk 'NR > 2 { print $2 }' dw.exp > dw-p.want
col kinetics p dw.out > dw-p
numcmp_files dw-equilibrium-p dw-p.want dw-p 0 1e-6
awk 'NR > 2 { print $3 }' dw.exp > dw-c.want
col kinetics committor dw.out > dw-c
numcmp_files dw-committor dw-c.want dw-c 0 1e-6
awk 'NR > 2 { print $4 }' dw.exp > dw-from.want
col kinetics mfpt_from dw.out > dw-from
numcmp_files dw-cumulative dw-from.want dw-from 0 1e-6
# published p (extraction, test D), 6 digits
printf '%s\n' 0.007998 0.116029 0.218882 0.150037 0.071371 0.037848 0.029694 \
    0.037848 0.071371 0.150037 0.108885 > dw-p.pub
numcmp_files dw-p-published dw-p.pub dw-p 0 6e-7
# F(x = 0) - F(x = -1) ~ 2 kT = Eb (test D: 1.997)
near dw-barrier "$(awk '{ f[NR] = $1 } END { print f[7] - f[3] }' <(col kinetics F dw.out))" 1.997 1e-3
for s in band dense; do
	t dw-$s 0 "qstat-mfpt --solver $s -i 0 -f 10 dw.txt > dw-$s.out"
	numcmp_files dw-$s-same dw.out dw-$s.out 1e-9 1e-12
done

# ---- synthetic records from the double well's K, exponential lifetimes -----------
# (the last milestone reflects: K_10,9 = 1 with its own lifetime)
t syn-gen 0 './mgen -u ps dw.txt 100000 1 > syn1.txt'
t syn-kmat 0 'milestone-kmat -T syn1.txt > syn1.k'
ok syn-trajectories-key grep -qx '#TRAJECTORIES 100000' syn1.k
# sum_j T_ij = tau_i (Eq. 2.80, erratum 22)
ok syn-T-sums-to-tau awk '
	/^#KIND/ { k = $2 } /^#/ { next }
	k == "milestones" { tau[$1] = $3 } k == "kernel" { T[$1] += $6 }
	END { for (i in T) { d = T[i] - tau[i]; if (d < 0) d = -d; if (d > 1e-12 * tau[i]) exit 1 } }' syn1.k
# every estimate within 4 of its standard errors
ok syn-within-4-sigma awk '
	FNR == NR { if ($1 == "K") K[$2 " " $3] = $4; if ($1 == "tau") tau[$2] = $3; next }
	/^#KIND/ { k = $2 } /^#/ { next }
	k == "milestones" { z = ($3 - tau[$1]) / $4; if (z > 4 || z < -4) exit 1 }
	k == "kernel" && $5 > 0 { z = ($4 - K[$1 " " $2]) / $5; if (z > 4 || z < -4) exit 1 }' dw.txt syn1.k
# rejected and time-limited records change nothing but the counts
t syn-extra-gen 0 './mgen -i 700 -l 300 -u ps dw.txt 100000 2 > syn2.txt'
t syn-extra-kmat 0 'milestone-kmat -T syn2.txt > syn2.k'
awk '/^#/ || $4 == 1 && $2 != -1' syn2.txt | sed 's/^#ROWS .*/#ROWS ?/' > syn2-clean.txt
t syn-clean-kmat 0 'milestone-kmat -T syn2-clean.txt > syn2-clean.k'
kind kernel syn2.k > syn2.kern
kind kernel syn2-clean.k > syn2-clean.kern
same_file syn-extra-same-K syn2-clean.kern syn2.kern
col milestones tau syn2.k > syn2.tau
col milestones tau syn2-clean.k > syn2-clean.tau
same_file syn-extra-same-tau syn2-clean.tau syn2.tau
ok syn-extra-keys sh -c "grep -qx '#INVALID 700' syn2.k && grep -qx '#TIMELIMIT 300' syn2.k"
near syn-extra-ninvalid "$(col milestones ninvalid syn2.k | awk '{ s += $1 } END { print s }')" 700 0
near syn-extra-nlimit "$(col milestones nlimit syn2.k | awk '{ s += $1 } END { print s }')" 300 0
ok syn-extra-warnings sh -c "grep -q '700 of 101000 records were rejected' syn-extra-kmat.err && grep -q '300 valid records reached the time limit' syn-extra-kmat.err"
# binary records = text records; shards = the whole
t syn-binary 0 './mgen -b -u ps dw.txt 100000 1 > syn1.bin'
t syn-binary-kmat 0 'milestone-kmat -T syn1.bin | grep -v "^#PROV" > syn1b.k'
grep -v '^#PROV' syn1.k > syn1.k.noprov
same_file syn-binary-same syn1.k.noprov syn1b.k
awk 'NR <= 9 || (NR > 9 && NR <= 50009)' syn1.txt | sed 's/^#ROWS .*/#ROWS ?/' > shard1.txt
awk 'NR <= 9 || NR > 50009' syn1.txt | sed 's/^#ROWS .*/#ROWS ?/' > shard2.txt
t_pipe syn-shards 0 'cat shard1.txt shard2.txt | milestone-kmat -T | grep -v "^#PROV" > syn1s.k'
same_file syn-shards-same syn1.k.noprov syn1s.k
# kernel sections merge as the union of their trajectories
t syn-shard-kmats 0 'milestone-kmat shard1.txt > s1.fek && milestone-kmat shard2.txt > s2.fek'
t_pipe syn-merge 0 'cat s1.fek s2.fek | qstat-mfpt -i 0 -f 10 | grep -v "^#PROV" > merged.out'
t_pipe syn-whole 0 'qstat-mfpt -i 0 -f 10 syn1.k | grep -v "^#PROV" > whole.out'
numcmp_files syn-merge-same whole.out merged.out 1e-10 1e-13
# the bootstrap is reproducible from its seed, and the seed matters
t boot-a 0 'qstat-mfpt -B 50 -s 7 -i 0 -f 10 syn1.k > boot-a.out'
t boot-b 0 'qstat-mfpt -B 50 -s 7 -i 0 -f 10 syn1.k > boot-b.out'
t boot-c 0 'qstat-mfpt -B 50 -s 8 -i 0 -f 10 syn1.k > boot-c.out'
same_file boot-reproducible boot-a.out boot-b.out
ok boot-seed-matters sh -c "! cmp -s boot-a.out boot-c.out"
ok boot-columns sh -c "grep -q '^#COL sd_mfpt f64 ps' boot-a.out && grep -q '^#COL sd_F f64 kT' boot-a.out && grep -qx '#BOOTSTRAP 50' boot-a.out"
ok boot-interval awk '/^#KIND mfpt/ { k = 1 } k && !/^#/ { if (!($7 < $3 && $3 < $8 && $6 > 0)) exit 1; n++ } END { exit n != 2 }' boot-a.out

# error calibration over 40 seeds: the fraction of estimates within 1 and
# 2 standard errors of the exact value (68.3 %, 95.4 % for a calibrated
# Gaussian error): K_i,i+1 and tau_i from milestone-kmat, and the MFPT,
# p_i from qstat-mfpt's bootstrap
: > z.K; : > z.tau; : > z.mfpt; : > z.p
for seed in $(seq 101 140); do
	./mgen -u ps dw.txt 100000 $seed > cal.txt
	milestone-kmat -T -q cal.txt > cal.k
	qstat-mfpt -q -B 200 -s $seed -i 0 -f 10 cal.k > cal.out
	awk 'FNR == NR { if ($1 == "K") K[$2 " " $3] = $4; if ($1 == "tau") tau[$2] = $3; next }
		/^#KIND/ { k = $2 } /^#/ { next }
		k == "milestones" { print ($3 - tau[$1]) / $4 >> "z.tau" }
		k == "kernel" && $2 == $1 + 1 && $1 > 0 && $1 < 10 { print ($4 - K[$1 " " $2]) / $5 >> "z.K" }' dw.txt cal.k
	awk -v m="$DW_MFPT" '/^#KIND mfpt/ { k = 1 } k && !/^#/ { print ($3 - m) / $6; exit }' cal.out >> z.mfpt
	paste dw-p.want <(awk '/^#KIND kinetics/ { k = 1 } /^#COL/ && k { n++; c[$2] = n }
		k && !/^#/ { print $c["p"], $c["sd_p"] }' cal.out) | awk '{ print ($2 - $1) / $3 }' >> z.p
done
# calibrated: P(|z| < 1) ~ 0.683, P(|z| < 2) ~ 0.954.  Bounds are about
# 3.5 binomial standard deviations wide for the number of z-scores (these
# 40 seeds give 0.75 and 0.74 for K and tau; 200 other seeds gave 0.680
# and 0.681); an error off by a factor 2 gives 0.38 or 0.95 and fails.
calib() {	# calib NAME FILE LO1 HI1 LO2
	local f1 f2 n
	read -r n f1 f2 <<< "$(awk '{ n++; a = $1 < 0 ? -$1 : $1; if (a < 1) o++; if (a < 2) w++ }
		END { printf "%d %.4f %.4f", n, o / n, w / n }' "$2")"
	echo "$1: $n z-scores, within 1 sigma $f1, within 2 sigma $f2"
	le "$1-count" 40 "$n"
	le "$1-1sigma-low" "$3" "$f1"
	le "$1-1sigma-high" "$f1" "$4"
	le "$1-2sigma" "$5" "$f2"
}
calib calib-K z.K 0.60 0.77 0.92
calib calib-tau z.tau 0.60 0.77 0.92
calib calib-p z.p 0.60 0.77 0.92
calib calib-mfpt z.mfpt 0.45 0.90 0.85

# ---- flags: milestones without data, rows that cannot reach the target -----------
cat > gap.txt <<'EOF'
#FEK 1
#KIND trajectories
#ROWS ?
#COL start i32 1
#COL end i32 1
#COL t f64 1
#COL valid i32 1
#MILESTONES 5
#END
0 1 1 1
1 0 1 1
1 2 1 1
2 1 1 1
EOF
t gap-kmat 0 'milestone-kmat -T gap.txt > gap.k'
ok gap-no-data-warning grep -q 'milestone 3 has no trajectories' gap-kmat.err
ok gap-cannot-reach-warning grep -q 'milestones 0 1 2 cannot reach the target 4' gap-kmat.err
near gap-reaches-column "$(col milestones reaches gap.k | awk '{ s += $1 } END { print s }')" 1 0
t gap-quiet 0 'milestone-kmat -q gap.txt > /dev/null'
ok gap-quiet-silent test ! -s gap-quiet.err
t gap-target-flag 0 'milestone-kmat -T -f 2 gap.txt > gap2.k'
ok gap-target-key grep -qx '#TARGET 2' gap2.k
t_pipe gap-qstat 1 'milestone-kmat -q gap.txt | qstat-mfpt -i 0 -f 4'
ok gap-qstat-names grep -q 'milestone 3 has no transitions out' gap-qstat.err

# ---- disconnected and singular K: exit 1, naming the milestones -------------------
printf 'K 0 1 1\nK 1 0 1\nK 2 3 1\nK 3 2 1\ntau 0 1\ntau 1 1\ntau 2 1\ntau 3 1\n' > dis.txt
t dis-blocks 1 'qstat-mfpt -b none dis.txt'
ok dis-blocks-names grep -q 'milestones 2 3 cannot be reached from milestone 0' dis-blocks.err
printf 'K 0 1 1\nK 1 0 0.5\nK 1 2 0.5\nK 2 1 1\ntau 0 1\ntau 1 1\ntau 2 1\ntau 3 1\n' > iso.txt
t dis-isolated 1 'qstat-mfpt -i 0 -f 2 iso.txt'
ok dis-isolated-names grep -q 'milestone 3 cannot be reached' dis-isolated.err
printf 'K 0 1 1\nK 1 0 1\nK 2 1 0.5\nK 2 0 0.5\ntau 0 1\ntau 1 1\ntau 2 1\n' > oneway.txt
t dis-oneway 1 'qstat-mfpt -b none oneway.txt'
ok dis-oneway-names grep -q 'milestone 2 cannot be reached from milestone 0' dis-oneway.err
t dis-no-rows 1 'qstat-mfpt -b none -i 0 -f 2 k3.txt'
ok dis-no-rows-names grep -q 'milestone 2 has no transitions out' dis-no-rows.err
# a transition of 1e-300 beside 1 - 1e-300 = 1: I - K is singular in
# doubles for LU (GSL's band and dense paths), which say so naming it;
# the chain solve (GTH form, no subtractions) gets the MFPT 4e300 to all
# digits, as the positive recursion h_k = (tau_k + K_k,k-1 h_k-1) / K_k,k+1
# of the passage times k -> k+1 does
printf 'K 0 1 1\nK 1 0 1\nK 1 2 1e-300\nK 2 1 0.5\nK 2 3 0.5\nK 3 2 1\ntau 0 1\ntau 1 1\ntau 2 1\ntau 3 1\n' > sing.txt
chain_mfpt() {	# chain_mfpt FILE LAST: MFPT 0 -> LAST of a chain, by the recursion
	awk -v f="$2" '$1 == "K" { K[$2, $3] = $4 } $1 == "tau" { tau[$2] = $3 }
		END { for (k = 0; k < f; k++) { h = (tau[k] + (k ? K[k, k - 1] * h : 0)) / K[k, k + 1]; s += h }
			printf "%.17g", s }' "$1"
}
t singular-chain 0 'qstat-mfpt -i 0 -f 3 sing.txt > sing.out'
ok singular-chain-exact awk -v w="$(chain_mfpt sing.txt 3)" 'NR == 1 { d = ($1 - w) / w; exit !(d < 1e-13 && d > -1e-13) }' sing.out
for s in band dense; do
	t singular-$s 1 "qstat-mfpt --solver $s -i 0 -f 3 sing.txt"
	ok singular-$s-names grep -q 'numerically singular.*K\[1\]\[2\] = 1e-300' singular-$s.err
done
sed 's/1e-300/1e-320/' sing.txt > sing-over.txt
t singular-overflow 1 'qstat-mfpt -i 0 -f 3 sing-over.txt'
ok singular-overflow-names grep -q 'numerically singular.*K\[1\]\[2\] = 1e-320' singular-overflow.err
# a long chain over high barriers (MFPT / tau ~ 1e9 over 2000 milestones):
# the chain solve and the recycling identity keep their digits
awk 'BEGIN { n = 2000; print "K 0 1 1\ntau 0 0.5"
	for (i = 1; i < n - 1; i++) { up = 1 / (1 + exp(4 * sin(0.0188 * (i + 0.5)) - 4 * sin(0.0188 * (i - 0.5))))
		print "K", i, i + 1, up "\nK", i, i - 1, 1 - up "\ntau", i, 0.5 }
	print "K", n - 1, n - 2, 1 "\ntau", n - 1, 0.5 }' > long.txt
t long-chain 0 'qstat-mfpt -i 0 -f 1999 long.txt > long.out'
LONG=$(chain_mfpt long.txt 1999)
ok long-chain-exact awk -v w="$LONG" 'NR == 1 { d = ($1 - w) / w; exit !(d < 1e-12 && d > -1e-12) }' long.out
ok long-chain-recycle awk -v w="$LONG" '/^#KIND mfpt/ { k = 1 } k && !/^#/ { d = ($5 - w) / w; exit !(d < 1e-12 && d > -1e-12) }' long.out
ok long-chain-no-warning test ! -s long-chain.err
le long-chain-big "1e8" "$LONG"

# ---- bad input: 65 ---------------------------------------------------------------
hdr='#FEK 1\n#KIND trajectories\n#ROWS ?\n#COL start i32 1\n#COL end i32 1\n#COL t f64 1\n#COL valid i32 1'
bad_kmat() {	# bad_kmat NAME KEYS ROWS: a trajectories section that must exit 65
	printf "$hdr\n$2#END\n$3" > "$1.txt"
	t "$1" 65 "milestone-kmat $1.txt"
}
bad_kmat kmat-no-milestones '' '0 1 1 1\n'
bad_kmat kmat-milestones-one '#MILESTONES 1\n' '0 1 1 1\n'
bad_kmat kmat-start-range '#MILESTONES 3\n' '3 1 1 1\n'
bad_kmat kmat-end-range '#MILESTONES 3\n' '0 5 1 1\n'
bad_kmat kmat-end-minus-2 '#MILESTONES 3\n' '0 -2 1 1\n'
bad_kmat kmat-end-is-start '#MILESTONES 3\n' '1 1 1 1\n'
bad_kmat kmat-valid-2 '#MILESTONES 3\n' '0 1 1 2\n'
bad_kmat kmat-negative-t '#MILESTONES 3\n' '0 1 -1 1\n'
bad_kmat kmat-infinite-t '#MILESTONES 3\n' '0 1 inf 1\n'
bad_kmat kmat-nan-t '#MILESTONES 3\n' '0 1 nan 1\n'
bad_kmat kmat-fraction '#MILESTONES 3\n' '0 1.5 1 1\n'
ok kmat-message-names-row grep -q 'section 1: row 1: start 3' kmat-start-range.err
printf '#FEK 1\n#KIND trajectories\n#ROWS ?\n#COL start i32 1\n#COL t f64 1\n#COL valid i32 1\n#MILESTONES 3\n#END\n0 1 1\n' > kmat-no-end.txt
t kmat-missing-column 65 'milestone-kmat kmat-no-end.txt'
ok kmat-missing-column-named grep -q 'missing column end' kmat-missing-column.err
printf "$hdr\n#MILESTONES 4\n#END\n0 1 1 1\n" > four.txt
t_pipe kmat-milestones-differ 65 'cat flat-tr.txt four.txt | milestone-kmat'
sed 's/#COL t f64 ns/#COL t f64 ps/' flat-tr.txt > flat-ps.txt
t_pipe kmat-units-differ 65 'cat flat-tr.txt flat-ps.txt | milestone-kmat'
t kmat-wrong-kind 65 'milestone-kmat k3.out'
t kmat-empty 65 'milestone-kmat < /dev/null'
t kmat-no-file 66 'milestone-kmat no-such-file'
t kmat-bad-target 64 'milestone-kmat -f 11 flat-tr.txt'
t_usage kmat-usage 'milestone-kmat -Z'
t_usage kmat-target-word 'milestone-kmat -f x flat-tr.txt'
bad_q() {	# bad_q NAME TEXT: hand-written K that must exit 65
	printf "$2" > "$1.txt"
	t "$1" 65 "qstat-mfpt $1.txt"
}
bad_q q-keyword 'K 0 1 1\nK 1 0 1\ntau 0 1\ntau 1 1\nkay 0 1 1\n'
bad_q q-fields 'K 0 1\n'
bad_q q-value-above-1 'K 0 1 1.5\nK 1 0 1\ntau 0 1\ntau 1 1\n'
bad_q q-value-word 'K 0 1 one\n'
bad_q q-diagonal 'K 0 0 1\n'
bad_q q-negative-index 'K -1 0 1\n'
bad_q q-twice 'K 0 1 1\nK 0 1 1\nK 1 0 1\ntau 0 1\ntau 1 1\n'
bad_q q-tau-twice 'K 0 1 1\nK 1 0 1\ntau 0 1\ntau 0 2\ntau 1 1\n'
bad_q q-row-sum 'K 0 1 0.9\nK 1 0 1\ntau 0 1\ntau 1 1\n'
bad_q q-no-tau 'K 0 1 1\nK 1 0 1\ntau 0 1\n'
bad_q q-negative-tau 'K 0 1 1\nK 1 0 1\ntau 0 -1\ntau 1 1\n'
bad_q q-nan-tau 'K 0 1 1\nK 1 0 1\ntau 0 nan\ntau 1 1\n'
bad_q q-one-milestone 'tau 0 1\n'
bad_q q-empty ''
ok q-message-line grep -q 'q-row-sum.txt: row 0 of K sums to 0.9' q-row-sum.err
ok q-message-twice grep -q 'line 2: K 0 1 given twice (lines 1 and 2)' q-twice.err
t q-trajectories 65 'qstat-mfpt flat-tr.txt'
ok q-trajectories-hint grep -q 'run milestone-kmat' q-trajectories.err
t q-wrong-kind 65 'qstat-mfpt k3.out'
printf '\223FEK 1\nKIND kernel\nROWS 1\nCOL i i32 1\nCOL j i32 1\nEND\n\000\000\000\000\001\000\000\000' > q-kernel-cols.fek
t q-kernel-columns 65 'qstat-mfpt q-kernel-cols.fek'
printf '\001\002\000\003' > q-binary.bin
t q-binary-garbage 65 'qstat-mfpt q-binary.bin'
t q-no-file 66 'qstat-mfpt no-such-file'
# rows summing to 1 within 1e-6 are renormalised
printf 'K 0 1 1\nK 1 0 0.3333333\nK 1 2 0.6666667\nK 2 1 1\ntau 0 1\ntau 1 1\ntau 2 1\n' > thirds.txt
t q-thirds 0 'qstat-mfpt -i 0 -f 2 thirds.txt > thirds.out'
near q-thirds-mfpt "$(first thirds.out)" 3 1e-6

# ---- usage: 64 --------------------------------------------------------------------
t_usage q-start-alone 'qstat-mfpt -i 0 flat.txt'
t_usage q-target-alone 'qstat-mfpt -f 3 flat.txt'
# the start milestone was -s and the seed -S: the old spelling fails loudly
# (-s is the seed now, and -f needs -i)
t_usage q-old-start 'qstat-mfpt -s 0 -f 10 flat.txt'
ok q-old-start-says grep -q -- '-i and -f go together' q-old-start.err
t_usage q-old-seed 'qstat-mfpt -B 10 -S 7 -i 0 -f 10 flat.txt'
t_usage q-bad-seed 'qstat-mfpt -s -1 flat.txt'
t_usage q-bad-boundary 'qstat-mfpt -b sideways flat.txt'
t_usage q-bad-source 'qstat-mfpt -b recycle=x flat.txt'
t_usage q-bad-solver 'qstat-mfpt --solver lu flat.txt'
t_usage q-bad-units 'qstat-mfpt -u eV flat.txt'
t_usage q-two-files 'qstat-mfpt flat.txt flat.txt'
t_usage q-unknown 'qstat-mfpt -Z'
t q-start-range 64 'qstat-mfpt -i 11 -f 10 flat.txt'
t q-target-range 64 'qstat-mfpt -i 0 -f 11 flat.txt'
t q-start-is-target 64 'qstat-mfpt -i 3 -f 3 flat.txt'
t q-source-is-target 64 'qstat-mfpt -b recycle=10 -i 0 -f 10 flat.txt'
t q-kcal-needs-temp 64 'qstat-mfpt -u kcal flat.txt'
t q-bootstrap-needs-counts 64 'qstat-mfpt -B 10 -i 0 -f 10 flat.txt'
# a cycle i -> i + 2 (mod 9): connected, not tridiagonal
awk 'BEGIN { for (i = 0; i < 9; i++) print "K", i, (i + 2) % 9, 1 "\ntau", i, 1 }' > jump.txt
t q-tridiag-forced 64 'qstat-mfpt -b none --solver tridiag jump.txt'
t q-jump-dense 0 'qstat-mfpt -b none jump.txt > jump.out'
ok q-jump-uniform awk '/^#KIND kinetics/ { k = 1 } k && !/^#/ { d = $3 - 1 / 9; if (d > 1e-12 || d < -1e-12) exit 1 }' jump.out
t q-version 0 'qstat-mfpt --version > qv.out'
ok q-version-text grep -qx 'qstat-mfpt (fek) [0-9][0-9.]*' qv.out
t kmat-version 0 'milestone-kmat --version > kv.out'
ok kmat-version-text grep -qx 'milestone-kmat (fek) [0-9][0-9.]*' kv.out

# ---- write errors -------------------------------------------------------------------
if [ -w /dev/full ]; then
	t kmat-write-error 74 'milestone-kmat flat-tr.txt > /dev/full'
	t q-write-error 74 'qstat-mfpt -i 0 -f 10 flat.txt > /dev/full'
else
	skip write-errors 'no /dev/full'
fi

# ---- the plot script ----------------------------------------------------------------
if have gnuplot; then
	t plot-script 0 "gnuplot -e \"in='dw.out'; out='dw.png'\" '$TOP/scripts/plot-milestones.gp'"
	ok plot-png sh -c 'test -s dw.png && head -c 4 dw.png | grep -q PNG'
else
	skip plot-script 'no gnuplot (scripts/install-deps demo)'
fi
# tau lines without a K line: no kernel (65), where qsort was handed NULL
# and the message blamed a disconnected K (fuzz finding milestone-tau-only)
printf 'tau 0 1\ntau 1 2\n' > tau-only.txt
t q-tau-only 65 'qstat-mfpt tau-only.txt'
says q-tau-only 'no K lines'
# hand-written lines: an index far beyond the lines leaves milestones in
# no line (65, before anything that long is allocated: "K 2 222222222"
# took a fuzz run past its 10 s), a gap likewise, and a K line with more
# than its four fields is refused rather than read in part
printf 'K 0 1 1\nK 1 0 1\ntau 0 1\ntau 1 1\nK 2 222222222 0\n' > far.txt
t q-far-index 65 'qstat-mfpt far.txt'
says q-far-index '222222223 milestones from 5 lines'
printf 'K 0 1 1\nK 1 0 1\ntau 0 1\ntau 1 1\ntau 5 1\n' > gap.txt
t q-gap 65 'qstat-mfpt gap.txt'
says q-gap 'milestone 2 appears in no line'
printf 'K 0 1 1 7\nK 1 0 1\ntau 0 1\ntau 1 1\n' > extra.txt
t q-extra-field 65 'qstat-mfpt extra.txt'
says q-extra-field "found 'K' with more than 4 fields"
