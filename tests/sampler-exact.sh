# tests/sampler-exact.sh: sample-gen's exact samples (lib/wham/sample.c; with
# SAMPLER_DEV=gpu, kernels/wham/sample.cu, see tests/gpu-sampler-exact.sh), window
# by window, against the density they must follow (Potgieter 2014, Eq. 5.1):
# p_h(x) ~ exp(-(W(x) + V_h(x))/kT) on the domain, V_h = 1/2 k (x - c_h)^2,
# integrated by Simpson's rule on a fine grid.  Per window: the mean and
# the variance within 5 standard errors of the exact moments (the variance's
# error from the exact fourth central moment), a chi-square on 100 bins of
# equal exact probability, and the Kolmogorov-Smirnov distance at those bins'
# edges (sqrt(n) D <= 2.6, P < 3e-6 for an exact sampler); over all the
# windows, the summed mean and variance z-scores within 5 sqrt(H).
#
# The case is bench-wham's 1-D peer case (W = 20((x-5)^2/6.25-1)^2 kJ/mol on
# [0, 10] nm, k = 1000 kJ/mol/nm^2, 300 K), at its steepest windows
# (|W'| up to 190 kJ/mol/nm near the domain edges, 80 at x = 1 and 9), its
# minimum and barrier top; and a linear PMF whose windows sit on the domain's
# edges, where the window's density is cut off by the domain (the sampler
# must neither reflect nor pile up samples there).  Detector checks: the same
# samples are rejected against a slightly wrong density (4% hotter, W 2%
# steeper, the peak clipped at 80%, reflected at the edge).
. "$(dirname "$0")/lib.sh"

DEV=${SAMPLER_DEV:-cpu}
if [ "$DEV" = gpu ]; then
	export FEK_CACHE_DIR=$TMP/cache
fi
KBJ=0.00831446261815324		# kJ/mol/K
N=50000		# samples per window
NQ=100		# equal-probability bins per window

# ref LO HI T WSCALE MODE "C..." WFN: per window (one line each, in the
# order of C) "c mean variance mu4 e_1 ... e_{NQ-1}" of the density
# exp(-(WSCALE W(x) + K/2 (x-c)^2)/kT) on [LO, HI], by Simpson's rule on
# 20000 intervals; e_j: where the exact CDF reaches j/NQ.  MODE exact; for
# the detector checks, the densities of flawed samplers: reflect, the
# density plus its mirror image at LO (a sampler that reflects at the lower
# edge); clip, the density cut off at 80% of its maximum (an envelope below
# the peak, as the thesis's guessed P_max).
ref() {
	awk -v lo="$1" -v hi="$2" -v T="$3" -v ws="$4" -v mode="$5" -v Cs="$6" \
	    -v k="$K" -v kb=$KBJ -v nq=$NQ "$7"'
	function lnf(x, c) { return -(ws * W(x) + 0.5 * k * (x - c) ^ 2) / kt }
	BEGIN {
		kt = kb * T; G = 20000; dx = (hi - lo) / G
		nc = split(Cs, C, " ")
		for (h = 1; h <= nc; h++) {
			c = C[h]; top = -1e300
			for (i = 0; i <= G; i++) {
				xg[i] = lo + i * dx; l[i] = lnf(xg[i], c)
				if (mode == "reflect") { r = lnf(2 * lo - xg[i], c); if (r > l[i]) { t = l[i]; l[i] = r; r = t }
					if (r - l[i] > -700) l[i] += log(1 + exp(r - l[i])) }
				if (l[i] > top) top = l[i]
			}
			z = m1 = 0
			for (i = 0; i <= G; i++) {
				f[i] = l[i] - top > -700 ? exp(l[i] - top) : 0
				if (mode == "clip" && f[i] > 0.8) f[i] = 0.8
				w = (i == 0 || i == G) ? 1 : (i % 2 ? 4 : 2)
				z += w * f[i]; m1 += w * f[i] * xg[i]
			}
			mu = m1 / z; m2 = m4 = 0
			for (i = 0; i <= G; i++) {
				w = (i == 0 || i == G) ? 1 : (i % 2 ? 4 : 2)
				d = xg[i] - mu; m2 += w * f[i] * d * d; m4 += w * f[i] * d ^ 4
			}
			# the CDF by Simpson over pairs of intervals, linear
			# between them; the quantiles by inverse interpolation
			cum[0] = 0
			for (i = 2; i <= G; i += 2)
				cum[i] = cum[i - 2] + (f[i - 2] + 4 * f[i - 1] + f[i]) / z
			line = sprintf("%.17g %.17g %.17g %.17g", c, mu, m2 / z, m4 / z)
			i = 2
			for (j = 1; j < nq; j++) {
				q = j / nq
				while (i < G && cum[i] < q) i += 2
				line = line sprintf(" %.17g", xg[i - 2] + 2 * dx * (q - cum[i - 2]) / (cum[i] - cum[i - 2]))
			}
			print line
		}
	}'
}

# stats REF SAMPLES [moments]: per window "q n zmean zvar chi2 dof ksd"
# (q = 1, 2, ...: the window's place in REF and SAMPLES)
# ksd = sqrt(n) times the largest |F_n - F| at the bin edges; with
# "moments", chi2 and ksd are 0: no binning.  The windows of SAMPLES (a
# text stream, a section per window) in the order of REF; a window without
# samples gets n = 0 and z-scores of 1e9.
stats() {
	awk -v nq=$NQ -v bins="${3:-bins}" '
	FNR == NR { nr++; mu[nr] = $2; v[nr] = $3; m4[nr] = $4
		for (j = 1; j < nq; j++) e[nr * nq + j] = $(4 + j); next }
	/^#FEK/ { h++; base = h * nq; next }
	/^#/ || !NF { next }
	{ x = $1; d = x - mu[h]; n[h]++; s1[h] += d; s2[h] += d * d
		if (bins == "moments") next
		a = 0; b = nq		# the bin: e[a] <= x < e[b], e[0] = -inf
		while (b - a > 1) { m = int((a + b) / 2); if (x < e[base + m]) b = m; else a = m }
		o[base + a]++ }
	END {
		for (q = 1; q <= nr; q++) {
			if (n[q] < 2) { printf "%d %d 1e9 1e9 1e9 %d 1e9\n", q, n[q], nq - 1; continue }
			mean = s1[q] / n[q]
			var = (s2[q] - n[q] * mean * mean) / (n[q] - 1)
			zm = mean / sqrt(v[q] / n[q])
			zv = (var - v[q]) / sqrt((m4[q] - v[q] * v[q]) / n[q])
			ex = n[q] / nq; chi = cum = ks = 0
			for (j = 0; bins != "moments" && j < nq; j++) {
				chi += (o[q * nq + j] - ex) ^ 2 / ex
				cum += o[q * nq + j]
				dd = cum / n[q] - (j + 1) / nq; if (dd < 0) dd = -dd
				if (dd > ks) ks = dd
			}
			printf "%d %d %.6f %.6f %.6f %d %.6f\n", q, n[q], zm, zv, chi, nq - 1, ks * sqrt(n[q])
		}
	}' "$1" "$2"
}

# check NAME STATS H: H windows, each within the tolerances, and the sums.
check() {
	local name=$1 q n zm zv chi dof ks fails=0 why=
	ok "$name-$3-windows" test "$(awk 'END { print NR }' "$2")" -eq "$3"
	while read -r q n zm zv chi dof ks; do
		if ! awk -v n="$n" -v N=$N -v zm="$zm" -v zv="$zv" -v chi="$chi" -v dof="$dof" -v ks="$ks" 'BEGIN {
			a = zm < 0 ? -zm : zm; b = zv < 0 ? -zv : zv
			exit !(n == N && a <= 5 && b <= 5 && chi <= dof + 5 * sqrt(2 * dof) && ks <= 2.6) }'; then
			fails=$((fails + 1))
			why="$why window $q: z(mean) $zm z(var) $zv chi2 $chi/$dof ks $ks;"
		fi
	done < "$2"
	if [ "$fails" = 0 ]; then pass "$name-windows"; else fail "$name-windows" "$why"; fi
	le "$name-sum-zmean" "$(awk '{ s += $3; h++ } END { s /= sqrt(h); print s < 0 ? -s : s }' "$2")" 5
	le "$name-sum-zvar" "$(awk '{ s += $4; h++ } END { s /= sqrt(h); print s < 0 ? -s : s }' "$2")" 5
}

# rejected NAME STATS: a wrong reference must fail somewhere, by far: a
# window's |z| or chi-square or ks at twice its tolerance, or a sum's.
rejected() {
	ok "$1" awk -v N=$N '
	{ a = $3 < 0 ? -$3 : $3; b = $4 < 0 ? -$4 : $4; sm += $3; sv += $4; h++
		if (a > 10 || b > 10 || $5 > 2 * ($6 + 5 * sqrt(2 * $6)) || $7 > 5.2) bad = 1 }
	END { sm /= sqrt(h); sv /= sqrt(h); if (sm < 0) sm = -sm; if (sv < 0) sv = -sv
		exit !(bad || sm > 10 || sv > 10) }' "$2"
}

# ---- the steep 1-D case --------------------------------------------------------
F1='20*((x-5)^2/6.25-1)^2'
W1='function W(x) { return 20 * ((x - 5) ^ 2 / 6.25 - 1) ^ 2 }'
C1='0.05 0.55 0.95 1.05 1.35 2.55 5.05 8.65 9.05 9.95'
K=1000
printf '%s 1000\n' $C1 > w1.txt
t steep-run 0 "sample-gen -d $DEV -q -p '$F1' -E kJ -u nm -r 0:10 -t 300 -w w1.txt -n $N -s 7 -T > s1.txt"
ref 0 10 300 1 exact "$C1" "$W1" > r1.ref
stats r1.ref s1.txt > s1.stats
check steep s1.stats 10
# detector checks: the same samples against slightly wrong densities
ref 0 10 312 1 exact "$C1" "$W1" > r1hot.ref
stats r1hot.ref s1.txt moments > s1hot.stats
rejected steep-detects-4pc-hotter s1hot.stats
ref 0 10 300 1.02 exact "$C1" "$W1" > r1w.ref
stats r1w.ref s1.txt moments > s1w.stats
rejected steep-detects-2pc-steeper-pmf s1w.stats
ref 0 10 300 1 clip "$C1" "$W1" > r1clip.ref
stats r1clip.ref s1.txt > s1clip.stats
rejected steep-detects-clipped-peak s1clip.stats

# ---- windows on the domain's edges ----------------------------------------------
# W = 5x kJ/mol on [0, 1] nm: the windows at 0 and 1 are cut in half by the
# domain, the one at 0.02 partly.
F2='5*x'
W2='function W(x) { return 5 * x }'
C2='0 0.02 1'
printf '%s 1000\n' $C2 > w2.txt
t edge-run 0 "sample-gen -d $DEV -q -p '$F2' -E kJ -u nm -r 0:1 -t 300 -w w2.txt -n $N -s 8 -T > s2.txt"
ref 0 1 300 1 exact "$C2" "$W2" > r2.ref
stats r2.ref s2.txt > s2.stats
check edge s2.stats 3
ok edge-inside-domain awk '!/^#/ && NF && !($1 >= 0 && $1 <= 1) { exit 1 }' s2.txt
ref 0 1 300 1 reflect "$C2" "$W2" > r2refl.ref
stats r2refl.ref s2.txt > s2refl.stats
rejected edge-detects-reflection s2refl.stats
