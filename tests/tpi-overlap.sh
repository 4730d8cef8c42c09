# tests/tpi-overlap.sh - scripts/tpi-overlap, the overlap diagnostic
# ln g(u) - ln f(u) + u of test insertions and deletions, on a case with
# a known answer: insertion energies normal with mean m and variance s^2
# give the deletion energies g(u) = f(u) e^(beta mu - u), again normal,
# mean m - s^2, variance s^2, and beta mu_ex = m - s^2/2 exactly (the
# Gaussian Widom average ln <e^-u> = -m + s^2/2).  Moves are drawn here
# (awk, Box-Muller) into tpihist sections with tpi-gpu's default fine
# bins (0.02 kT); the coarsened points must lie flat at m - s^2/2 within
# their counting errors.  A deletion distribution that is not the
# insertions' reweighted (wider) must fail the same check.  Also: -w, -m,
# the pooling of sections, the bins' consistency, usage and bad input.
. "$(dirname "$0")/lib.sh"

O=$TOP/scripts/tpi-overlap

# gen SEED NI NDEL M S SD [SECTIONS]: tpihist text sections (one a
# "configuration") with NI insertions ~ N(M, S^2) and NDEL deletions
# ~ N(M - S^2, SD^2) in all, bins of 0.02 kT over [-100, 100)
gen() {
	awk -v seed=$1 -v ni=$2 -v nd=$3 -v m=$4 -v s=$5 -v sd=$6 -v ns=${7:-4} '
	function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
	function bin(u) { return int((u + 100) / 0.02) }
	BEGIN {
		srand(seed)
		for (c = 0; c < ns; c++) {
			delete a; delete d
			for (i = 0; i < ni / ns; i++) a[bin(m + s * gauss())]++
			for (i = 0; i < nd / ns; i++) d[bin(m - s * s + sd * gauss())]++
			n = 0
			for (b in a) { k[b] = 1 }
			for (b in d) { k[b] = 1 }
			for (b in k) n++
			printf "#FEK 1\n#KIND tpihist\n#ROWS %d\n#COL config i64 1\n#COL bin i32 1\n", n
			printf "#COL n_ins i64 1\n#COL n_del i64 1\n#COL V f64 sigma^3\n#AXIS u -100 100 open kT\n#BINS 10000\n#END\n"
			for (b in k) printf "%d %d %d %d 1000\n", c, b, a[b], d[b]
			delete k
		}
	}'
}

# $(flat FILE MU): the command that checks every point within 4 counting
# sd of MU (one stderr line and exit 1 otherwise), at least 5 points, and
# their weighted mean within 4 of its sd (the points are independent:
# disjoint bins of independent draws)
cat > flat.awk << 'EOF'
!/^#/ { n++; z = ($2 - mu) / $3; if (z > 4 || z < -4) bad = bad " u=" $1 " (" $2 " +- " $3 ")"
	w += 1 / $3 ^ 2; s += $2 / $3 ^ 2 }
END { if (bad != "") { print "flat.awk: not flat at " mu ":" bad > "/dev/stderr"; exit 1 }
	if (n < 5) { print "flat.awk: only " n + 0 " points" > "/dev/stderr"; exit 1 }
	z = (s / w - mu) * sqrt(w)
	if (z > 4 || z < -4) { print "flat.awk: mean " s / w " off " mu " by " z " sd" > "/dev/stderr"; exit 1 } }
EOF
flat() { echo "awk -v mu=$2 -f flat.awk $1"; }

# m = 8, s = 4: beta mu_ex = 8 - 8 = 0; deletions centred at -8, the two
# peaks 4 sd apart, so that (as in seed 002's liquid) no 0.02 kT bin
# holds 10 moves of each kind
gen 1 50000 5000 8 4 4 > gauss.txt
t overlap-gauss 0 "$O gauss.txt > ov.txt"
t overlap-gauss-flat 0 "$(flat ov.txt 0)"
# the bins are coarsened: wider than tpi-gpu's 0.02 kT, a whole number of them
t overlap-gauss-coarse 0 "awk 'NR == 1 { exit !(\$2 == \"bins\" && \$4 > 0.1 && \$6 ~ /^[(][0-9]+\$/) }' ov.txt"
# every point holds at least 10 moves of each kind
t overlap-gauss-min 0 "awk '!/^#/ && (\$4 < 10 || \$5 < 10) { exit 1 }' ov.txt"
# and the fine bins alone would give no point (the bug of issue 30)
t overlap-fine-empty 0 "$O -w 0.02 gauss.txt | awk '!/^#/ { n++ } END { exit n > 0 }'"
# another seed, fewer moves, another answer: m = -2, s = 1.5, mu = -3.125
gen 7 100000 5000 -2 1.5 1.5 2 > gauss2.txt
t overlap-gauss2 0 "$O gauss2.txt > ov2.txt"
t overlap-gauss2-flat 0 "$(flat ov2.txt -3.125)"
# the check can fail: deletions wider than the reweighted insertions
# (sd 6 rather than 4) give a curved line
gen 1 50000 5000 8 4 6 > wide.txt
t overlap-wide 0 "$O wide.txt > ovw.txt"
t overlap-wide-not-flat 1 "$(flat ovw.txt 0)"
# and the wrong answer fails too
t overlap-wrong-mu 1 "$(flat ov.txt 0.3)"
# -w: the width asked, rounded to whole fine bins; -m: the least counts
t overlap-w 0 "$O -w 0.5 gauss.txt > ov5.txt"
t overlap-w-line 0 "head -1 ov5.txt | grep -q '^# bins of 0.5 kT (25 of'"
t overlap-w-flat 0 "$(flat ov5.txt 0)"
t overlap-w-centres 0 "awk '!/^#/ { x = (\$1 + 100) / 0.5 - 0.5; if (x != int(x)) exit 1 }' ov5.txt"
t overlap-m 0 "$O -m 50 gauss.txt | awk '!/^#/ && (\$4 < 50 || \$5 < 50) { exit 1 } !/^#/ { n++ } END { exit n < 3 }'"
# pooled: the sections of two files are those of one
gen 3 40000 4000 5 3 3 2 > a.txt
t overlap-pool 0 "$O a.txt gauss.txt > p1.txt && cat a.txt gauss.txt | $O > p2.txt && cmp p1.txt p2.txt"
# other sections are ignored
t overlap-other-kinds 0 "{ printf '#FEK 1\n#KIND tpisums\n#ROWS 1\n#COL config i64 1\n#COL n_ins i64 1\n#END\n0 5\n'; cat gauss.txt; } | $O | cmp - ov.txt"
# bad input and usage
t overlap-none 65 "printf '#FEK 1\n#KIND tpisums\n#ROWS 1\n#COL config i64 1\n#END\n0\n' | $O"
says overlap-none 'no tpihist sections'
t overlap-bins-differ 65 "{ cat gauss.txt; sed 's/^#BINS 10000/#BINS 5000/' a.txt; } | $O"
says overlap-bins-differ 'BINS 5000, not 10000'
t overlap-bad-m 64 "$O -m x gauss.txt"
t overlap-bad-w 64 "$O -w -1 gauss.txt"
t overlap-bad-opt 64 "$O -z gauss.txt"
t overlap-no-file 66 "$O nonexistent.txt"
