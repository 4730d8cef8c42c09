# tests/pipeline.sh: the whole WHAM pipeline against the PMF that generated
# the samples (Potgieter 2014, section 5.1: the thesis test case), in 1-D
# and 2-D; the canonical command line of fek(7); GNU parallel fan-out.
. "$(dirname "$0")/lib.sh"

KB=0.0019872042586408316	# kcal/mol/K
KT=$(awk -v kb=$KB 'BEGIN { printf "%.17g", kb * 300 }')
P='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
P2='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))+0.6*(1+cos(y*pi/180))+1.4*(1+cos(3*y*pi/180))'

# refgen NBINS DIM: the exact bin-averaged PMF of the thesis formula (one
# axis, or the separable sum of two) as a pmf text section: F_b = -kT ln of
# the mean of exp(-W/kT) over the bin, by Simpson's rule (40 intervals).
# This is what a perfect histogram estimates; it differs from W at the bin
# centre by up to ~0.1 kcal/mol for 18-degree bins.
refgen() {
	awk -v kt=$KT -v nb=$1 -v D=$2 'function W(x) { x *= 3.141592653589793 / 180; return 0.6 * (1 + cos(x)) + 1.4 * (1 + cos(3 * x)) }
	BEGIN {
		h = 360 / nb; m = 40
		for (b = 0; b < nb; b++) {
			a = -180 + b * h; s = exp(-W(a) / kt) + exp(-W(a + h) / kt)
			for (j = 1; j < m; j++) s += (j % 2 ? 4 : 2) * exp(-W(a + j * h / m) / kt)
			F[b] = -kt * log(s / m / 3)
		}
		if (D == 1) {
			printf "#FEK 1\n#KIND pmf\n#ROWS %d\n#COL x f64 1\n#COL F f64 kcal/mol\n#TEMP 300\n#END\n", nb
			for (b = 0; b < nb; b++) printf "%.17g %.17g\n", -180 + (b + 0.5) * h, F[b]
		} else {
			printf "#FEK 1\n#KIND pmf\n#ROWS %d\n#COL x f64 1\n#COL y f64 1\n#COL F f64 kcal/mol\n#TEMP 300\n#END\n", nb * nb
			for (i = 0; i < nb; i++) {
				if (i) print ""
				for (j = 0; j < nb; j++) printf "%.17g %.17g %.17g\n", -180 + (i + 0.5) * h, -180 + (j + 0.5) * h, F[i] + F[j]
			}
		}
	}'
}
# sigma_est HIST REF: the statistical error to expect of a WHAM PMF, kT
# sqrt(mean over bins of 1/B_b), with B_b the samples of all windows in bin
# b (a bin's -kT ln p has standard error ~ kT / sqrt(B_b) for independent
# samples), over the bins the 6 kT cutoff keeps (reference within 6 kT of
# its minimum).  HIST is histogram text output.
sigma_est() {
	awk -v kt=$KT -v ref="$2" 'BEGIN {
		while ((getline l < ref) > 0) {
			if (l ~ /^#/ || l == "") continue
			n = split(l, a, " "); F[k++] = a[n]; if (k == 1 || a[n] < mn) mn = a[n]
		}
	}
	/^#/ { next } NF == 2 { B[$1] += $2 }
	END {
		for (b = 0; b < k; b++) if (F[b] - mn <= 6 * kt && (b in B)) { s2 += 1 / B[b]; m++ }
		printf "%.6g\n", kt * sqrt(s2 / m)
	}' "$1"
}
rmsd_of() { awk '$1 == "RMSD" { print $2 }' "$1"; }

# ---- 1-D: the thesis case ------------------------------------------------------
# 7 windows at -180..180 step 60, K = 0.001 kcal/mol/deg^2, 5000 samples
# each, 300 K, 20 bins.
awk 'BEGIN { for (c = -180; c <= 180; c += 60) print c, 0.001 }' > win1.txt
t thesis-1d 0 "sample-gen -p '$P' -r -180:180:p -w win1.txt -n 5000 -t 300 -s 1 | histogram -b 20 | bias-build | wham-gpu | pmf > pmf1.txt"
t thesis-1d-rmsd 0 "rmsd -c 6kT -p '$P' pmf1.txt > r1.out"
# the thesis criterion: within 0.1 kcal/mol of the formula below 6 kT
le thesis-1d-rmsd-0.1 "$(rmsd_of r1.out)" 0.1
ok thesis-1d-bins grep -qx 'bins 18 of 20' r1.out
# against the bin-averaged exact PMF the error is statistical only:
# at most 2.5 times the counting estimate (observed 0.9-1.4 over seeds)
refgen 20 1 > ref20.txt
sample-gen -p "$P" -r -180:180:p -w win1.txt -n 5000 -t 300 -s 1 | histogram -T -b 20 > h1.txt
S1=$(sigma_est h1.txt ref20.txt)
t thesis-1d-rmsd-exact 0 'rmsd -c 6kT -f ref20.txt pmf1.txt > r1x.out'
le thesis-1d-statistical "$(rmsd_of r1x.out)" "$(awk -v s=$S1 'BEGIN { print 2.5 * s }')"
le thesis-1d-sigma-sane "$S1" 0.05
# -g 7 -k 0.001 puts the same windows in the same order
sample-gen -p "$P" -r -180:180:p -g 7 -k 0.001 -n 200 -T | grep -v '^#PROV' > g7.txt
sample-gen -p "$P" -r -180:180:p -w win1.txt -n 200 -T | grep -v '^#PROV' > w7.txt
same_file thesis-1d-grid-equals-file g7.txt w7.txt

# more samples, smaller error: 4x the samples halves the statistical RMSD
t thesis-1d-more 0 "sample-gen -p '$P' -r -180:180:p -w win1.txt -n 20000 -t 300 -s 2 | histogram -b 20 | bias-build | wham-gpu | pmf > pmf1b.txt"
rmsd -c 6kT -f ref20.txt pmf1b.txt > r1b.out
le thesis-1d-more-better "$(rmsd_of r1b.out)" "$(awk -v s=$S1 'BEGIN { print 2.5 * s / 2 }')"

# ---- 2-D: the canonical command line ----------------------------------------------------
# 7 x 7 windows 60 degrees apart, K = 0.001 (sigma = sqrt(kT/K) = 24 deg, so
# neighbours overlap), 30 x 30 bins, 5000 samples per window.
awk 'BEGIN { for (x = -180; x <= 180; x += 60) for (y = -180; y <= 180; y += 60) print x, y, 0.001, 0.001 }' > windows.txt
t_pipe canonical-2d 0 "sample-gen -p '$P2' -r -180:180:p -r -180:180:p -w windows.txt -n 5000 -t 300 -s 1 | histogram -b 30 -b 30 | bias-build | wham-gpu | pmf > pmf.txt; rmsd -p '$P2' pmf.txt > r2.out"
ok canonical-2d-three-columns awk '!/^#/ && NF && NF != 3 { exit 1 } !/^#/ && NF { n++ } END { exit n != 900 }' pmf.txt
ok canonical-2d-blank-lines sh -c "test \"\$(awk '/^#/ { next } NF { n++; next } { printf \"%d,\", n; n = 0 } END { print n }' pmf.txt)\" = \"\$(awk 'BEGIN { for (i = 1; i < 30; i++) printf \"30,\"; print 30 }')\""
ok canonical-2d-rmsd-last-line sh -c "tail -n 1 r2.out | grep -q '^RMSD '"
ok canonical-2d-bins-line grep -qx 'bins [0-9]* of 900' r2.out
# Bound.  Statistical: the counting estimate (~0.046 kcal/mol here) times
# 2.5 against the bin-averaged exact PMF.  Discretisation: 12-degree bins
# put the bin-averaged PMF 0.033 kcal/mol RMS from the formula at bin
# centres below 6 kT (exact, by quadrature; bound 0.04).  Against the
# formula the expected error is about sqrt(0.046^2 + 0.033^2) = 0.057, so
# the thesis criterion of 0.1 kcal/mol leaves ~1.8x margin.
refgen 30 2 > ref30.txt
sample-gen -p "$P2" -r -180:180:p -r -180:180:p -w windows.txt -n 5000 -t 300 -s 1 | histogram -T -b 30 -b 30 > h2.txt
S2=$(sigma_est h2.txt ref30.txt)
rmsd -c 6kT -p "$P2" pmf.txt > r2c.out
rmsd -c 6kT -f ref30.txt pmf.txt > r2x.out
rmsd -c 6kT -p "$P2" ref30.txt > r2d.out
le canonical-2d-discretisation "$(rmsd_of r2d.out)" 0.04
le canonical-2d-statistical "$(rmsd_of r2x.out)" "$(awk -v s=$S2 'BEGIN { print 2.5 * s }')"
le canonical-2d-rmsd-0.1 "$(rmsd_of r2c.out)" 0.1
le canonical-2d-sigma-sane "$S2" 0.08
# the marginal over y of a separable PMF is the 1-D PMF (same 30 bins)
t marginal-2d 0 "sample-gen -p '$P2' -r -180:180:p -r -180:180:p -w windows.txt -n 5000 -t 300 -s 1 | histogram -b 30 -b 30 | bias-build | wham-gpu | pmf -m 1 > m1.txt"
refgen 30 1 > ref30-1d.txt
t marginal-2d-rmsd 0 'rmsd -c 6kT -f ref30-1d.txt m1.txt > rm.out'
le marginal-2d-statistical "$(rmsd_of rm.out)" "$(awk -v s=$S2 'BEGIN { print 2.5 * s }')"

# ---- GNU parallel fan-out: shards concatenate to the single run ---------------------------
if have parallel && parallel --will-cite echo ::: x > /dev/null 2>&1; then
	W7=$(seq 1 7)
	t_pipe parallel-samples 0 "parallel --will-cite -q -k sample-gen -p '$P' -r -180:180:p -g 7 -k 0.001 -n 1000 -T -j {} ::: $(echo $W7) > par.txt"
	sample-gen -p "$P" -r -180:180:p -g 7 -k 0.001 -n 1000 -T > one.txt
	grep -v '^#PROV' par.txt > par.np
	grep -v '^#PROV' one.txt > one.np
	same_file parallel-samples-equal one.np par.np
	t_pipe parallel-pipeline 0 "parallel --will-cite -q -k sample-gen -p '$P' -r -180:180:p -g 7 -k 0.001 -n 1000 -j {} ::: $(echo $W7) | histogram -b 20 | bias-build | wham-gpu -T > par-w.txt"
	t_pipe single-pipeline 0 "sample-gen -p '$P' -r -180:180:p -g 7 -k 0.001 -n 1000 | histogram -b 20 | bias-build | wham-gpu -T > one-w.txt"
	numcmp_files parallel-pipeline-equal one-w.txt par-w.txt 0 0
	# sharded further down the pipeline: histograms and biases per window
	t_pipe parallel-shards 0 "parallel --will-cite -k \"sample-gen -p '$P' -r -180:180:p -g 7 -k 0.001 -n 1000 -j {} | histogram -b 20 | bias-build\" ::: $(echo $W7) | wham-gpu -T > par-s.txt"
	numcmp_files parallel-shards-equal one-w.txt par-s.txt 0 0
else
	skip parallel-samples "GNU parallel not installed or not runnable"
fi
