# tests/lib-sample.sh - the checks of sample-gen's umbrella samples against
# the densities they must follow, exp(-(W + V)/kT) with V = 1/2 k (x - c)^2,
# written once and run per device: by tests/sample-gen.sh with -d cpu and
# fixed seeds, by tests/gpu-sample.sh with -d gpu, fresh seeds and more
# samples.  Source it after lib.sh; it sources lib-stat.sh.
#
# Each sample_* function runs sample-gen -d DEV in $TMP and judges what it
# wrote.  Its results are named P-prefixed: P is "" in sample-gen.sh and
# "gpu-" in gpu-sample.sh (where a run's name differs between the two, it
# is an argument).
. "$TOP/tests/lib-stat.sh"

KB=0.0019872042586408316	# kcal/mol/K
KBJ=0.00831446261815324		# kJ/mol/K
kT=$(awk -v kb=$KB 'BEGIN { printf "%.17g", kb * 300 }')
# the thesis's butane-like torsion PMF (kcal/mol, degrees)
TOR_PMF='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'

# sample_gauss RUN P DEV SEED: a flat PMF on an open domain, one window at
# 3.5 of spring 2 at 300 K, 20000 exact samples (g1.txt, -v: RUN.err says
# how the sampler ran): a Gaussian of mean 3.5 and variance kT/2; its
# excess kurtosis 0; the samples uncorrelated (lag-1 autocorrelation
# within 5/sqrt(n) of 0, and below 0.05).
sample_gauss() {
	local run=$1 p=$2 dev=$3 seed=$4 n m v kurt r1 V
	echo '3.5 2.0' > w1.txt
	t $run 0 "sample-gen -d $dev -v -p '0*x' -r -1000:1000 -w w1.txt -n 20000 -t 300 -s $seed -T > g1.txt"
	read -r n m v kurt r1 <<EOF
$(moments 1 < g1.txt)
EOF
	V=$(awk -v kt=$kT 'BEGIN { printf "%.17g", kt / 2.0 }')
	near ${p}gauss-count "$n" 20000 0
	within ${p}gauss-mean "$m" 3.5 "$(se_mean $V 20000)" 5
	within ${p}gauss-variance "$v" "$V" "$(se_var $V 20000)" 5
	within ${p}gauss-kurtosis "$kurt" 0 "$(awk 'BEGIN { print sqrt(24 / 20000) }')" 5
	within ${p}gauss-uncorrelated "$r1" 0 "$(awk 'BEGIN { print 1 / sqrt(20000) }')" 5
	le ${p}gauss-lag1-small "$(awk -v r="$r1" 'BEGIN { print (r < 0 ? -r : r) }')" 0.05
}

# sample_dw P DEV N SEED: a double well, a window between the wells on an
# open axis, N samples (dw.txt): chi-square against the density in 40 bins
# (at least 20 degrees of freedom), all inside the domain, and the same
# counts rejected against the wrong density (no bias).
sample_dw() {
	local p=$1 dev=$2 n=$3 seed=$4 res
	local LO=-2 HI=2 NB=40 PERIOD=0 C=0.3 K=1 KT=$kT
	local WFN='function W(x) { return 2 * (x * x - 1) ^ 2 }'
	echo '0.3 1' > wd.txt
	t ${p}dw-run 0 "sample-gen -d $dev -p '2*(x^2-1)^2' -r -2:2 -w wd.txt -n $n -s $seed -T > dw.txt"
	res=$(chi2_1d < dw.txt)
	chi_ok ${p}dw-chi2 "$res"
	ok ${p}dw-chi2-dof test "${res#* }" -ge 20
	ok ${p}dw-inside-domain awk '!/^#/ && NF && !($1 >= -2 && $1 <= 2) { exit 1 }' dw.txt
	chi_rejects ${p}dw-chi2-detects-wrong-density "$(K=0 chi2_1d < dw.txt)"
}

# sample_seam P DEV N SEED: the thesis PMF, a window near the periodic seam
# of -180:180 (minimum image), N samples (seam.txt): chi-square against
# the density in 36 bins, all inside [-180, 180), and the same counts
# rejected against the density without the minimum image.
sample_seam() {
	local p=$1 dev=$2 n=$3 seed=$4
	local LO=-180 HI=180 NB=36 PERIOD=360 C=150 K=0.002 KT=$kT
	local WFN='function W(x) { return 0.6 * (1 + cos(x * 3.141592653589793 / 180)) + 1.4 * (1 + cos(3 * x * 3.141592653589793 / 180)) }'
	echo '150 0.002' > wt.txt
	t ${p}seam-run 0 "sample-gen -d $dev -p '$TOR_PMF' -r -180:180:p -w wt.txt -n $n -s $seed -T > seam.txt"
	chi_ok ${p}seam-chi2 "$(chi2_1d < seam.txt)"
	ok ${p}seam-inside-domain awk '!/^#/ && NF && !($1 >= -180 && $1 < 180) { exit 1 }' seam.txt
	chi_rejects ${p}seam-chi2-detects-no-min-image "$(PERIOD=0 chi2_1d < seam.txt)"
}

# sample_refused P DEV: a PMF that is not finite somewhere in the domain
# (64, with the point named), or not bounded below (exp(-W/kT) not
# integrable; 1), is refused, never sampled.
sample_refused() {
	local p=$1 dev=$2
	t ${p}pmf-not-finite 64 "sample-gen -d $dev -p 'log(x-0.00001)' -r 0:1 -g 2 -k 1 -n 1000"
	ok ${p}pmf-not-finite-msg grep -q 'the PMF is not finite at (0)' ${p}pmf-not-finite.err
	t ${p}pmf-unbounded-below 1 "sample-gen -d $dev -p '1/(x-0.3333)' -r 0:1 -g 2 -k 1 -n 1000"
}
