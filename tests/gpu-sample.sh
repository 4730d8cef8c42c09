# tests/gpu-sample.sh - make check-gpu: sample-gen -d gpu and histogram -d
# gpu against the densities they must follow and against the CPU reference
# (kernels/wham/sample.cu, kernels/wham/hist.cu).  Skipped unless FEK_TEST_GPU is set.
#
# Statistical checks use fresh seeds (FEK_TEST_SEED fixes them; the seed is
# printed) and a tolerance of 5 standard deviations: chi2 <= dof +
# 5 sqrt(2 dof), means and variances within 5 standard errors.  Exact
# checks: the fused GPU histograms equal the GPU samples binned by
# histogram; histogram -d gpu writes the same bytes as -d cpu; a window's
# GPU samples do not depend on -j; the seed reproduces them.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-sample.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-sample "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
export FEK_CACHE_DIR=$TMP/cache
SEED=${FEK_TEST_SEED:-$(( $(date +%s) % 1000000 ))}
S2=$((SEED + 7919))
echo "gpu-sample: seeds $SEED and $S2 (FEK_TEST_SEED=$SEED repeats them)"
# chi2_two A B: two-sample chi-square of the histogram streams A and B
# (text, the same windows and grid, equal sample counts): per section, bins
# with a + b >= 10 are categories, the rest pooled; "chi2 dof" summed.
chi2_two() {
	awk 'FNR == 1 { f++; s = 0 }
	/^#FEK/ { s++; next } /^#/ || !NF { next }
	{ c[f, s, $1] += $2; key[s, $1] = 1; if (s > ns) ns = s }
	END {
		for (k in key) {
			split(k, p, SUBSEP); a = c[1, p[1], p[2]]; b = c[2, p[1], p[2]]
			if (a + b >= 10) { chi += (a - b) ^ 2 / (a + b); cat[p[1]]++ }
			else { pa[p[1]] += a; pb[p[1]] += b }
		}
		for (q = 1; q <= ns; q++) {
			if (pa[q] + pb[q] > 0) { chi += (pa[q] - pb[q]) ^ 2 / (pa[q] + pb[q]); cat[q]++ }
			dof += cat[q] - 1
		}
		printf "%.6g %d\n", chi, dof
	}' "$1" "$2"
}

# ---- a run on the device, the kernel cache, moments of a Gaussian ---------
sample_gauss gpu-run gpu- gpu $SEED
ok gpu-run-compiles grep -q 'kernel compiled in' gpu-run.err
t gpu-cache 0 "sample-gen -d gpu -v -t 300 -p '0*x' -r -1000:1000 -w w1.txt -n 20000 -s $SEED -T > g1b.txt"
ok gpu-cache-hit grep -q 'kernel read from the cache' gpu-cache.err
same_noprov gpu-cache-same-samples g1.txt g1b.txt
ok gpu-gauss-columns sh -c "grep -qx '#COL x f64 1' g1.txt && grep -qx '#WINDOW 3.5 2' g1.txt && grep -qx '#ROWS 20000' g1.txt"

# ---- exact densities: chi-square against Simpson integrals ----------------
sample_dw gpu- gpu 50000 $SEED
P=$TOR_PMF
sample_seam gpu- gpu 50000 $SEED

# ---- GPU against CPU: two-sample chi-square, fresh seeds -------------------
# vs_cpu N OPTS: sample-gen OPTS (fused histograms) on the GPU (hNg.txt)
# and on the CPU (hNc.txt), other seeds: gpu-Nd-vs-cpu, the two-sample
# chi-square of the two; "chi2 dof" in res
vs_cpu() {
	t gpu-$1d-gpu 0 "sample-gen -d gpu $2 -s $SEED > h$1g.txt"
	t gpu-$1d-cpu 0 "sample-gen -d cpu $2 -s $S2 > h$1c.txt"
	res=$(chi2_two h$1g.txt h$1c.txt)
	echo "gpu-$1d two-sample chi2 dof: $res"
	chi_ok gpu-$1d-vs-cpu "$res"
}
P2='0.3*(1+cos(x*pi/180))+0.7*(1+cos(3*x*pi/180))+0.3*(1+cos(y*pi/180))+0.7*(1+cos(3*y*pi/180))+0.3*cos((x-y)*pi/180)'
vs_cpu 2 "-p '$P2' -r -180:180:p -r -180:180:p -g 5 -k 0.001 -n 20000 -b 36 -b 36 -T"
ok gpu-2d-dof test "${res#* }" -ge 1000
vs_cpu 1 "-p '$P' -r -180:180:p -g 37 -k 0.002 -n 20000 -b 90 -T"
# 3-D, a coupled PMF on open axes (hard walls), 6^3 bins
vs_cpu 3 "-p '(x^2-1)^2+0.5*x*y+0.3*z^2*y' -r -2:2 -r -2:2 -r -1.5:1.5 -g 2 -k 1 -n 30000 -b 6 -T"

# ---- fused on the device: the same bins as its samples through histogram ------
G2s="-p '$P2' -r -180:180:p -r -180:180:p -g 4 -k 0.001 -n 30000 -s $SEED"
t gpu-fused-run 0 "sample-gen -d gpu $G2s -b 90 -b 90 -v -T > fz.txt"
ok gpu-fused-in-shared grep -q 'shared memory' gpu-fused-run.err
t_pipe gpu-fused-pipe 0 "sample-gen -d gpu $G2s | histogram -d cpu -b 90 -b 90 -T > pz.txt"
same_noprov gpu-fused-equals-pipe fz.txt pz.txt
# a grid too large for shared memory is binned by sorting
t gpu-fused-sort-run 0 "sample-gen -d gpu $G2s -b 400 -b 400 -v -T > fs.txt"
ok gpu-fused-by-sorting grep -q 'binned by sorting' gpu-fused-sort-run.err
t_pipe gpu-fused-sort-pipe 0 "sample-gen -d gpu $G2s | histogram -d cpu -b 400 -b 400 -T > ps.txt"
same_noprov gpu-fused-sort-equals-pipe fs.txt ps.txt
# an open re-ranged axis: dropped samples counted and warned about
t gpu-fused-drop 0 "sample-gen -d gpu $G2s -b -150:150:30 -b 36 -T > fd.txt"
t_pipe gpu-fused-drop-pipe 0 "sample-gen -d gpu $G2s | histogram -d cpu -b -150:150:30 -b 36 -T > pd.txt"
same_noprov gpu-fused-drop-equals-pipe fd.txt pd.txt
ok gpu-fused-drop-warns grep -q 'window 1: [0-9]* of 30000 samples outside' gpu-fused-drop.err

# ---- -j and the seed ------------------------------------------------------
t gpu-j-full 0 "sample-gen -d gpu -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s $SEED -T > jf.txt"
t gpu-j-part 0 "sample-gen -d gpu -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s $SEED -j 2:3 -T > jp.txt"
noprov jf.txt | awk '/^#FEK/ { s++ } s == 2 || s == 3' > jf23.np
noprov jp.txt > jp.np
same_file gpu-j-equals-full-sections jp.np jf23.np
t gpu-seed-again 0 "sample-gen -d gpu -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s $SEED -T > jf2.txt"
same_noprov gpu-seed-same-samples jf.txt jf2.txt
t gpu-seed-other 0 "sample-gen -d gpu -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s $S2 -T > jf3.txt"
noprov jf3.txt > jf3.np
ok gpu-seed-different sh -c '! cmp -s jf.np jf3.np'

# ---- a bound that must be raised: a narrow well between lattice points ------
# W = -5 exp(-((x - 0.01234)/0.0002)^2) on [-1, 1], no spring: the lattice
# sees at most -0.21 of the -5 well, so trial points clip, windows start
# again, and the mass of the well must still come out right.
SP='-5*exp(-((x-0.01234)/0.0002)^2)'
echo '0 0' > wsp.txt
t gpu-spike-gpu 0 "sample-gen -d gpu -v -p '$SP' -r -1:1 -w wsp.txt -n 40000 -s $SEED -T > spg.txt"
ok gpu-spike-restarts grep -Eq ', [1-9][0-9]* restarts?$' gpu-spike-gpu.err
t gpu-spike-cpu 0 "sample-gen -d cpu -p '$SP' -r -1:1 -w wsp.txt -n 40000 -s $S2 -T > spc.txt"
# exact fraction within 0.0006 of the well, by Simpson's rule
exact=$(awk -v kt=$kT 'function f(x,   g) { g = ((x - 0.01234) / 0.0002) ^ 2
	return g > 700 ? 1 : exp(5 * exp(-g) / kt) }
function simpson(a, b, m,   h, s, j) { h = (b - a) / m; s = f(a) + f(b)
	for (j = 1; j < m; j++) s += (j % 2 ? 4 : 2) * f(a + j * h); return s * h / 3 }
BEGIN { c = 0.01234; inw = simpson(c - 0.0006, c + 0.0006, 4000)
	tot = simpson(-1, c - 0.0006, 20000) + inw + simpson(c + 0.0006, 1, 20000)
	printf "%.10g\n", inw / tot }')
for dev in gpu cpu; do
	frac=$(awk '!/^#/ && NF { n++; if ($1 > 0.01174 && $1 < 0.01294) k++ } END { printf "%.10g\n", k / n }' sp${dev:0:1}.txt)
	echo "spike fraction $dev: $frac, exact $exact"
	within gpu-spike-fraction-$dev "$frac" "$exact" "$(awk -v p=$exact 'BEGIN { print sqrt(p * (1 - p) / 40000) }')" 5
done

# ---- errors ------------------------------------------------------------------
sample_refused gpu- gpu
t gpu-corr 69 "sample-gen -d gpu -p 'x^2' -r -2:2 -g 3 -k 10 -c 5 -n 100"
ok gpu-corr-msg grep -q 'no GPU path' gpu-corr.err

# ---- histogram -d gpu writes what -d cpu writes -------------------------------
t gpu-hist-samples 0 "sample-gen -d gpu $G2s > s2.fek"
t gpu-hist-gpu 0 "histogram -d gpu -b 90 -b 60 s2.fek -T > hg.txt"
t gpu-hist-cpu 0 "histogram -d cpu -b 90 -b 60 s2.fek -T > hc.txt"
same_noprov gpu-hist-equals-cpu hg.txt hc.txt
# bin edges, the closed end of an open axis, wrapping, dropped samples, and
# several files whose sections have different grids
samples() {
	local rows
	rows=$(cat)
	printf '#FEK 1\n#KIND samples\n#ROWS %d\n#COL x f64 1\n#AXIS %s\n#WINDOW 5 0.5\n#TEMP 300\n#ENERGY kcal/mol\n#END\n%s\n' \
	    "$(printf '%s\n' "$rows" | grep -c .)" "$1" "$rows"
}
printf '%s\n' 0 1.999 2 5 9.999 10 -0.001 10.001 1e300 -4.9406564584124654e-324 | samples 'x 0 10 open 1' > e1.txt
printf '%s\n' 190 -170 -180 180 -190 179.999 540 -540 359.99999999999994 -1e-300 | samples 'x -180 180 periodic 1' > e2.txt
for b in 5 36 -1:11:3 -5:5:2:p; do
	t "gpu-hist-edges-$b" 0 "histogram -q -d gpu -b $b e1.txt e2.txt e1.txt -T > eg.txt"
	t "gpu-hist-edges-cpu-$b" 0 "histogram -q -d cpu -b $b e1.txt e2.txt e1.txt -T > ec.txt"
	same_noprov "gpu-hist-edges-equal-$b" eg.txt ec.txt
done
printf '%s\n' 1 2 inf 3 | samples 'x 0 10 open 1' > inf.txt
t gpu-hist-nonfinite 65 "histogram -q -d gpu -b 5 e1.txt inf.txt"
t gpu-hist-nonfinite-cpu 65 "histogram -q -d cpu -b 5 e1.txt inf.txt"
same_file gpu-hist-nonfinite-same-message gpu-hist-nonfinite.err gpu-hist-nonfinite-cpu.err
printf '%s\n' 11 12 | samples 'x 0 10 open 1' > out.txt
t gpu-hist-all-outside 65 "histogram -q -d gpu -b 5 e1.txt out.txt e2.txt"
t gpu-hist-all-outside-cpu 65 "histogram -q -d cpu -b 5 e1.txt out.txt e2.txt"
same_file gpu-hist-all-outside-same-message gpu-hist-all-outside.err gpu-hist-all-outside-cpu.err
# a section of more than 2^24 points, binned in pieces and merged, between
# two small ones
t gpu-hist-big-gen 0 "sample-gen -d gpu -p '0*x' -r -1:1 -g 1 -k 0 -n 17000000 -s $SEED > big.fek"
t gpu-hist-big 0 "cat e2.txt big.fek e1.txt | histogram -q -d gpu -b 1000 -T > bg.txt"
t gpu-hist-big-cpu 0 "cat e2.txt big.fek e1.txt | histogram -q -d cpu -b 1000 -T > bc.txt"
same_noprov gpu-hist-big-equals-cpu bg.txt bc.txt
ok gpu-hist-big-count grep -qx '#NSAMPLES 17000000' bg.txt

# sample-gen -d gpu -P: the fused histograms pooled on the device
# (kernels/wham/sample.cu pool_pairs) against the same seed's per-window GPU
# histograms: the same PMF to rounding (WHAM sees only B_b and H_h), the
# window means of the per-window histograms (tests/lib.sh hist_means), the
# overlap groups; and the sort-binned path (a grid too big for shared
# memory), which pools on the host (lib/wham/pool.c).  P3's 120000 bins need
# 24000 samples a window for neighbouring windows to share bins whatever
# the seed (3000 left a pair apart for FEK_TEST_SEED=20261127).
P1="-p '(x-1)^2*(x-3)^2' -r 0:4 -g 41 -k 40 -n 50000 -b 200 -s $SEED -d gpu"
P2="-p 'cos(x)+0.5*cos(y-1)+0.3*cos(x+y)' -r -3.141592653589793:3.141592653589793:p -r -2:2 -g 15 -k 8 -n 8000 -b 60 -b 50 -s $S2 -d gpu"
P3="-p 'cos(x)+0.5*cos(y-1)' -r -3.141592653589793:3.141592653589793:p -r -2:2 -g 5 -k 8 -n 24000 -b 400 -b 300 -s $SEED -d gpu"
i=0
for P in "$P1" "$P2" "$P3"; do
	i=$((i + 1))
	D=$(echo "$P" | awk '{ print gsub(/ -b /, "") }')
	t "gpu-pool-$i-gen" 0 "sample-gen -v $P -P -T > gp$i.txt && sample-gen $P -T > gh$i.txt"
	t "gpu-pool-$i-wham" 0 "wham-gpu -d cpu -T gp$i.txt | grep -v ^#PROV > wgp$i && wham-gpu -d cpu -T gh$i.txt | grep -v ^#PROV > wgh$i"
	numcmp_files "gpu-pool-$i-same-pmf" "wgh$i" "wgp$i" 1e-11 1e-11
	hist_means "gh$i.txt" > "gm$i.exp"; pooled_means "gp$i.txt" "$D" > "gm$i.got"
	numcmp_files "gpu-pool-$i-means" "gm$i.exp" "gm$i.got" 1e-9 1e-9
	ok "gpu-pool-$i-groups" sh -c "awk '/^#KIND windows/ { w = 1 } w && !/^#/ && NF && \$NF != 1 { exit 1 }' gp$i.txt"
done
ok gpu-pool-shared-path grep -q 'shared memory' gpu-pool-1-gen.err
ok gpu-pool-sorted-path grep -q 'binned by sorting' gpu-pool-3-gen.err
printf '2 5000\n2.03 5000\n8 5000\n' > gap.win
T_ALLOW_STDOUT=1 t gpu-pool-gap 0 "sample-gen -p 0 -r 0:10 -w gap.win -n 2000 -b 100 -s $SEED -d gpu -P -T > gpg.txt"
ok gpu-pool-gap-group sh -c "awk '/^#KIND windows/ { w = 1 } w && !/^#/ && NF { g = g \$5 \" \" } END { exit g != \"1 1 3 \" }' gpg.txt"
t gpu-pool-gap-wham 1 "wham-gpu -d gpu gpg.txt"
