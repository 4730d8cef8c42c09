# tests/bar-solve.sh: bar-solve (tools/bar-solve.c, lib/bar/bar.c, lib/bar/pert.c,
# lib/core/blocking.c) against an independent peer and against mathematics:
#   (a) pymbar's BAR and EXP (Debian python3-pymbar 3.1.0) on its own
#       Gaussian-work data and on random sets, to 1e-10 relative: live when
#       pymbar is installed, else the values stored in testdata/bar-solve;
#   (b) Gaussian energies u ~ N(m, s^2), beta mu = m - s^2/2: deletions that
#       mirror the insertions about beta mu make OS and BAR exact for any
#       finite sample (NVT and NPT); independent samples agree within the
#       analytic sampling error (sd from closed forms, BAR's by quadrature);
#   (c) the same moves as energies, as Algorithm 1's sums and histograms;
#   (d) blocking reproduces the error of an AR(1) series within 10 %;
#   (e) shards concatenate; traces; units; exit codes; never NaN.
. "$(dirname "$0")/lib.sh"

DATA=$TOP/testdata/bar-solve
KB_KJ=0.00831446261815324

# val FILE METHOD FIELD: field FIELD of METHOD's row of a bar-solve report
val() {
	awk -v m="$2" -v f="$3" '$1 == m { print $f; exit }' "$1"
}

# rel NAME GOT WANT TOL: pass iff |GOT - WANT| <= TOL |WANT| (+1e-300)
rel() {
	if awk -v g="$2" -v e="$3" -v t="$4" 'BEGIN {
		n = "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"
		if (g !~ n || e !~ n) exit 1
		d = g - e; if (d < 0) d = -d; a = e < 0 ? -e : e
		exit !(d <= t * a + 1e-300) }'; then
		pass "$1"
	else
		fail "$1" "got '$2', expected $3 within $4 relative"
	fi
}

# gen: Gaussian insertions and deletions as fek text, kT.
#   K configurations, NI insertions and ND deletions each, u ~ N(m, s^2),
#   deletions N(m - s^2, s^2) (mode=indep) or 2 mu - (each insertion)
#   (mode=reflect, ND = NI), seed.
GEN='function g() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
BEGIN {
	srand(seed); mu = m - s * s / 2
	for (c = 0; c < K; c++) for (i = 0; i < NI; i++) x[c, i] = m + s * g()
	print "#FEK 1\n#KIND insertions\n#ROWS " K * NI "\n#COL config i64\n#COL u f64 kT\n#END"
	for (c = 0; c < K; c++) for (i = 0; i < NI; i++) printf "%d %.17g\n", c, x[c, i]
	print "#FEK 1\n#KIND deletions\n#ROWS " K * ND "\n#COL config i64\n#COL u f64 kT\n#END"
	for (c = 0; c < K; c++) for (i = 0; i < ND; i++)
		printf "%d %.17g\n", c, mode == "reflect" ? 2 * mu - x[c, i] : m - s * s + s * g()
}'

# alg1: the seed's Algorithm 1 in awk: raw moves (kT) -> tpisums (with
# lnD_T) and tpihist (bins of width h from lo, nb of them).
ALG1='function lse(a, b,  m) { if (a == "") return b; m = a > b ? a : b
	return m + log(exp(a - m) + exp(b - m)) }
function f(v) { return v == "" ? "-inf" : sprintf("%.17g", v) }
/^#KIND/ { kind = $2 } /^#/ || NF == 0 { next }
{	c = $1; u = $2; s = kind == "insertions" ? 0 : 1; conf[c]; n[c, s]++
	sg = s ? 1 : -1
	T[c, s] = lse(T[c, s], sg * u); O[c, s] = lse(O[c, s], sg * u / 2)
	b = u < lo ? -1 : int((u - lo) / h); if (b > nb) b = nb
	H[c, b, s]++; B[c, b] }
END {
	if (!nosums) {
		print "#FEK 1\n#KIND tpisums\n#ROWS ?\n#COL config i64\n#COL n_ins i64"
		print "#COL lnI_T f64\n#COL lnI_O f64\n#COL n_del i64\n#COL lnD_O f64\n#COL lnD_T f64\n#END"
		for (c in conf) printf "%d %d %s %s %d %s %s\n", c, n[c, 0], f(T[c, 0]), f(O[c, 0]), n[c, 1], f(O[c, 1]), f(T[c, 1])
	}
	if (!nohist) {
		print "#FEK 1\n#KIND tpihist\n#ROWS ?\n#COL config i64\n#COL bin i64\n#COL n_ins f64\n#COL n_del f64"
		printf "#AXIS u %.17g %.17g open kT\n#BINS %d\n#END\n", lo, lo + nb * h, nb
		for (k in B) { split(k, a, SUBSEP); print a[1], a[2], H[a[1], a[2], 0] + 0, H[a[1], a[2], 1] + 0 }
	}
}'

# ---- (a) pymbar ------------------------------------------------------------
HAVE_PYMBAR=0
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import pymbar' 2>/dev/null; then
	HAVE_PYMBAR=1
fi
# pymbar_live F R: pymbar's "BAR dBAR EXP_F dEXP_F EXP_R dEXP_R" on two files
pymbar_live() {
	/usr/bin/python3 - "$1" "$2" 2>/dev/null <<'EOF'
import sys, numpy as np, pymbar
wF = np.loadtxt(sys.argv[1], ndmin=1); wR = np.loadtxt(sys.argv[2], ndmin=1)
b, db = pymbar.BAR(wF, wR); ef, def_ = pymbar.EXP(wF); er, der = pymbar.EXP(wR)
print("%.17g %.17g %.17g %.17g %.17g %.17g" % (b, db, ef, def_, -er, der))
EOF
}
# check_work NAME F R "BAR dBAR EXP_F dEXP_F EXP_R dEXP_R" TAG
check_work() {
	local name=$1 want=$4 tag=$5
	set -- $want
	rel "$name-$tag-bar" "$(val "$name.out" BAR 2)" "$1" 1e-10
	rel "$name-$tag-bar-sd" "$(val "$name.out" BAR 4)" "$2" 1e-10
	rel "$name-$tag-expf" "$(val "$name.out" EXP_F 2)" "$3" 1e-10
	rel "$name-$tag-expf-sd" "$(val "$name.out" EXP_F 4)" "$4" 1e-10
	rel "$name-$tag-expr" "$(val "$name.out" EXP_R 2)" "$5" 1e-10
	rel "$name-$tag-expr-sd" "$(val "$name.out" EXP_R 4)" "$6" 1e-10
}
while read -r name rest; do
	case $name in '#'*|'') continue ;; esac
	t "work-$name" 0 "bar-solve -n 0 -m fwd,rev,bar -W '$DATA/$name-F.txt' '$DATA/$name-R.txt' > '$name.out'" || continue
	check_work "$name" "$DATA/$name-F.txt" "$DATA/$name-R.txt" "$rest" stored
	if [ $HAVE_PYMBAR = 1 ]; then
		live=$(pymbar_live "$DATA/$name-F.txt" "$DATA/$name-R.txt")
		check_work "$name" "$DATA/$name-F.txt" "$DATA/$name-R.txt" "$live" pymbar
	fi
done < "$DATA/expected.txt"
[ $HAVE_PYMBAR = 1 ] || skip pymbar-live "python3-pymbar not importable by /usr/bin/python3; stored values used"

# fresh random sets, checked against pymbar itself when it is there
for set in "1 0.7 2.5 300 200" "2 -4 1.2 1000 50" "3 250 3 400 600"; do
	set -- $set
	awk -v seed=$1 -v dF=$2 -v s=$3 -v nF=$4 -v nR=$5 'function g() {
		return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
		BEGIN { srand(seed)
		for (i = 0; i < nF; i++) printf "%.17g\n", dF + s * s / 2 + s * g() > "rF'$1'.txt"
		for (i = 0; i < nR; i++) printf "%.17g\n", -dF + s * s / 2 + s * g() > "rR'$1'.txt" }'
	if [ $HAVE_PYMBAR = 1 ]; then
		t "random$1-run" 0 "bar-solve -n 0 -m fwd,rev,bar -W rF$1.txt rR$1.txt > random$1.out" &&
			check_work random$1 rF$1.txt rR$1.txt "$(pymbar_live rF$1.txt rR$1.txt)" pymbar
	fi
done
[ $HAVE_PYMBAR = 1 ] || skip random-pymbar "python3-pymbar not importable: fresh random sets need it"

# work files may be fek streams of one column too
printf '#FEK 1\n#KIND samples\n#ROWS ?\n#COL w f64 kT\n#END\n' > fs.txt
cat "$DATA/pymbar-gaussian-F.txt" >> fs.txt
t work-fek-stream 0 "bar-solve -W fs.txt '$DATA/pymbar-gaussian-R.txt' > fs.out"
rel work-fek-stream-bar "$(val fs.out BAR 2)" 1.0876235208536984 1e-10

# ---- (b) Gaussian energies: closed forms ------------------------------------
# mirrored deletions: sum_i f(x_i - mu) = sum_i f(mu - (2 mu - x_i)) term by
# term, and <e^{-x/2}> / <e^{y/2}> = e^{-mu}: OS and BAR are exactly mu.
awk -v K=100 -v NI=20 -v ND=20 -v m=2 -v s=1.3 -v seed=11 -v mode=reflect "$GEN" > refl.txt
MU=$(awk 'BEGIN { printf "%.17g", 2 - 1.3 * 1.3 / 2 }')
t refl-run 0 "bar-solve -m tpi,del,os,bar refl.txt > refl.out"
near refl-os "$(val refl.out OS 2)" "$MU" 1e-10
near refl-bar "$(val refl.out BAR 2)" "$MU" 1e-10
near refl-beta-C "$(awk '/^# overlap/ { sub(";", "", $4); print $4 }' refl.out)" "$MU" 1e-10
# ... for every subset of configurations too, so their influences cancel
# (the insertion-deletion covariance, through blocking one series): sd = 0
near refl-os-sd-zero "$(val refl.out OS 3)" 0 1e-12
near refl-bar-sd-zero "$(val refl.out BAR 3)" 0 1e-12
# TPI and DEL are the plain averages, here computed by awk
WID=$(awk '/^#KIND/ { k = $2 } /^#/ { next } k == "insertions" { s += exp(-$2); n++ } END { printf "%.17g", -log(s / n) }' refl.txt)
DEL=$(awk '/^#KIND/ { k = $2 } /^#/ { next } k == "deletions" { s += exp($2); n++ } END { printf "%.17g", log(s / n) }' refl.txt)
rel refl-tpi-formula "$(val refl.out TPI 2)" "$WID" 1e-11
rel refl-del-formula "$(val refl.out DEL 2)" "$DEL" 1e-11

# NPT (Eqs. 7-9): the same mirror in x = u - ln(V/<V>), volumes per configuration
awk -v K=100 -v NI=20 -v m=2 -v s=1 -v seed=12 'function g() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
BEGIN {	srand(seed); mu = m - s * s / 2
	for (c = 0; c < K; c++) { V[c] = 1000 * (1 + 0.05 * g()); sv += V[c] }
	for (c = 0; c < K; c++) for (i = 0; i < NI; i++) x[c, i] = m + s * g()
	print "#FEK 1\n#KIND insertions\n#ROWS ?\n#COL config i64\n#COL u f64 kT\n#COL V f64 nm3\n#END"
	for (c = 0; c < K; c++) for (i = 0; i < NI; i++) printf "%d %.17g %.17g\n", c, x[c, i] + log(V[c] * K / sv), V[c]
	print "#FEK 1\n#KIND deletions\n#ROWS ?\n#COL config i64\n#COL u f64 kT\n#COL V f64 nm3\n#END"
	for (c = 0; c < K; c++) for (i = 0; i < NI; i++) printf "%d %.17g %.17g\n", c, 2 * mu - x[c, i] + log(V[c] * K / sv), V[c]
}' > npt.txt
t npt-run 0 "bar-solve -P npt.txt > npt.out"
near npt-os "$(val npt.out OS 2)" 1.5 1e-10
near npt-bar "$(val npt.out BAR 2)" 1.5 1e-10
WIDP=$(awk '/^#KIND/ { k = $2 } /^#/ { next } k == "insertions" { s += $3 * exp(-$2); n++; if (!($1 in v)) { v[$1]; sv += $3; nc++ } } END { printf "%.17g", -log(s / n / (sv / nc)) }' npt.txt)
rel npt-tpi-formula "$(val npt.out TPI 2)" "$WIDP" 1e-11
t nvt-of-npt-data 0 "bar-solve npt.txt > nvt.out"
ok npt-differs-from-nvt awk -v a="$(val npt.out BAR 2)" -v b="$(val nvt.out BAR 2)" 'BEGIN { d = a - b; exit !(d > 1e-6 || d < -1e-6) }'

# independent samples: within 4 sd of the closed form, and the reported
# sd_iid within 10 % of the analytic one: TPI sqrt((e^{s^2} - 1)/n),
# OS sqrt((e^{s^2/4} - 1)(1/n + 1/n)), BAR Bennett's variance by quadrature
# (with equal counts C = beta mu, x - mu ~ N(s^2/2, s^2) on both sides).
awk -v K=1000 -v NI=100 -v ND=100 -v m=2 -v s=1 -v seed=21 -v mode=indep "$GEN" > ind.txt
t ind-run 0 "bar-solve ind.txt > ind.out"
SD_TPI=$(awk 'BEGIN { printf "%.10g", sqrt((exp(1) - 1) / 1e5) }')
SD_OS=$(awk 'BEGIN { printf "%.10g", sqrt((exp(0.25) - 1) * 2 / 1e5) }')
SD_BAR=$(awk 'BEGIN { s = 1; for (z = -12; z <= 12; z += 1e-3) { a = s * s / 2 + s * z
	p = exp(-z * z / 2); f = 1 / (1 + exp(a)); f1 += p * f; f2 += p * f * f; w += p }
	printf "%.10g", sqrt(2 * (f2 * w / (f1 * f1) - 1) / 1e5) }')
for m in TPI:$SD_TPI OS:$SD_OS BAR:$SD_BAR; do
	meth=${m%%:*} sd=${m#*:}
	near "ind-$meth-closed-form" "$(val ind.out $meth 2)" 1.5 "$(awk -v s=$sd 'BEGIN { print 4 * s }')"
	rel "ind-$meth-sd-iid" "$(val ind.out $meth 4)" "$sd" 0.10
	rel "ind-$meth-sd-blocked" "$(val ind.out $meth 3)" "$sd" 0.15
done

# ---- (c) one set of moves, four input forms ---------------------------------
# energies on the centres of 1/8-kT bins, so histograms hold them exactly
awk '/^#/ { print; next } { printf "%d %.17g\n", $1, -50 + (int(($2 + 50) * 8) + 0.5) / 8 }' ind.txt > lat.txt
awk -v lo=-50 -v h=0.125 -v nb=800 "$ALG1" lat.txt > lat-sh.txt
awk -v lo=-50 -v h=0.125 -v nb=800 -v nosums=1 "$ALG1" lat.txt > lat-h.txt
awk -v lo=-50 -v h=0.125 -v nb=800 -v nohist=1 "$ALG1" lat.txt > lat-s.txt
t lat-raw 0 "bar-solve -m tpi,del,os,bar lat.txt > lat.out"
t lat-sums-hist 0 "bar-solve -m tpi,del,os,bar lat-sh.txt > lat-sh.out"
t lat-hist 0 "bar-solve -m tpi,del,os,bar lat-h.txt > lat-h.out"
# sums alone cannot show DEL's coverage (check.c): DEL is refused, exit
# 1, and the estimates that pass are still printed
T_ALLOW_STDOUT=1 t lat-sums 1 "bar-solve -m tpi,del,os lat-s.txt > lat-s.out"
says lat-sums '^bar-solve: DEL: cannot be checked without the insertions and deletions'
ok lat-sums-no-del-row awk '$1 == "DEL" { exit 1 }' lat-s.out
t lat-sums-n0 0 "bar-solve -n 0 -m del lat-s.txt > lat-s0.out"
rel lat-s0-DEL "$(val lat-s0.out DEL 2)" "$(val lat.out DEL 2)" 1e-11
for f in sh h s; do
	for m in TPI DEL OS BAR; do
		[ $f = s ] && { [ $m = BAR ] || [ $m = DEL ]; } && continue
		rel "lat-$f-$m" "$(val lat-$f.out $m 2)" "$(val lat.out $m 2)" 1e-11
		rel "lat-$f-$m-sd" "$(val lat-$f.out $m 3)" "$(val lat.out $m 3)" 1e-9
	done
done
ok lat-sums-no-iid test "$(val lat-s.out TPI 4)" = -
ok lat-sums-neff-note grep -q 'counts configurations' lat-s.out
t lat-sums-no-bar 65 "bar-solve -m bar lat-s.txt"
# continuous energies in 0.05-kT bins: BAR at bin centres is off by O(h^2)
awk -v lo=-50 -v h=0.05 -v nb=2000 -v nosums=1 "$ALG1" ind.txt > h05.txt
t h05-run 0 "bar-solve -m bar h05.txt > h05.out"
near h05-bar-vs-raw "$(val h05.out BAR 2)" "$(val ind.out BAR 2)" 0.0005	# h^2/5

# histogram ranges: insertions above hi count as +inf, deletions below lo as
# -inf (insertions below lo are an error, so none are made here); the
# report gives BAR's shift were they at the edge
awk '/^#KIND/ { k = $2 } /^#/ { print; next } k == "insertions" && $2 < -1 || k == "deletions" && $2 >= 4 { next } { print }' ind.txt |
	awk -v lo=-1 -v h=0.05 -v nb=100 -v nosums=1 "$ALG1" > narrow.txt
t narrow-run 0 "bar-solve -q -m bar narrow.txt > narrow.out"
ok narrow-range-reported grep -q '; range [0-9]' narrow.out

# ---- (d) blocking: the AR(1) series -----------------------------------------
# one insertion per configuration, u_c = -ln(1 + eps y_c), y AR(1) with
# unit innovations: TPI = -ln mean(1 + eps y) is linear in y, so its sd is
# (eps/R) sqrt(g var_y / N), g = (1 + phi)/(1 - phi), var_y = 1/(1 - phi^2).
for phi in 0.5 0.9; do
	awk -v N=1048576 -v phi=$phi -v eps=0.01 -v seed=5 'function g() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
	BEGIN { srand(seed); y = g() / sqrt(1 - phi * phi)
		print "#FEK 1\n#KIND insertions\n#ROWS " N "\n#COL config i64\n#COL u f64 kT\n#END"
		for (t = 0; t < N; t++) { printf "%d %.17g\n", t, -log(1 + eps * y); s += 1 + eps * y; y = phi * y + g() }
		printf "%.10g\n", eps / (s / N) * sqrt((1 + phi) / (1 - phi) / (1 - phi * phi) / N) > "ar1.want" }' > ar1.txt
	t ar1-$phi-run 0 "bar-solve -v ar1.txt > ar1-$phi.out 2> ar1-$phi.err"
	rel ar1-$phi-sd "$(val ar1-$phi.out TPI 3)" "$(cat ar1.want)" 0.10
	ok ar1-$phi-curve grep -q '^bar-solve: TPI: blocking over 1048576' ar1-$phi.err
	ok ar1-$phi-starred grep -q '\*$' ar1-$phi.err
done
# with phi = 0.9 the independent-sample sd is far too small (1/sqrt(19))
ok ar1-iid-too-small awk -v a="$(val ar1-0.9.out TPI 4)" -v b="$(val ar1-0.9.out TPI 3)" 'BEGIN { exit !(a < 0.4 * b) }'

# ---- (e) shards --------------------------------------------------------------
# four shards of the configurations, concatenated out of order: the same
# report, byte for byte (configurations are sorted by id)
for k in 0 1 2 3; do
	awk -v k=$k '/^#ROWS/ { print "#ROWS ?"; next } /^#/ || $1 % 4 == k' ind.txt > shard$k.txt
done
t shards-run 0 "cat shard3.txt shard1.txt shard0.txt shard2.txt | bar-solve -c shards.trace > shards.out"
t whole-run 0 "bar-solve -c whole.trace ind.txt > whole.out"
same_file shards-same shards.out whole.out
grep -v '^#PROV' shards.trace > a.trace
grep -v '^#PROV' whole.trace > b.trace
same_file shards-same-trace a.trace b.trace
if have parallel; then
	printf '%s\n' '/^#ROWS/ { print "#ROWS ?"; next } /^#/ || $1 % 4 == k' > shard.awk
	t_pipe shards-parallel 0 "parallel -k awk -v k={} -f shard.awk ind.txt ::: 0 1 2 3 | bar-solve > par.out"
	same_file shards-parallel-same par.out whole.out
else
	skip shards-parallel "GNU parallel not installed"
fi
# one configuration's moves split over two sections (sums add in log space)
awk '/^#KIND/ { k = $2 } /^#/ || k == "insertions" && NR % 2 { print }' lat.txt > half1.txt
awk '/^#KIND/ { k = $2 } /^#/ || k == "deletions" || !(NR % 2) { print }' lat.txt > half2.txt
awk '/^#ROWS/ { print "#ROWS ?"; next } { print }' half1.txt half2.txt > halves.txt
awk -v lo=-50 -v h=0.125 -v nb=800 "$ALG1" half1.txt > h1.txt
awk -v lo=-50 -v h=0.125 -v nb=800 "$ALG1" half2.txt > h2.txt
t split-raw 0 "bar-solve halves.txt > halves.out"
t split-sums 0 "cat h2.txt h1.txt | bar-solve > hs.out"
for m in TPI OS BAR; do
	rel "split-raw-$m" "$(val halves.out $m 2)" "$(val lat.out $m 2)" 1e-12
	rel "split-sums-$m" "$(val hs.out $m 2)" "$(val lat.out $m 2)" 1e-12
done

# ---- traces ------------------------------------------------------------------
ok trace-kind sh -c "head -1 whole.trace | grep -qx '#FEK 1' && grep -qx '#KIND convergence' whole.trace && grep -qx '#COL bar f64 kT' whole.trace"
ok trace-rows awk '!/^#/ { n++ } END { exit !(n >= 20) }' whole.trace
ok trace-ascending awk '!/^#/ { if ($3 <= last) exit 1; last = $3 } END { exit !(last == 100000) }' whole.trace
rel trace-last-bar "$(awk '!/^#/ { v = $9 } END { print v }' whole.trace)" "$(val whole.out BAR 2)" 1e-11
rel trace-last-sd "$(awk '!/^#/ { v = $10 } END { print v }' whole.trace)" "$(val whole.out BAR 3)" 1e-11
if have gnuplot; then
	t trace-plot 0 "gnuplot -e \"in='whole.trace'; out='trace.png'\" '$TOP/scripts/plot-bar-trace.gp'"
	ok trace-png test -s trace.png
else
	skip trace-plot "gnuplot not installed"
fi
t work-trace 0 "bar-solve -c w.trace -W '$DATA/gauss-s2-F.txt' '$DATA/gauss-s2-R.txt' > /dev/null"
ok work-trace-cols grep -qx '#COL bar f64 kT' w.trace

# ---- units, fugacity ---------------------------------------------------------
# the moves in kJ/mol at 300 K give the same beta mu; mu = beta mu kT
awk -v kt="$KB_KJ" '/^#COL u/ { print "#COL u f64 kJ/mol\n#TEMP 300"; next } /^#/ { print; next } { printf "%d %.17g\n", $1, $2 * kt * 300 }' refl.txt > kj.txt
t units-run 0 "bar-solve -u kJ -r 33.4nm-3 kj.txt > kj.out"
rel units-same-beta-mu "$(val kj.out BAR 2)" "$MU" 1e-11
rel units-mu-kJ "$(val kj.out BAR 6)" "$(awk -v m=$MU -v k=$KB_KJ 'BEGIN { printf "%.17g", m * k * 300 }')" 1e-11
# f = rho kT e^{beta mu}: 33.4e27 m^-3 * 1.380649e-23 J/K * 300 K, in bar
rel units-fugacity "$(val kj.out BAR 8)" "$(awk -v m=$MU 'BEGIN { printf "%.17g", 33.4e27 * 1.380649e-23 * 300 / 1e5 * exp(m) }')" 1e-11
t units-kcal 0 "bar-solve -u kcal kj.txt > kcal.out"
rel units-mu-kcal "$(val kcal.out BAR 6)" "$(awk -v m=$MU 'BEGIN { printf "%.17g", m * 0.0019872042586408316 * 300 }')" 1e-11
t units-reduced 0 "bar-solve -r 0.8 refl.txt > red.out"
rel units-fugacity-reduced "$(val red.out BAR 6)" "$(awk -v m=$MU 'BEGIN { printf "%.17g", 0.8 * exp(m) }')" 1e-11
t units-kcal-no-temp 65 "bar-solve -u kcal refl.txt"
t units-r-no-temp 65 "bar-solve -r 1nm-3 refl.txt"

# ---- overlap -------------------------------------------------------------------
awk '/^#KIND deletions/ { d = 1 } d && !/^#/ { $2 -= 40 } { print }' refl.txt > apart.txt
t no-overlap 1 "bar-solve apart.txt"
ok no-overlap-says grep -q 'overlap' no-overlap.err
t no-overlap-bar 1 "bar-solve -m bar apart.txt"
# narrow, far apart: every sample has the same weight, yet no overlap
awk -v K=50 -v NI=20 -v ND=20 -v m=30 -v s=0.05 -v seed=3 -v mode=indep "$GEN" |
	awk '/^#KIND deletions/ { d = 1 } d && !/^#/ { $2 -= 60 } { print }' > narrowapart.txt
t no-overlap-narrow 1 "bar-solve -m os,bar narrowapart.txt"
t no-overlap-n0 0 "bar-solve -n 0 -m bar apart.txt > n0.out"
awk 'BEGIN { for (i = 0; i < 100; i++) { print 30 + i / 100 > "fa.txt"; print 30 + i / 100 > "ra.txt" } }'
t no-overlap-work 1 "bar-solve -W fa.txt ra.txt"
# every insertion into a hard core: TPI has no Boltzmann factor
printf '#FEK 1\n#KIND insertions\n#ROWS 2\n#COL config i64\n#COL u f64 kT\n#END\n0 inf\n1 inf\n' > hard.txt
t all-hard-cores 1 "bar-solve hard.txt"
says all-hard-cores '^bar-solve: TPI: every insertion'
# one move dominates TPI
printf '#FEK 1\n#KIND insertions\n#ROWS ?\n#COL config i64\n#COL u f64 kT\n#END\n' > dom.txt
awk 'BEGIN { for (i = 0; i < 1000; i++) print i, i == 7 ? -20 : 5 }' >> dom.txt
t one-move-dominates 1 "bar-solve dom.txt"
ok one-move-says grep -q 'a few moves' one-move-dominates.err

# ---- one-sided estimates checked by the other side (check.c) --------------------
# Gaussian insertions N(m, s^2) of which a share p0 are hard-core overlaps
# (u = inf): beta mu = m - s^2/2 - ln(1 - p0), and the deletions, which
# never see the overlaps, are N(m - s^2, s^2).  DEL estimates m - s^2/2,
# low by -ln(1 - p0) = 2.30 kT, with a small sd and n_eff in the
# thousands: refused (it was printed with exit 0), while TPI, OS and BAR
# are printed (exit 1 all the same).
awk -v K=200 -v NI=100 -v ND=100 -v m=2 -v s=1 -v seed=31 -v p0=0.9 'function g() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
BEGIN {	srand(seed)
	print "#FEK 1\n#KIND insertions\n#ROWS " K * NI "\n#COL config i64\n#COL u f64 kT\n#END"
	for (c = 0; c < K; c++) for (i = 0; i < NI; i++) printf "%d %s\n", c, rand() < p0 ? "inf" : sprintf("%.17g", m + s * g())
	print "#FEK 1\n#KIND deletions\n#ROWS " K * ND "\n#COL config i64\n#COL u f64 kT\n#END"
	for (c = 0; c < K; c++) for (i = 0; i < ND; i++) printf "%d %.17g\n", c, m - s * s + s * g() }' > hc.txt
MUHC=$(awk 'BEGIN { printf "%.17g", 2 - 0.5 - log(0.1) }')
T_ALLOW_STDOUT=1 t hardcore-del 1 "bar-solve -m tpi,del,os,bar hc.txt > hc.out"
says hardcore-del '^bar-solve: DEL: the deletions reach x = .* of the insertions lie above: the estimate misses .* more than twice its sd'
ok hardcore-del-not-printed awk '$1 == "DEL" { exit 1 }' hc.out
for m in TPI OS BAR; do
	near "hardcore-$m-printed" "$(val hc.out $m 2)" "$MUHC" "$(awk -v s="$(val hc.out $m 3)" 'BEGIN { print 4 * s }')"
done
# the bias counted is the one the estimate has: -ln(1 - 0.9) = 2.30 within
# 0.05 (the printed DEL with -n 0 plus it is beta mu)
t hardcore-del-n0 0 "bar-solve -n 0 -v -m del hc.txt > hc0.out 2> hc0.err"
near hardcore-del-bias "$(awk '/DEL: coverage/ { print $NF == "kT" ? $(NF - 1) : $NF }' hc0.err)" 2.302585 0.05
near hardcore-del-low "$(val hc0.out DEL 2)" "$(awk -v m="$MUHC" 'BEGIN { print m - 2.302585 }')" 0.05
# the default methods (TPI, OS, BAR) pass: exit 0
t hardcore-default 0 "bar-solve hc.txt > hcd.out"
# the mirror (x -> -x, the sides swapped): the deletions are 0.9 deeply
# bound (u = -inf), which no insertion reaches; TPI is high by 2.30 kT
# and refused, DEL is -beta mu of the above and passes
awk '/^#KIND/ { k = $2 == "insertions" ? "deletions" : "insertions"; next } /^#/ { next }
	{ print $1, $2 == "inf" ? "-inf" : sprintf("%.17g", -$2) > k ".part" }' hc.txt
{ printf '#FEK 1\n#KIND insertions\n#ROWS 20000\n#COL config i64\n#COL u f64 kT\n#END\n'; cat insertions.part
  printf '#FEK 1\n#KIND deletions\n#ROWS 20000\n#COL config i64\n#COL u f64 kT\n#END\n'; cat deletions.part; } > bound.txt
T_ALLOW_STDOUT=1 t bound-tpi 1 "bar-solve -m tpi,del bound.txt > bound.out"
says bound-tpi '^bar-solve: TPI: the insertions reach x = .* of the deletions lie below'
ok bound-tpi-not-printed awk '$1 == "TPI" { exit 1 }' bound.out
near bound-del-printed "$(val bound.out DEL 2)" "-$MUHC" "$(awk -v s="$(val bound.out DEL 3)" 'BEGIN { print 4 * s }')"
# Gaussian moves of good overlap (s = 1): TPI and DEL both pass
t gauss-one-sided-pass 0 "bar-solve -m tpi,del ind.txt > /dev/null"
# deletions only: DEL cannot be checked; -n 0 accepts it
awk '/^#FEK/ { f = $0; next } /^#KIND/ { k = $2; if (k == "deletions") print f } k == "deletions"' ind.txt > delonly.txt
t del-only 1 "bar-solve delonly.txt"
says del-only 'DEL: cannot be checked'
t del-only-n0 0 "bar-solve -n 0 delonly.txt > /dev/null"

# ---- bad input: 65 -------------------------------------------------------------
hdr() {	# hdr KIND COLS...: a text header
	local k=$1; shift
	printf '#FEK 1\n#KIND %s\n#ROWS ?\n' "$k"
	for c in "$@"; do printf '#COL %s\n' "$c"; done
}
{ hdr insertions 'u f64 kT'; printf '#END\n1\n'; } > nocfg.txt
t bad-no-config 65 "bar-solve nocfg.txt"
{ hdr insertions 'config i64' 'u f64'; printf '#END\n0 1\n'; } > nounit.txt
t bad-u-unit 65 "bar-solve nounit.txt"
{ hdr insertions 'config i64' 'u f64 kJ/mol'; printf '#END\n0 1\n'; } > notemp.txt
t bad-no-temp 65 "bar-solve notemp.txt"
{ hdr insertions 'config i64' 'u f64 kT'; printf '#END\n0 1\n1 nan\n'; } > nan.txt
t bad-nan 65 "bar-solve nan.txt"
{ hdr insertions 'config i64' 'u f64 kT'; printf '#END\n0 1\n1 -inf\n'; } > minf.txt
t bad-insertion-minus-inf 65 "bar-solve minf.txt"
{ hdr deletions 'config i64' 'u f64 kT'; printf '#END\n0 1\n1 inf\n'; } > pinf.txt
t bad-deletion-plus-inf 65 "bar-solve pinf.txt"
{ hdr insertions 'config f64' 'u f64 kT'; printf '#END\n0.5 1\n'; } > frac.txt
t bad-config-fraction 65 "bar-solve frac.txt"
{ hdr insertions 'config i64' 'u f64 kJ/mol'; printf '#TEMP 300\n#END\n0 1\n'
  hdr insertions 'config i64' 'u f64 kJ/mol'; printf '#TEMP 310\n#END\n1 1\n'; } > twotemp.txt
t bad-two-temps 65 "bar-solve twotemp.txt"
{ hdr samples 'x f64'; printf '#END\n1\n'; } > kind.txt
t bad-kind 65 "bar-solve kind.txt"
: > empty.txt
t bad-empty 65 "bar-solve empty.txt"
SUMS='config i64|n_ins i64|lnI_T f64|lnI_O f64|n_del i64|lnD_O f64'
sums() { local IFS='|'; hdr tpisums $SUMS; printf '#END\n'; }
{ sums; printf '0 0 1 -inf 0 -inf\n'; } > s1.txt
t bad-sums-empty-not-inf 65 "bar-solve s1.txt"
{ sums; printf '0 10 0 5 0 -inf\n'; } > s2.txt
t bad-sums-cauchy-schwarz 65 "bar-solve s2.txt"
{ sums; printf '0 10 1 0.5 -1 -inf\n'; } > s3.txt
t bad-sums-negative-count 65 "bar-solve s3.txt"
HIST() { hdr tpihist 'config i64' 'bin i64' 'n_ins f64' 'n_del f64'; printf '#AXIS u %s open kT\n#BINS %s\n#END\n' "$1" "$2"; }
{ HIST '0 10' 10; printf '0 -1 1 0\n'; } > h1.txt
t bad-hist-insertion-below 65 "bar-solve h1.txt"
{ HIST '0 10' 10; printf '0 10 0 1\n'; } > h2.txt
t bad-hist-deletion-above 65 "bar-solve h2.txt"
{ HIST '0 10' 10; printf '0 11 1 0\n'; } > h3.txt
t bad-hist-bin 65 "bar-solve h3.txt"
{ HIST '0 10' 10; printf '0 1 1 0\n'; HIST '0 20' 10; printf '1 1 1 0\n'; } > h4.txt
t bad-hist-binning 65 "bar-solve h4.txt"
{ sums; printf '0 2 1 0.5 0 -inf\n'; HIST '0 10' 10; printf '0 1 3 0\n'; } > h5.txt
t bad-hist-vs-sums 65 "bar-solve h5.txt"
{ sums; printf '0 1 -1 -0.5 0 -inf\n'; hdr insertions 'config i64' 'u f64 kT'; printf '#END\n0 1\n'; } > both.txt
t bad-energies-and-sums 65 "bar-solve both.txt"
t bad-npt-no-volume 65 "bar-solve -P refl.txt"
{ hdr insertions 'config i64' 'u f64 kT' 'V f64 nm3'; printf '#END\n0 1 0\n'; } > v0.txt
t bad-volume-zero 65 "bar-solve v0.txt"
{ hdr insertions 'config i64' 'u f64 kT' 'V f64 nm3'; printf '#END\n0 1 10\n0 2 11\n'; } > v2.txt
t bad-volume-differs 65 "bar-solve -P v2.txt"
{ hdr insertions 'config i64' 'u f64 kT' 'V f64 nm3'; printf '#END\n0 1 10\n'
  hdr insertions 'config i64' 'u f64 kT' 'V f64 A3'; printf '#END\n1 1 10\n'; } > vu.txt
t bad-volume-units 65 "bar-solve vu.txt"
t bad-method-no-deletions 65 "bar-solve -m os dom.txt"
printf '1 2\n3 4\n' > two.txt
t bad-work-two-columns 65 "bar-solve -W two.txt '$DATA/tiny-R.txt'"
printf '# nothing\n' > none.txt
t bad-work-empty 65 "bar-solve -W none.txt '$DATA/tiny-R.txt'"
printf '1\n-inf\n' > wminf.txt
t bad-work-minus-inf 65 "bar-solve -W wminf.txt '$DATA/tiny-R.txt'"
printf '1\nx\n' > wx.txt
t bad-work-not-a-number 65 "bar-solve -W wx.txt '$DATA/tiny-R.txt'"

# ---- usage: 64, missing input: 66 ---------------------------------------------
t_usage usage-option 'bar-solve -Z refl.txt'
t_usage usage-method 'bar-solve -m foo refl.txt'
t_usage usage-n 'bar-solve -n -1 refl.txt'
t_usage usage-density 'bar-solve -r abc refl.txt'
t_usage usage-density-unit 'bar-solve -r 1furlong-3 refl.txt'
t_usage usage-work-one-file "bar-solve -W '$DATA/tiny-F.txt'"
t_usage usage-work-npt "bar-solve -P -W '$DATA/tiny-F.txt' '$DATA/tiny-R.txt'"
t_usage usage-units 'bar-solve -u eV refl.txt'
t missing-file 66 "bar-solve no-such-file.txt"
t missing-work-file 66 "bar-solve -W no-such-file.txt '$DATA/tiny-R.txt'"
t version 0 "bar-solve --version | grep -q '^bar-solve (fek)'"

# ---- never NaN ---------------------------------------------------------------
ok never-nan sh -c "! grep -il nan ./*.out ./*.trace"
