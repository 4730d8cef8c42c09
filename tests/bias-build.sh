# tests/bias-build.sh: the umbrella bias factors (tools/bias-build.c,
# lib/bias.c): ln c_hb = -k/2 (x_b - c)^2 / (k_B T) at bin centres, one
# block of rows per axis, minimum image on periodic axes; the histogram
# passes through unchanged.
. "$(dirname "$0")/lib.sh"

KB=0.0019872042586408316	# kcal/mol/K
KBJ=0.00831446261815324		# kJ/mol/K

# hist AXIS-LINES BINS WINDOW TEMP ENERGY: a text histogram section (rows
# on stdin).
hist() {
	local rows a axes=""
	rows=$(cat)
	for a in $1; do axes="$axes#AXIS ${a//_/ }
"; done
	printf '#FEK 1\n#KIND histogram\n#ROWS %d\n#COL bin i64 1\n#COL count f64 1\n' \
	    "$(printf '%s\n' "$rows" | grep -c .)"
	printf '%s#BINS %s\n#WINDOW %s\n#TEMP %s\n#ENERGY %s\n#NSAMPLES 9\n#END\n%s\n' \
	    "$axes" "$2" "$3" "$4" "$5" "$rows"
}
# section N FILE: the data rows of the N-th section of a text stream.
section() {
	awk -v n="$1" '/^#FEK/ { s++ } s == n && !/^#/ && NF' "$2"
}
# expected lnc for one axis: expect LO HI NBINS PERIODIC C K BETA
expect() {
	awk -v lo="$1" -v hi="$2" -v n="$3" -v per="$4" -v c="$5" -v k="$6" -v beta="$7" 'BEGIN {
		L = hi - lo
		for (i = 0; i < n; i++) {
			x = lo + (i + 0.5) * L / n; d = x - c
			if (per) { r = d / L; d -= L * (r >= 0 ? int(r + 0.5) : -int(-r + 0.5)) }
			printf "%.17g\n", -beta * 0.5 * k * d * d
		}
	}'
}
BETA=$(awk -v kb=$KB 'BEGIN { printf "%.17g", 1 / (kb * 300) }')

# ---- the thesis case: K = 0.001, T = 300, centre -180, 18-degree bins ------
printf '0 5\n1 4\n19 3\n' | hist 'x_-180_180_periodic_deg' 20 '-180 0.001' 300 kcal/mol > th.txt
t thesis-run 0 'bias-build -T < th.txt > th.out'
section 2 th.out > th.lnc
expect -180 180 20 1 -180 0.001 "$BETA" > th.want
numcmp_files thesis-lnc th.want th.lnc 1e-12 1e-15
# exp(ln c) of the first five bins: Potgieter 2014, Table 5.1
i=0
for c in 0.934 0.543 0.183 0.036 0.0041; do
	i=$((i + 1))
	near thesis-c$i "$(sed -n ${i}p th.lnc | awk '{ printf "%.6f", exp($1) }')" $c 1e-3
done
# minimum image: the bin at +171 is 9 degrees from -180, as the bin at -171
near thesis-min-image "$(sed -n 20p th.lnc)" "$(sed -n 1p th.lnc)" 1e-12
ok thesis-mirror sh -c "test \"\$(head -n 10 th.lnc)\" = \"\$(tail -n 10 th.lnc | tac)\""
ok thesis-rows test "$(wc -l < th.lnc)" -eq 20
ok thesis-kind grep -qx '#KIND logbias' th.out
ok thesis-keys sh -c "grep -qx '#COL lnc f64 1' th.out && grep -qx '#BIASEVAL centre' th.out && test \$(grep -c '^#WINDOW -180 0.001\$' th.out) = 2"
# the histogram passes through unchanged (payload and every key but PROV)
section 1 th.out > th.hist
grep -v '^#' th.txt | grep -v '^$' > th.hist.want
same_file passthrough-payload th.hist.want th.hist
awk '/^#FEK/ { s++ } s == 1 && /^#/ && !/^#PROV/' th.out > th.hdr
grep '^#' th.txt > th.hdr.want
same_file passthrough-header th.hdr.want th.hdr

# ---- the same window on an open axis: no minimum image ---------------------------
printf '0 5\n' | hist 'x_-180_180_open_deg' 20 '-180 0.001' 300 kcal/mol > op.txt
t open-run 0 'bias-build -T < op.txt > op.out'
section 2 op.out > op.lnc
expect -180 180 20 0 -180 0.001 "$BETA" > op.want
numcmp_files open-lnc op.want op.lnc 1e-12 1e-15
near open-far-bin "$(sed -n 20p op.lnc)" "$(awk -v b=$BETA 'BEGIN { printf "%.10f", -b * 0.5 * 0.001 * 351 * 351 }')" 1e-6

# ---- 2-D, kJ/mol, another temperature; a centre outside the periodic domain ------
printf '0 1\n23 2\n' | hist 'x_0_6_open_nm y_-2_2_periodic_rad' '6 4' '1.3 5.9 0.002 0.5' 250 kJ/mol > two.txt
t twod-run 0 'bias-build -T < two.txt > two.out'
section 2 two.out > two.lnc
BJ=$(awk -v kb=$KBJ 'BEGIN { printf "%.17g", 1 / (kb * 250) }')
{ expect 0 6 6 0 1.3 0.002 "$BJ"; expect -2 2 4 1 5.9 0.5 "$BJ"; } > two.want
numcmp_files twod-lnc two.want two.lnc 1e-12 1e-15
ok twod-rows test "$(wc -l < two.lnc)" -eq 10
ok twod-energy grep -q '^#ENERGY kJ/mol' two.out

# zero spring: every factor is 1
printf '0 1\n' | hist 'x_0_1_open_1' 3 '0.5 0' 300 kcal/mol > zero.txt
t zero-spring 0 'bias-build -T < zero.txt > zero.out'
section 2 zero.out > zero.lnc
printf '0\n0\n0\n' > zero.want
numcmp_files zero-spring-lnc zero.want zero.lnc 0 0

# ---- several sections; an input logbias is rebuilt, not doubled ------------------
cat th.txt two.txt > th-two.txt
t sections-run 0 'bias-build -T < th-two.txt > tt.out'
ok sections-order sh -c "grep '^#KIND' tt.out | tr '\n' ' ' | grep -qx '#KIND histogram #KIND logbias #KIND histogram #KIND logbias '"
section 4 tt.out > tt4.lnc
numcmp_files sections-second-bias two.want tt4.lnc 1e-12 1e-15
t idempotent-run 0 'bias-build < th-two.txt | bias-build -T > tt2.out'
grep -v '^#PROV' tt.out > tt.np
grep -v '^#PROV' tt2.out > tt2.np
same_file idempotent tt.np tt2.np
t operands-run 0 'bias-build -T th.txt two.txt > ops.out'
grep -v '^#PROV' ops.out > ops.np
same_file operands-equal tt.np ops.np

# ---- errors -----------------------------------------------------------------------------
grep -v '^#WINDOW' th.txt > nowin.txt
t err-no-window 65 'bias-build < nowin.txt'
ok err-no-window-msg grep -q 'WINDOW' err-no-window.err
sed 's/^#WINDOW .*/#WINDOW 1.3 0.002/' two.txt > win1.txt
t err-window-count 65 'bias-build < win1.txt'
sed 's/^#WINDOW .*/#WINDOW -180 -0.001/' th.txt > winneg.txt
t err-window-negative 65 'bias-build < winneg.txt'
grep -v '^#TEMP' th.txt > notemp.txt
t err-no-temp 65 'bias-build < notemp.txt'
sed 's/^#TEMP .*/#TEMP -5/' th.txt > negtemp.txt
t err-bad-temp 65 'bias-build < negtemp.txt'
sed 's/^#ENERGY .*/#ENERGY kT/' th.txt > ekt.txt
t err-energy-kT 65 'bias-build < ekt.txt'
grep -v '^#ENERGY' th.txt > noen.txt
t err-no-energy 65 'bias-build < noen.txt'
grep -v '^#BINS' th.txt > nobins.txt
t err-no-bins 65 'bias-build < nobins.txt'
sed 's/^#BINS .*/#BINS 20 3/' th.txt > bins2.txt
t err-bins-count 65 'bias-build < bins2.txt'
sed 's/^#AXIS .*/#AXIS x 180 -180 periodic deg/' th.txt > axisrev.txt
t err-axis-reversed 65 'bias-build < axisrev.txt'
sed 's/^#KIND histogram/#KIND samples/' th.txt > kind.txt
t err-kind 65 'bias-build < kind.txt'
ok err-kind-msg grep -q 'KIND samples' err-kind.err
{ cat th.txt; cat nowin.txt; } > good-bad.txt
t err-second-section 65 'bias-build < good-bad.txt'
ok err-second-section-msg grep -q 'section 2' err-second-section.err
