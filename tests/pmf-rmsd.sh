# tests/pmf-rmsd.sh: pmf (W = -kT ln p in kcal/mol, kJ/mol, kT; zero at
# the minimum or -z; marginals; the bootstrap's sd_F = kT sd_lnp) and rmsd
# (RMSD after the optimal constant shift, cutoff, --fail-above) on
# hand-written sections with exact answers, and on wham-gpu -B output.
. "$(dirname "$0")/lib.sh"

KB=0.0019872042586408316	# kcal/mol/K
KBJ=0.00831446261815324		# kJ/mol/K

data() { grep -v '^#' "$1" | grep -v '^$'; }
val() {	# val KEY FILE: the value on rmsd's output line KEY
	awk -v k="$1" '$1 == k { print $2 }' "$2"
}

# ---- pmf: 1-D, p = 0.1 0.2 0 0.7 on [0,4] -------------------------------------
awk 'BEGIN {
	print "#FEK 1\n#KIND prob\n#ROWS 4\n#COL lnp f64 1\n#AXIS x 0 4 open nm\n#BINS 4"
	print "#TEMP 300\n#ENERGY kcal/mol\n#PMF formula text\n#END"
	printf "%.17g\n%.17g\n-inf\n%.17g\n", log(0.1), log(0.2), log(0.7)
}' > p1.txt
# expect UNIT-SIZE-OF-kT ZERO-P: coordinates and F = kT ln(p0 / p)
expect1() {
	awk -v kt="$1" -v p0="$2" 'BEGIN {
		split("0.1 0.2 0 0.7", p, " ")
		for (i = 1; i <= 4; i++)
			if (p[i] == 0) printf "%.1f inf\n", i - 0.5
			else printf "%.1f %.17g\n", i - 0.5, kt * (log(p0) - log(p[i]))
	}'
}
t pmf-kcal 0 'pmf < p1.txt > f-kcal.out'
expect1 "$(awk -v kb=$KB 'BEGIN { printf "%.17g", kb * 300 }')" 0.7 > f-kcal.want
data f-kcal.out > f-kcal.data
numcmp_files pmf-kcal-values f-kcal.want f-kcal.data 1e-12 1e-15
ok pmf-zero-at-min awk '$1 == 3.5 { exit !($2 == 0) }' f-kcal.data
ok pmf-kcal-header sh -c "grep -qx '#COL F f64 kcal/mol' f-kcal.out && grep -qx '#COL x f64 nm' f-kcal.out && grep -qx '#ZERO minimum' f-kcal.out && grep -qx '#KIND pmf' f-kcal.out"
ok pmf-keeps-formula grep -qx '#PMF formula text' f-kcal.out
t pmf-kJ 0 'pmf -u kJ < p1.txt > f-kj.out'
expect1 "$(awk -v kb=$KBJ 'BEGIN { printf "%.17g", kb * 300 }')" 0.7 > f-kj.want
data f-kj.out > f-kj.data
numcmp_files pmf-kJ-values f-kj.want f-kj.data 1e-12 1e-15
ok pmf-kJ-header grep -qx '#COL F f64 kJ/mol' f-kj.out
t pmf-kT 0 'pmf --units kT < p1.txt > f-kt.out'
expect1 1 0.7 > f-kt.want
data f-kt.out > f-kt.data
numcmp_files pmf-kT-values f-kt.want f-kt.data 1e-12 1e-15
t pmf-z 0 'pmf -z 1.2 < p1.txt > f-z.out'
expect1 "$(awk -v kb=$KB 'BEGIN { printf "%.17g", kb * 300 }')" 0.2 > f-z.want
data f-z.out > f-z.data
numcmp_files pmf-z-values f-z.want f-z.data 1e-12 1e-15
ok pmf-z-key grep -qx '#ZERO 1.2' f-z.out
t pmf-z-empty-bin 1 'pmf -z 2.5 < p1.txt'
t_usage pmf-z-outside 'pmf -z 7 < p1.txt'
t_usage pmf-z-bad 'pmf -z 1,2 < p1.txt'
t pmf-file-operand 0 'pmf p1.txt > f-op.out'
data f-op.out > f-op.data
same_file pmf-file-operand-same f-kcal.data f-op.data
# winfree (or any) sections before the prob section are passed over
printf '#FEK 1\n#KIND winfree\n#ROWS 1\n#COL F f64 kT\n#END\n0\n' > wf.txt
cat wf.txt p1.txt > wf-p1.txt
t pmf-skips-winfree 0 'pmf < wf-p1.txt > f-wf.out'
data f-wf.out > f-wf.data
same_file pmf-skips-winfree-same f-kcal.data f-wf.data

# ---- pmf: 2-D separable p = px(x) py(y); marginals; gnuplot blank lines --------
awk 'BEGIN {
	split("0.2 0.5 0.3", px, " "); split("0.1 0.4 0.3 0.2", py, " ")
	print "#FEK 1\n#KIND prob\n#ROWS 12\n#COL lnp f64 1\n#AXIS x 0 3 open 1"
	print "#AXIS y -180 180 periodic deg\n#BINS 3 4\n#TEMP 300\n#ENERGY kcal/mol\n#END"
	for (i = 1; i <= 3; i++) for (j = 1; j <= 4; j++) printf "%.17g\n", log(px[i]) + log(py[j])
}' > p2.txt
awk 'BEGIN {
	print "#FEK 1\n#KIND prob\n#ROWS 3\n#COL lnp f64 1\n#AXIS x 0 3 open 1\n#BINS 3\n#TEMP 300\n#ENERGY kcal/mol\n#END"
	printf "%.17g\n%.17g\n%.17g\n", log(0.2), log(0.5), log(0.3)
}' > px.txt
awk 'BEGIN {
	print "#FEK 1\n#KIND prob\n#ROWS 4\n#COL lnp f64 1\n#AXIS y -180 180 periodic deg\n#BINS 4\n#TEMP 300\n#ENERGY kcal/mol\n#END"
	printf "%.17g\n%.17g\n%.17g\n%.17g\n", log(0.1), log(0.4), log(0.3), log(0.2)
}' > py.txt
t marg-x 0 'pmf -m 1 < p2.txt > mx.out'
t marg-x-1d 0 'pmf < px.txt > px.out'
data mx.out > mx.data
data px.out > px.data
numcmp_files marg-x-equals-1d px.data mx.data 1e-12 1e-15
t marg-y 0 'pmf -m y < p2.txt > my.out'
t marg-y-1d 0 'pmf < py.txt > py.out'
data my.out > my.data
data py.out > py.data
numcmp_files marg-y-equals-1d py.data my.data 1e-12 1e-15
ok marg-y-axis grep -qx '#AXIS y -180 180 periodic deg' my.out
t_usage marg-bad-axis 'pmf -m 3 < p2.txt'
t_usage marg-bad-name 'pmf -m z < p2.txt'
t pmf-2d 0 'pmf < p2.txt > f2.out'
t pmf-2d-all-axes 0 'pmf -m 1,2 < p2.txt > f2m.out'
data f2.out > f2.data
data f2m.out > f2m.data
same_file pmf-2d-m-all-is-all f2.data f2m.data
ok pmf-2d-three-columns awk '!/^#/ && NF && NF != 3 { exit 1 }' f2.out
# after the header: 3 blocks of 4 rows separated by single blank lines
ok pmf-2d-blank-lines sh -c "test \"\$(awk '/^#/ { next } NF { n++; next } { printf \"%d,\", n; n = 0 } END { print n }' f2.out)\" = '4,4,4'"
# F(x,y) = Fx(x) + Fy(y) for separable p, zero at the joint minimum
awk -v kt="$(awk -v kb=$KB 'BEGIN { printf "%.17g", kb * 300 }')" 'BEGIN {
	split("0.2 0.5 0.3", px, " "); split("0.1 0.4 0.3 0.2", py, " ")
	for (i = 1; i <= 3; i++) for (j = 1; j <= 4; j++)
		printf "%.1f %d %.17g\n", i - 0.5, -135 + 90 * (j - 1), kt * (log(0.5) + log(0.4) - log(px[i]) - log(py[j]))
}' > f2.want
numcmp_files pmf-2d-values f2.want f2.data 1e-12 1e-15
# binary output (-B) read back by rmsd
t pmf-binary 0 'pmf -B < p2.txt > f2.bin'
ok pmf-binary-magic sh -c "head -c 4 f2.bin | od -An -c | grep -q '223   F   E   K'"

# ---- pmf errors -------------------------------------------------------------------------
t pmf-no-prob 65 'pmf < wf.txt'
ok pmf-no-prob-msg grep -q 'no prob section' pmf-no-prob.err
sed 's/^#BINS 4$/#BINS 5/' p1.txt > p1-rows.txt
t pmf-rows-vs-bins 65 'pmf < p1-rows.txt'
sed 's/^-inf$/inf/' p1.txt > p1-inf.txt
t pmf-plus-inf 65 'pmf < p1-inf.txt'
awk '/^#END/ { print; next } !/^#/ { print "-inf"; next } { print }' p1.txt > p1-empty.txt
t pmf-all-empty 1 'pmf < p1-empty.txt'
t_usage pmf-bad-unit 'pmf -u eV < p1.txt'
t_usage pmf-two-files 'pmf p1.txt p1.txt'

# ---- pmf: bootstrap standard deviations (sd_lnp -> sd_F = kT sd_lnp) ----------------
# by hand: p1 with sd_lnp 0.1 0.2 inf 0.05; the empty bin gets sd_F inf
awk '/^#COL lnp/ { print; print "#COL sd_lnp f64 1"; next }
/^#END/ { print "#BOOTSTRAP 7"; print; next }
/^#/ { print; next } { split("0.1 0.2 inf 0.05", s, " "); print $1, s[++n] }' p1.txt > p1sd.txt
t pmf-sd-hand 0 'pmf < p1sd.txt > f-sd.out'
data f-sd.out > f-sd.data
awk '{ print $1, $2 }' f-kcal.data > f-sd-F.want
awk '{ print $1, $2 }' f-sd.data > f-sd-F.got
numcmp_files pmf-sd-hand-F-unchanged f-sd-F.want f-sd-F.got 0 0
awk -v kt="$(awk -v kb=$KB 'BEGIN { printf "%.17g", kb * 300 }')" 'BEGIN {
	split("0.1 0.2 inf 0.05", s, " ")
	for (i = 1; i <= 4; i++) if (s[i] == "inf") print "inf"; else printf "%.17g\n", kt * s[i]
}' > f-sd.want
awk '{ print $3 }' f-sd.data > f-sd.got
numcmp_files pmf-sd-hand-values f-sd.want f-sd.got 1e-12 1e-15
ok pmf-sd-hand-header sh -c "grep -A1 -x '#COL F f64 kcal/mol' f-sd.out | grep -qx '#COL sd_F f64 kcal/mol' && grep -qx '#BOOTSTRAP 7' f-sd.out"
# the columns are found by name, in either order
awk '/^#COL lnp/ { l = $0; next } /^#COL sd_lnp/ { print; print l; next }
/^#/ { print; next } { print $2, $1 }' p1sd.txt > p1sd-swap.txt
t pmf-sd-swapped 0 'pmf < p1sd-swap.txt > f-sd-swap.out'
same_file pmf-sd-swapped-same f-sd.out f-sd-swap.out
ok pmf-no-sd-no-column sh -c "! grep -q 'sd_F' f-kcal.out && ! grep -q BOOTSTRAP f-kcal.out"

# from wham-gpu -B: every row's sd_F is kT sd_lnp, in each unit
sample-gen -p '0*x' -r -180:180:p -g 12 -k 0.005 -n 500 | histogram -b 36 |
    bias-build > boot1.fek
t pmf-sd-wham 0 'wham-gpu -T -B 5 < boot1.fek > boot1.prob'
# sdrows KT PMF: the pmf's sd_F against boot1.prob's sd_lnp, row by row
sdrows() {
	paste <(awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF' boot1.prob) <(data "$2") | awk -v kt="$1" '{
		n++; w = kt * $2; d = $5 - w; if (d < 0) d = -d
		if (NF != 5 || !(w > 0) || d > 1e-12 * w) {
			print "row " n ": sd_F " $5 ", want " w > "/dev/stderr"; bad = 1; exit 1 } }
	    END { if (!bad && n != 36) { print n " rows, want 36" > "/dev/stderr"; exit 1 } }'
}
t pmf-sd-kcal 0 'pmf < boot1.prob > boot1-kcal.out'
ok pmf-sd-kcal-values sdrows "$(awk -v kb=$KB 'BEGIN { printf "%.17g", kb * 300 }')" boot1-kcal.out
ok pmf-sd-kcal-header sh -c "grep -qx '#COL sd_F f64 kcal/mol' boot1-kcal.out && grep -qx '#BOOTSTRAP 5' boot1-kcal.out"
t pmf-sd-kJ 0 'pmf -u kJ < boot1.prob > boot1-kj.out'
ok pmf-sd-kJ-values sdrows "$(awk -v kb=$KBJ 'BEGIN { printf "%.17g", kb * 300 }')" boot1-kj.out
ok pmf-sd-kJ-header grep -qx '#COL sd_F f64 kJ/mol' boot1-kj.out
t pmf-sd-kT 0 'pmf -u kT < boot1.prob > boot1-kt.out'
ok pmf-sd-kT-values sdrows 1 boot1-kt.out
ok pmf-sd-kT-header grep -qx '#COL sd_F f64 kT' boot1-kt.out
# -z moves F, not sd_F
t pmf-sd-z 0 'pmf -z 0 < boot1.prob > boot1-z.out'
ok pmf-sd-z-same-sd cmp -s <(grep -v '^#' boot1-kcal.out | awk '{ print $3 }') <(grep -v '^#' boot1-z.out | awk '{ print $3 }')
# -m keeping every axis is no projection: sd_F stays
t pmf-sd-m-all 0 'pmf -m x < boot1.prob > boot1-m.out'
ok pmf-sd-m-all-same cmp -s <(grep -v '^#' boot1-kcal.out) <(grep -v '^#' boot1-m.out)
ok pmf-sd-m-all-silent test ! -s pmf-sd-m-all.err
# rmsd finds F by name beside sd_F; binary too
t pmf-sd-binary 0 'pmf -B < boot1.prob > boot1.bin'
t pmf-sd-rmsd 0 'rmsd -f boot1-kcal.out boot1.bin > boot1-rmsd.out'
near pmf-sd-rmsd-0 "$(val RMSD boot1-rmsd.out)" 0 0

# a marginal: sd_F left out with one warning line (none with -q)
sample-gen -p '0*x' -r -180:180:p -r -180:180:p -g 4 -k 0.001 -n 300 |
    histogram -b 12 -b 10 | bias-build > boot2.fek
t pmf-sd-wham-2d 0 'wham-gpu -T -B 3 < boot2.fek > boot2.prob'
t pmf-sd-2d 0 'pmf < boot2.prob > boot2.out'
ok pmf-sd-2d-four-columns awk '!/^#/ && NF && NF != 4 { exit 1 }' boot2.out
t pmf-sd-marginal 0 'pmf -m y < boot2.prob > boot2-y.out'
ok pmf-sd-marginal-no-column sh -c "! grep -q 'sd_F\|BOOTSTRAP' boot2-y.out && awk '!/^#/ && NF && NF != 2 { exit 1 }' boot2-y.out"
ok pmf-sd-marginal-warns sh -c "test \"\$(wc -l < pmf-sd-marginal.err)\" = 1 && grep -q '^pmf: .*sd_F left out' pmf-sd-marginal.err"
t pmf-sd-marginal-q 0 'pmf -q -m y < boot2.prob > boot2-yq.out'
ok pmf-sd-marginal-q-silent test ! -s pmf-sd-marginal-q.err
ok pmf-sd-marginal-q-same cmp -s <(data boot2-y.out) <(data boot2-yq.out)
# the marginal's F is that of the one-column section
awk '/^#FEK/ { s++ } s > 1 { print; next } /^#COL sd_lnp/ { next }
    /^#/ { print; next } NF { print $1 }' boot2.prob > boot2-1col.prob
t pmf-sd-marginal-1col 0 'pmf -m y < boot2-1col.prob > boot2-y1.out'
ok pmf-sd-marginal-F-same cmp -s <(grep -v '^#' boot2-y.out) <(grep -v '^#' boot2-y1.out)

# errors: other columns, a negative or NaN sd_lnp
sed 's/^#COL sd_lnp /#COL sd /' p1sd.txt > p1sd-name.txt
t pmf-sd-bad-name 65 'pmf < p1sd-name.txt'
ok pmf-sd-bad-name-msg grep -q 'expected lnp and sd_lnp' pmf-sd-bad-name.err
awk '/^#COL sd_lnp/ { print; print "#COL w f64 1"; next } /^#/ { print; next } { print $0, 1 }' p1sd.txt > p1sd-3.txt
t pmf-sd-three-columns 65 'pmf < p1sd-3.txt'
awk '/^#/ { print; next } { if (++n == 2) $2 = -0.2; print }' p1sd.txt > p1sd-neg.txt
t pmf-sd-negative 65 'pmf < p1sd-neg.txt'
ok pmf-sd-negative-msg grep -q 'row 2: sd_lnp = -0.2' pmf-sd-negative.err
awk '/^#/ { print; next } { if (++n == 3) $2 = "nan"; print }' p1sd.txt > p1sd-nan.txt
t pmf-sd-nan 65 'pmf < p1sd-nan.txt'

# ---- rmsd ----------------------------------------------------------------------------------
# pmfsec UNIT EXPR: a 1-D pmf text section on [-180,180), 360 points, F
# from the awk expression EXPR of x and W (the thesis PMF at x, kcal/mol).
pmfsec() {
	awk -v unit="$1" -v kb=$KB 'function W(x) { return 0.6 * (1 + cos(x * 3.141592653589793 / 180)) + 1.4 * (1 + cos(3 * x * 3.141592653589793 / 180)) }
	BEGIN {
		kt = kb * 300
		printf "#FEK 1\n#KIND pmf\n#ROWS 360\n#COL x f64 deg\n#COL F f64 %s\n", unit
		printf "#AXIS x -180 180 periodic deg\n#BINS 360\n#TEMP 300\n#END\n"
		for (i = 0; i < 360; i++) { x = -180 + i + 0.5; w = W(x); printf "%.17g %.17g\n", x, '"$2"' }
	}'
}
P='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
pmfsec kcal/mol 'w' > ref.txt
pmfsec kcal/mol 'w + 1.7' > off.txt
pmfsec kcal/mol 'w + 0.5 + 0.3 * sin(5 * x * 3.141592653589793 / 180)' > sin.txt
pmfsec kcal/mol 'w + (w > 3 ? 2 : 0)' > high.txt
pmfsec kT 'w / kt' > ref-kt.txt
pmfsec kJ/mol 'w * 4.184' > ref-kj.txt

t rmsd-identical 0 'rmsd -f ref.txt ref.txt > id.out'
near rmsd-identical-0 "$(val RMSD id.out)" 0 0
ok rmsd-identical-bins grep -qx 'bins 360 of 360' id.out
ok rmsd-output-lines sh -c "awk '{ print \$1 }' id.out | tr '\n' ' ' | grep -qx 'units bins shift max RMSD '"
ok rmsd-units-line grep -qx 'units kcal/mol' id.out
t rmsd-formula 0 "rmsd -p '$P' ref.txt > fo.out"
near rmsd-formula-0 "$(val RMSD fo.out)" 0 1e-9
t rmsd-offset 0 "rmsd -p '$P' off.txt > off.out"
near rmsd-offset-0 "$(val RMSD off.out)" 0 1e-9
near rmsd-offset-shift "$(val shift off.out)" 1.7 1e-9
t rmsd-offset-ref 0 'rmsd -f ref.txt off.txt > offr.out'
near rmsd-offset-ref-0 "$(val RMSD offr.out)" 0 1e-9
# a sinusoid of amplitude A over whole periods: RMSD A/sqrt(2), shift 0.5
t rmsd-sine 0 "rmsd -p '$P' sin.txt > sin.out"
near rmsd-sine-A-over-root2 "$(val RMSD sin.out)" "$(awk 'BEGIN { print 0.3 / sqrt(2) }')" 1e-3
near rmsd-sine-shift "$(val shift sin.out)" 0.5 1e-6
near rmsd-sine-max "$(val max sin.out)" 0.3 1e-3
t rmsd-sine-ref 0 'rmsd -f ref.txt sin.txt > sinr.out'
near rmsd-sine-ref-value "$(val RMSD sinr.out)" "$(awk 'BEGIN { print 0.3 / sqrt(2) }')" 1e-3
t rmsd-sine-kJ 0 "rmsd -u kJ -p '$P' sin.txt > sinkj.out"
near rmsd-sine-kJ-value "$(val RMSD sinkj.out)" "$(awk 'BEGIN { print 4.184 * 0.3 / sqrt(2) }')" 4e-3
ok rmsd-sine-kJ-units grep -qx 'units kJ/mol' sinkj.out
# the cutoff leaves out the bins above it
NLOW=$(awk 'BEGIN { for (i = 0; i < 360; i++) { x = (-180 + i + 0.5) * 3.141592653589793 / 180
	w = 0.6 * (1 + cos(x)) + 1.4 * (1 + cos(3 * x)); n += w <= 3 }; print n }')
t rmsd-cutoff 0 "rmsd -c 3 -p '$P' high.txt > cut.out"
near rmsd-cutoff-0 "$(val RMSD cut.out)" 0 1e-9
ok rmsd-cutoff-bins grep -qx "bins $NLOW of 360" cut.out
t rmsd-no-cutoff 0 "rmsd -p '$P' high.txt > nocut.out"
ok rmsd-no-cutoff-sees-it awk '$1 == "RMSD" { exit !($2 > 0.1) }' nocut.out
# in kT: 5 kT at 300 K
N5=$(awk -v kt="$(awk -v kb=$KB 'BEGIN { print kb * 300 }')" 'BEGIN { for (i = 0; i < 360; i++) { x = (-180 + i + 0.5) * 3.141592653589793 / 180
	w = 0.6 * (1 + cos(x)) + 1.4 * (1 + cos(3 * x)); n += w <= 5 * kt }; print n }')
t rmsd-cutoff-kT 0 "rmsd -c 5kT -p '$P' ref.txt > cutkt.out"
ok rmsd-cutoff-kT-bins grep -qx "bins $N5 of 360" cutkt.out
# empty bins (inf) are left out: 20 points in (100, 120)
awk '/^#/ { print; next } { if ($1 > 100 && $1 < 120) $2 = "inf"; print }' ref.txt > holes.txt
t rmsd-holes 0 "rmsd -p '$P' holes.txt > holes.out"
ok rmsd-holes-bins grep -qx 'bins 340 of 360' holes.out
near rmsd-holes-0 "$(val RMSD holes.out)" 0 1e-9
# units: a PMF in kT or kJ/mol against a formula in kcal/mol
t rmsd-file-in-kT 0 "rmsd -p '$P' ref-kt.txt > rkt.out"
near rmsd-file-in-kT-0 "$(val RMSD rkt.out)" 0 1e-9
t rmsd-file-in-kJ 0 "rmsd -p '$P' ref-kj.txt > rkj.out"
near rmsd-file-in-kJ-0 "$(val RMSD rkj.out)" 0 1e-9
t rmsd-u-kT 0 "rmsd -u kT -p '$P' sin.txt > ukt.out"
near rmsd-u-kT-value "$(val RMSD ukt.out)" "$(awk -v kb=$KB 'BEGIN { print 0.3 / sqrt(2) / (kb * 300) }')" 2e-3
# a reference in other units is converted (its own TEMP for kT)
t rmsd-ref-in-kJ 0 'rmsd -f ref-kj.txt sin.txt > rfkj.out'
near rmsd-ref-in-kJ-value "$(val RMSD rfkj.out)" "$(awk 'BEGIN { print 0.3 / sqrt(2) }')" 1e-3
t rmsd-ref-in-kT 0 'rmsd -f ref-kt.txt sin.txt > rfkt.out'
near rmsd-ref-in-kT-value "$(val RMSD rfkt.out)" "$(awk 'BEGIN { print 0.3 / sqrt(2) }')" 1e-3
# --fail-above: exit 1 (the numbers are still printed)
T_ALLOW_STDOUT=1 t rmsd-fail-above 1 "rmsd --fail-above 0.1 -p '$P' sin.txt"
ok rmsd-fail-above-prints grep -q '^RMSD 0.2121' rmsd-fail-above.out
ok rmsd-fail-above-msg grep -q 'above' rmsd-fail-above.err
t rmsd-fail-above-pass 0 "rmsd --fail-above 0.3 -p '$P' sin.txt > /dev/null"
# binary pmf input (pmf -B), 2-D with blank lines, against a formula
t rmsd-binary-input 0 'rmsd -f f2.out f2.bin > bin.out'
near rmsd-binary-input-0 "$(val RMSD bin.out)" 0 0
awk 'BEGIN {
	print "#FEK 1\n#KIND pmf\n#ROWS 100\n#COL x f64 1\n#COL y f64 1\n#COL F f64 kcal/mol\n#TEMP 300\n#END"
	for (i = 0; i < 10; i++) { if (i) print ""; for (j = 0; j < 10; j++) { x = i / 10; y = j / 5 - 1; printf "%g %g %.17g\n", x, y, x * x + 3 * y + 2 } }
}' > p2d.txt
t rmsd-2d 0 "rmsd -p 'x^2+3*y' p2d.txt > r2d.out"
near rmsd-2d-0 "$(val RMSD r2d.out)" 0 1e-9
near rmsd-2d-shift "$(val shift r2d.out)" 2 1e-9
# plain headerless columns (x F), as gnuplot or awk would write them
awk '!/^#/ && NF' ref.txt > plain.txt
t rmsd-plain 0 "rmsd -p '$P' plain.txt > plain.out"
near rmsd-plain-0 "$(val RMSD plain.out)" 0 1e-9
printf '# x F\n0 1\n1 2\n2 5\n' > plain2.txt
t rmsd-plain-comment 0 "rmsd -p 'x^2+1' plain2.txt > plain2.out"
near rmsd-plain-comment-0 "$(val RMSD plain2.out)" 0 1e-9

# ---- rmsd errors ---------------------------------------------------------------------
t_usage rmsd-both-refs "rmsd -p '$P' -f ref.txt sin.txt"
t_usage rmsd-no-ref 'rmsd sin.txt'
t_usage rmsd-bad-variable "rmsd -p 'x+y' sin.txt"
head -n 100 ref.txt > ref-short.txt
t rmsd-ref-rows 65 'rmsd -f ref-short.txt sin.txt'
sed 's/^0.5 /0.75 /' ref.txt > ref-moved.txt
t rmsd-ref-coords 65 'rmsd -f ref-moved.txt sin.txt'
ok rmsd-ref-coords-msg grep -q 'row 181' rmsd-ref-coords.err
grep -v '^#TEMP' ref.txt > notemp.txt
t_usage rmsd-kT-cutoff-no-temp "rmsd -c 6kT -p '$P' notemp.txt"
awk '/^#/ { print; next } { print $1, "inf" }' ref.txt > allinf.txt
t rmsd-no-data 1 "rmsd -p '$P' allinf.txt"
t rmsd-wrong-kind 65 "rmsd -p '$P' p1.txt"
t rmsd-missing 66 "rmsd -p '$P' no-such.txt"
