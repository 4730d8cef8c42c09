# tests/wham.sh: wham-gpu (tools/wham-gpu.c, lib/wham/wham.c) on data whose
# WHAM solution is known exactly: one window (p_b ~ n_b / c_hb), and
# synthetic real-valued counts n_hb = N_h f_h c_hb p_b built from a chosen
# p, which are the fixed point of Eqs. 3.1-3.2 (Potgieter 2014); the
# log-space path for factors beyond e^600; overlap, convergence, device
# and input errors.
. "$(dirname "$0")/lib.sh"

KB=0.0019872042586408316	# kcal/mol/K

section() {	# section N FILE: data rows of the N-th section of a text stream
	awk -v n="$1" '/^#FEK/ { s++ } s == n && !/^#/ && NF' "$2"
}

# ---- (a) one window: p_b = n_b / c_b, normalised ----------------------------
# open axis [0,10], 10 bins, window c = 4.2, k = 0.3 kcal/mol/unit^2, 300 K;
# bins 0 and 9 empty.
cat > one.txt <<'EOF'
#FEK 1
#KIND histogram
#ROWS 8
#COL bin i64 1
#COL count f64 1
#AXIS x 0 10 open 1
#BINS 10
#WINDOW 4.2000000000000002 0.29999999999999999
#TEMP 300
#ENERGY kcal/mol
#END
1 3
2 10
3 25
4 40
5 30
6 12
7 4
8 1
EOF
awk -v kb=$KB 'BEGIN { kt = kb * 300 }
	!/^#/ { n[$1] = $2 }
	END {
		for (b = 0; b < 10; b++) if (b in n) {
			x = (b + 0.5); l[b] = log(n[b]) + 0.5 * 0.3 * (x - 4.2) ^ 2 / kt
			if (!(top > l[b])) top = l[b]
		}
		for (b in l) s += exp(l[b] - top)
		for (b = 0; b < 10; b++)
			if (b in l) printf "%.17g\n", l[b] - top - log(s); else print "-inf"
	}' one.txt > one.want
t one-run 0 'bias-build -c < one.txt | wham-gpu -T > one.out'
section 1 one.out > one.lnp
numcmp_files one-lnp one.want one.lnp 1e-9 1e-12
printf '4.2 0.3 0 125\n' > one-wf.want
section 2 one.out > one-wf
numcmp_files one-winfree one-wf.want one-wf 0 1e-12
ok one-normalised awk '{ if ($1 != "-inf") s += exp($1) } END { d = s - 1; exit !(d < 1e-12 && d > -1e-12) }' one.lnp
ok one-winfree-columns sh -c "grep -q '^#COL c_x f64 1' one.out && grep -q '^#COL k_x f64' one.out && grep -q '^#COL F f64 kT' one.out && grep -q '^#COL n f64 1' one.out"
# WINDOW is a pair of numbers: '4.2 0.3' is the same window as the %.17g
# spelling bias-build writes into its logbias section
sed 's/^#WINDOW .*/#WINDOW 4.2 0.3/' one.txt > one-short.txt
t one-window-short-spelling 0 'bias-build -c < one-short.txt | wham-gpu -T > one-short.out'
ok one-keys sh -c "grep -qx '#KIND prob' one.out && grep -qx '#WINDOWS 1' one.out && grep -qx '#TEMP 300' one.out"

# ---- (b) exact synthetic data: n_hb = N_h f_h c_hb p_b -----------------------
# gen1d: see tests/gen-wham1d.
gen1d() {
	"$TOP/tests/gen-wham1d" "$@"
}
THESIS='function lp0(x, kt) { return -(0.6 * (1 + cos(x * 3.141592653589793 / 180)) + 1.4 * (1 + cos(3 * x * 3.141592653589793 / 180))) / kt }'
gen1d 24 -180 180 1 300 '-180 -90 0 90' '0.002 0.001 0.003 0.0015' '1000 2000 1500 3000' 5 ex1. "$THESIS" > ex1.txt
t exact-1d-run 0 'bias-build -c < ex1.txt | wham-gpu --tol 1e-12 -T > ex1.out'
section 1 ex1.out > ex1.lnp
section 2 ex1.out > ex1.F
numcmp_files exact-1d-lnp ex1.lnp.want ex1.lnp 0 1e-8
numcmp_files exact-1d-F ex1.F.want ex1.F 0 1e-8
ok exact-1d-empty-bin test "$(sed -n 6p ex1.lnp)" = -inf

# the same in kJ/mol (springs and temperature in kJ): identical kT answers
sed 's/^#ENERGY kcal\/mol$/#ENERGY kJ\/mol/' ex1.txt |
    awk '/^#WINDOW/ { printf "#WINDOW %s %.17g\n", $2, $3 * 4.184; next } { print }' > ex1kj.txt
t exact-1d-kj-run 0 'bias-build -c < ex1kj.txt | wham-gpu --tol 1e-12 -T > ex1kj.out'
section 1 ex1kj.out > ex1kj.lnp
numcmp_files exact-1d-kj-lnp ex1.lnp.want ex1kj.lnp 0 1e-6

# 2-D, a non-separable PMF: the factorised-bias path with R > 1
awk -v kb=$KB '
function lse(a, n,   i, t, s) { t = -1e308; for (i = 0; i < n; i++) if (a[i] > t) t = a[i]
	s = 0; for (i = 0; i < n; i++) if (a[i] - t > -700) s += exp(a[i] - t); return t + log(s) }
function W(x, y) { return cos(x * 3.141592653589793 / 180) + 0.3 * (y - 2) ^ 2 + 0.2 * sin(x * 3.141592653589793 / 180) * y }
BEGIN {
	kt = kb * 300; n1 = 8; n2 = 6
	split("-120 0 120 -120 0 120", CX, " "); split("1 1 1 4 4 4", CY, " ")
	split("0.0005 0.0007 0.0005 0.0006 0.0005 0.0009", KX, " "); split("0.4 0.3 0.5 0.4 0.6 0.4", KY, " ")
	split("500 800 1200 700 900 1000", N, " "); H = 6
	for (i = 0; i < n1; i++) x[i] = -180 + (i + 0.5) * 45
	for (j = 0; j < n2; j++) y[j] = (j + 0.5) * 5 / 6
	for (i = 0; i < n1; i++) for (j = 0; j < n2; j++) q[i * n2 + j] = -W(x[i], y[j]) / kt
	z = lse(q, n1 * n2)
	for (b = 0; b < n1 * n2; b++) { lp[b] = q[b] - z; printf "%.17g\n", lp[b] > "ex2.lnp.want" }
	for (h = 1; h <= H; h++) {
		for (i = 0; i < n1; i++) for (j = 0; j < n2; j++) {
			d = x[i] - CX[h]; r = d / 360; d -= 360 * (r >= 0 ? int(r + 0.5) : -int(-r + 0.5))
			e = y[j] - CY[h]
			lc[i * n2 + j] = -0.5 * (KX[h] * d * d + KY[h] * e * e) / kt
			s[i * n2 + j] = lc[i * n2 + j] + lp[i * n2 + j]
		}
		lnf[h] = -lse(s, n1 * n2)
		printf "#FEK 1\n#KIND histogram\n#ROWS %d\n#COL bin i64 1\n#COL count f64 1\n", n1 * n2
		printf "#AXIS x -180 180 periodic deg\n#AXIS y 0 5 open nm\n#BINS 8 6\n"
		printf "#WINDOW %.17g %.17g %.17g %.17g\n#TEMP 300\n#ENERGY kcal/mol\n#END\n", CX[h], CY[h], KX[h], KY[h]
		for (b = 0; b < n1 * n2; b++) printf "%d %.17g\n", b, N[h] * exp(lnf[h] + s[b])
		printf "%s %s %s %s %.17g %s\n", CX[h], CY[h], KX[h], KY[h], lnf[h] - lnf[1], N[h] > "ex2.F.want"
	}
}' > ex2.txt
t exact-2d-run 0 'bias-build -c < ex2.txt | wham-gpu --tol 1e-12 -T > ex2.out'
section 1 ex2.out > ex2.lnp
section 2 ex2.out > ex2.F
numcmp_files exact-2d-lnp ex2.lnp.want ex2.lnp 0 1e-8
numcmp_files exact-2d-F ex2.F.want ex2.F 0 1e-8
ok exact-2d-winfree-columns sh -c "grep -q '^#COL c_y f64 nm' ex2.out && grep -q '^#COL k_y f64' ex2.out"

# ---- (f) factors beyond e^600: the log-space path ---------------------------------
# T = 1 K, open [0,20], 20 bins, a window on every bin centre with
# k/2 = 5 kT per unit^2 (ln c down to -1805), and ln p = -50 x (p spans
# e^950, so window weights do too).  Counts below e^-650 of a window are
# left out: they change the answer by less than e^-600.
KSTIFF=$(awk -v kb=$KB 'BEGIN { printf "%.17g", 10 * kb * 1 }')
CS=$(awk 'BEGIN { for (i = 0; i < 20; i++) printf "%s%g", i ? " " : "", i + 0.5 }')
KS=$(awk -v k=$KSTIFF 'BEGIN { for (i = 0; i < 20; i++) printf "%s%s", i ? " " : "", k }')
NS=$(awk 'BEGIN { for (i = 0; i < 20; i++) printf "%s%d", i ? " " : "", 1000 + 37 * i }')
gen1d 20 0 20 0 1 "$CS" "$KS" "$NS" -1 ex3. 'function lp0(x, kt) { return -50 * x }' > ex3.txt
t logspace-run 0 'bias-build -c < ex3.txt | wham-gpu -v --tol 1e-12 -T > ex3.out'
section 1 ex3.out > ex3.lnp
section 2 ex3.out > ex3.F
ok logspace-finite awk '{ for (i = 1; i <= NF; i++) if ($i ~ /nan|inf/) exit 1 }' ex3.lnp ex3.F
numcmp_files logspace-lnp ex3.lnp.want ex3.lnp 1e-10 1e-8
numcmp_files logspace-F ex3.F.want ex3.F 1e-10 1e-8
ok logspace-path-used grep -q 'log space' logspace-run.err
ok logspace-span awk '{ if (NR == 1) a = $3; b = $3 } END { exit !(a - b > 600 || b - a > 600) }' ex3.F

# ---- (b') sampled data: WHAM recovers the PMF that generated it -------------------
# (statistical; the pipeline tests hold the tight version)
P='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
sample-gen -p "$P" -r -180:180:p -g 7 -k 0.001 -n 2000 -s 9 | histogram -b 20 |
    bias-build > th.bin
t sampled-run 0 'wham-gpu -T < th.bin > th.out'
ok sampled-normalised awk '/^#FEK/ { s++ } s == 1 && !/^#/ { if ($1 != "-inf") t += exp($1) } END { d = t - 1; exit !(d < 1e-12 && d > -1e-12) }' th.out
ok sampled-F1-zero awk '/^#FEK/ { s++ } s == 2 && !/^#/ { exit !($3 == 0) }' th.out

# ---- (c) windows that do not overlap --------------------------------------------------
hsec() {	# hsec CENTRE "bin count..." : a 1-D histogram on [0,10], 10 bins
	local rows
	rows=$(echo "$2" | tr ',' '\n')
	printf '#FEK 1\n#KIND histogram\n#ROWS %d\n#COL bin i64 1\n#COL count f64 1\n' "$(echo "$rows" | wc -l)"
	printf '#AXIS x 0 10 open 1\n#BINS 10\n#WINDOW %s 1\n#TEMP 300\n#ENERGY kcal/mol\n#END\n%s\n' "$1" "$rows"
}
{ hsec 1 '0 5,1 9,2 3'; hsec 7 '6 4,7 8,8 2'; } > apart.txt
t overlap-none 1 'bias-build < apart.txt | wham-gpu'
ok overlap-none-msg grep -q 'windows 1 (centre 1) and 2 (centre 7)' overlap-none.err
# 1-2 and 2-3 share bins, 1-3 do not: connected through window 2
{ hsec 1 '0 5,1 9,2 3'; hsec 3 '2 4,3 8,4 2'; hsec 5 '4 1,5 6,6 2'; } > chain.txt
t overlap-chain 0 'bias-build < chain.txt | wham-gpu > /dev/null'
{ hsec 1 '0 5,1 9,2 3'; hsec 3 '2 4,3 8,4 2'; hsec 8 '7 1,8 6,9 2'; } > island.txt
t overlap-island 1 'bias-build < island.txt | wham-gpu'
ok overlap-island-msg grep -q 'and 3 (centre 8)' overlap-island.err
# from samples: stiff springs far apart
printf '%s\n' '-90 1' '90 1' > stiff.txt
sample-gen -p '0*x' -r -180:180:p -w stiff.txt -n 500 | histogram -b 36 | bias-build > stiff.bin
t overlap-stiff 1 'wham-gpu < stiff.bin'
ok overlap-stiff-msg grep -q 'windows 1 (centre -90) and 2 (centre 90)' overlap-stiff.err

# ---- (d) no convergence ------------------------------------------------------------------
t maxiter-2 1 'wham-gpu --maxiter 2 < th.bin'
ok maxiter-2-msg grep -q 'no convergence after 2 iterations' maxiter-2.err
t maxiter-enough 0 'wham-gpu --maxiter 100000 < th.bin > /dev/null'

# ---- (e) devices -----------------------------------------------------------------------------
t device-gpu 69 'wham-gpu -d gpu < th.bin'
t device-cpu 0 'wham-gpu -d cpu -T < th.bin > cpu.out'
t device-auto 0 'wham-gpu -d auto -T < th.bin > auto.out'
numcmp_files device-auto-is-cpu cpu.out auto.out 0 0
t device-env-gpu 69 'FEK_DEVICE=gpu wham-gpu < th.bin'
t device-env-cpu 0 'FEK_DEVICE=cpu wham-gpu < th.bin > /dev/null'
t_usage device-env-bad 'FEK_DEVICE=tpu wham-gpu < th.bin'
t_usage device-bad 'wham-gpu -d tpu < th.bin'

# ---- (g) bad input ---------------------------------------------------------------------------
# Histograms without logbias sections: wham-gpu builds the bias from
# WINDOW as bias-build does (-c at the bin centres, -a bin averages), so the
# results agree with the bias-build pipe to the last bit.
sample-gen -p "$P" -r -180:180:p -g 12 -k 0.002 -n 500 | histogram -b 20 > nobias.bin
for how in c a; do
	bias-build -$how < nobias.bin | wham-gpu -T | grep -v '^#' > bb-$how.txt
	wham-gpu -$how -T < nobias.bin > own-$how.out
	grep -v '^#' own-$how.out > own-$how.txt
	ok input-no-logbias-$how cmp -s bb-$how.txt own-$how.txt
done
ok input-no-logbias-key grep -qx '#BIASEVAL average' own-a.out
ok input-no-logbias-differs sh -c '! cmp -s own-c.txt own-a.txt'
# i32 histograms are read whole and checked window-parallel afterwards:
# the first bad row in input order is still the one named (not the
# negative count of section 5)
sample-gen -p "$P" -r -180:180:p -g 12 -k 0.002 -n 500 | histogram -T -b 20 > nobias.txt
awk '/^#FEK/ { s++ } !/^#/ { r++ } /^#END/ { r = 0 }
    s == 2 && !/^#/ && r == 3 { $1 = 99999 }
    s == 5 && !/^#/ && r == 1 { $2 = -4 } { print }' nobias.txt > badbin.txt
t input-packed-bad-bin 65 'wham-gpu < badbin.txt'
ok input-packed-bad-bin-msg grep -q 'section 2: row 3: bin 99999 outside' input-packed-bad-bin.err
sample-gen -p "$P" -r -180:180:p -g 3 -k 0.001 -n 500 -j 1:2 | histogram -b 20 | bias-build > g20.bin
sample-gen -p "$P" -r -180:180:p -g 3 -k 0.001 -n 500 -j 3 | histogram -b 24 | bias-build > g24.bin
t input-grids-differ 65 'cat g20.bin g24.bin | wham-gpu'
ok input-grids-differ-msg grep -q 'section 5: AXIS/BINS differ' input-grids-differ.err
sample-gen -p "$P" -r -180:180:p -g 3 -k 0.001 -n 500 -j 3 | histogram -b -180:180:20 | bias-build > open20.bin
t input-periodicity-differs 65 'cat g20.bin open20.bin | wham-gpu'
sample-gen -p "$P" -r -180:180:p -g 3 -k 0.001 -n 500 -j 3 -t 310 | histogram -b 20 | bias-build > t310.bin
t input-temp-differs 65 'cat g20.bin t310.bin | wham-gpu'
sample-gen -p "$P" -r -180:180:p -g 3 -k 0.001 -n 500 -j 3 -E kJ | histogram -b 20 | bias-build > kj.bin
t input-energy-differs 65 'cat g20.bin kj.bin | wham-gpu'
bias-build -T < g20.bin > g20.txt
awk '/^#KIND logbias/ { l = 1 } l && /^#WINDOW/ { $0 = "#WINDOW 1 2"; l = 0 } { print }' g20.txt > winmis.txt
t input-window-mismatch 65 'wham-gpu < winmis.txt'
awk '/^#FEK/ { s++ } s >= 2' g20.txt > biasfirst.txt
t input-logbias-first 65 'wham-gpu < biasfirst.txt'
awk '/^#KIND logbias/ { l = 1 } l && /^-/ && !done { $0 = "nan"; done = 1 } { print }' g20.txt > nanbias.txt
t input-lnc-nan 65 'wham-gpu < nanbias.txt'
awk '/^#KIND logbias/ { l = 1 } l && /^-/ && !done { $0 = "inf"; done = 1 } { print }' g20.txt > infbias.txt
t input-lnc-plus-inf 65 'wham-gpu < infbias.txt'
awk '/^#KIND logbias/ { l = 1 } l && /^#ROWS/ && !done { $0 = "#ROWS 19"; done = 1; skip = 1 } skip && /^-/ { skip = 0; next } { print }' g20.txt > rows19.txt
t input-lnc-rows 65 'wham-gpu < rows19.txt'
sed 's/^1 9$/1 -9/' apart.txt > negcount.txt
t input-negative-count 65 'bias-build < negcount.txt | wham-gpu'
sed 's/^8 2$/10 2/' apart.txt > binout.txt
t input-bin-outside 65 'bias-build < binout.txt | wham-gpu'
ok input-bin-outside-msg grep -q 'bin 10 outside 0..9' input-bin-outside.err
{ hsec 1 '0 5,1 9,2 3'; hsec 2 '1 0,2 0'; } > zerowin.txt
t input-empty-window 65 'bias-build < zerowin.txt | wham-gpu'
t input-samples 65 "sample-gen -p '$P' -r -180:180:p -g 3 -k 0.001 -n 50 | wham-gpu"
t input-empty 65 'wham-gpu < /dev/null'

# ---- (h) solvers and evaluation paths ------------------------------------------
# Every solver reaches the exact fixed points: ex1 (1-D, windows on a grid:
# per-axis products), ex2 (2-D, windows not on a grid: first axis split),
# ex3 (the log-space sums).
for s in iterate newton lbfgs; do
	for e in ex1 ex2 ex3; do
		t solver-$s-$e 0 "bias-build -c < $e.txt | wham-gpu -v --solver $s --tol 1e-11 -T > $e-$s.out"
		section 1 $e-$s.out > $e-$s.lnp
		section 2 $e-$s.out > $e-$s.F
		numcmp_files solver-$s-$e-lnp $e.lnp.want $e-$s.lnp 1e-10 1e-8
		numcmp_files solver-$s-$e-F $e.F.want $e-$s.F 1e-10 1e-8
		ok solver-$s-$e-key grep -qxE "#SOLVER $s(-lbfgs)?" $e-$s.out
	done
done
# A forced Newton whose Hessian cannot fit (1e5 windows: 160 GB) is refused
# before anything is allocated, with nothing written.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%g 0.001\n", (i % 100) / 100 }' > wbig.txt
sample-gen -q -p '0*x' -r 0:1 -w wbig.txt -n 1 -b 1 -s 1 -P > big.fek
t newton-too-big 64 'wham-gpu -d cpu --solver newton big.fek > big.out'
ok newton-too-big-msg grep -q 'need 160 GB for the Hessian' newton-too-big.err
ok newton-too-big-empty test ! -s big.out
ok path-grid-1d grep -q 'window grid' solver-lbfgs-ex1.err
ok path-general-2d grep -q 'general windows' solver-lbfgs-ex2.err

# Windows on a grid, and the same data with one window's histogram split in
# two half-count sections (same bias, so the same problem, but no longer a
# grid): the two paths agree.
P2='0.3*(1+cos(x*pi/180))+0.7*(1+cos(3*x*pi/180))+0.5*(1+cos(y*pi/180))+0.3*cos((x-y)*pi/180)'
awk 'BEGIN { for (i = 0; i < 6; i++) for (j = 0; j < 5; j++)
    printf "%g %g 0.002 0.003\n", -180 + 60 * i, -180 + 72 * j }' > g2.win
sample-gen -p "$P2" -r -180:180:p -r -180:180:p -w g2.win -n 400 -s 5 -T |
    histogram -T -b 30 -b 24 > g2.hist
split_first_window g2.hist g2a.hist g2b.hist
cat g2a.hist g2b.hist > g2split.hist
bias-build -c < g2.hist | wham-gpu -v -T --solver lbfgs --tol 1e-11 > g2.out 2> g2.err
bias-build -c < g2split.hist | wham-gpu -v -T --solver lbfgs --tol 1e-11 > g2s.out 2> g2s.err
ok path-grid-2d grep -q 'window grid' g2.err
ok path-split-general grep -q 'general windows' g2s.err
section 1 g2.out > g2.lnp
section 1 g2s.out > g2s.lnp
numcmp_files paths-agree-2d g2.lnp g2s.lnp 1e-7 1e-8

# Acceleration: a stiff 1-D problem (81 windows, 400 bins) takes the plain
# iteration hundreds of sweeps; Newton and L-BFGS reach the same answer in
# few iterations.  The plain iteration's small steps hide a larger error
# (the error is about the step over one minus its contraction rate), so it
# is compared after a tighter --tol.
sample-gen -p "$P" -r -180:180:p -g 81 -k 0.02 -n 2000 -s 3 | histogram -b 400 |
    bias-build > stiff81.bin
for s in iterate newton lbfgs; do
	wham-gpu -T --solver $s < stiff81.bin > stiff81-$s.out
	[ $s = iterate ] && wham-gpu -T --solver $s --tol 1e-11 < stiff81.bin |
	    awk '/^#FEK/ { s++ } s == 1 && !/^#/' > stiff81-tight.lnp
	section 1 stiff81-$s.out > stiff81-$s.lnp
	it=$(sed -n 's/^#ITERATIONS //p' stiff81-$s.out)
	eval "it_$s=\$it"
done
le stiff-iterate-is-slow $((200 - it_iterate)) 0
le stiff-newton-iterations "$it_newton" 10
le stiff-lbfgs-iterations "$it_lbfgs" 100
numcmp_files stiff-newton-equals-iterate stiff81-tight.lnp stiff81-newton.lnp 0 1e-6
numcmp_files stiff-lbfgs-equals-iterate stiff81-tight.lnp stiff81-lbfgs.lnp 0 1e-6
t_usage solver-bad 'wham-gpu --solver simplex < stiff81.bin'

# ---- (i) bootstrap --------------------------------------------------------------
t boot-run 0 'wham-gpu -T -B 20 -s 7 < stiff81.bin > boot.out'
ok boot-columns sh -c "grep -q '^#COL sd_lnp f64 1' boot.out && grep -q '^#COL sd_F f64 kT' boot.out && grep -qx '#BOOTSTRAP 20' boot.out"
section 1 boot.out | awk '{ print $1 }' > boot.lnp
numcmp_files boot-lnp-unchanged stiff81-newton.lnp boot.lnp 0 1e-9
ok boot-sd-positive awk '$1 != "-inf" && !($2 > 0 && $2 < 1) { exit 1 }' <(section 1 boot.out)
ok boot-sd-F1-zero awk 'NR == 1 && $5 != 0 { exit 1 }' <(section 2 boot.out)
t boot-repeat 0 'wham-gpu -T -B 20 -s 7 < stiff81.bin > boot2.out'
ok boot-deterministic cmp -s <(grep -v '^#PROV' boot.out) <(grep -v '^#PROV' boot2.out)
t_usage boot-one-trial 'wham-gpu -B 1 < stiff81.bin'

# Bootstrap errors against the spread of 30 independent repeats (seeds 1-30)
# of a 1-D case (40 windows x 1000 samples, 90 bins): the RMS over bins of
# the two standard deviations of ln p agree within 20% (seen: 1.01).
for s in $(seq 1 30); do
	sample-gen -q -p "$P" -r -180:180:p -g 40 -k 0.005 -n 1000 -s $s |
	    histogram -b 90 | bias-build | wham-gpu -T |
	    awk '/^#FEK/ { n++ } n == 1 && !/^#/ { print $1 }' > rep$s.lnp
done
sample-gen -q -p "$P" -r -180:180:p -g 40 -k 0.005 -n 1000 -s 1 | histogram -b 90 |
    bias-build | wham-gpu -T -B 100 -s 9 |
    awk '/^#FEK/ { n++ } n == 1 && !/^#/ { print $2 }' > rep-boot.sd
ratio=$(paste rep*.lnp rep-boot.sd | awk '{ n = NF - 1; m = 0
	for (i = 1; i <= n; i++) m += $i; m /= n; v = 0
	for (i = 1; i <= n; i++) v += ($i - m) ^ 2
	sr += v / (n - 1); sb += $NF ^ 2 } END { printf "%.4f", sqrt(sb / sr) }')
near boot-sd-vs-repeats "$ratio" 1 0.2

# A bin without data gets sd_lnp = +inf, which pmf carries; a trial that
# loses overlap (2 draws a window) stops the run.
{ hsec 1 '0 5,1 9,2 3'; hsec 2 '1 4,2 8,3 3'; } > boot-empty.txt
t boot-empty-bin 0 'bias-build -c < boot-empty.txt | wham-gpu -T -B 4 > boot-empty.out'
ok boot-empty-bin-inf sh -c "awk '/^#FEK/ { n++ } n == 1 && !/^#/' boot-empty.out | grep -q '^-inf inf$'"
t boot-empty-pmf 0 'pmf < boot-empty.out > /dev/null'
sed "s/^#TEMP 300$/#TEMP 300\\n#INEFFICIENCY 17/" boot-empty.txt > boot-ineff.txt
t boot-lost-overlap 1 'bias-build -c < boot-ineff.txt | wham-gpu -B 10'
ok boot-lost-overlap-msg grep -q 'no longer overlap' boot-lost-overlap.err
