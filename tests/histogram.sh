# tests/histogram.sh: histogram (tools/histogram.c, lib/wham/hist.c) on
# hand-made samples whose counts per bin are known: bin edges, the closed
# upper end of an open axis, dropped samples, periodic wrapping, 2-D
# row-major flattening, Grossfield metadata/time-series input; errors.
. "$(dirname "$0")/lib.sh"

# samples AXIS-LINES... : a text samples section of the rows on stdin.
samples() {
	local rows axes="" ncol=0 a cols=""
	rows=$(cat)
	for a in "$@"; do
		axes="$axes#AXIS $a
"
		ncol=$((ncol + 1))
		cols="$cols#COL $(echo "$a" | cut -d' ' -f1) f64 1
"
	done
	printf '#FEK 1\n#KIND samples\n#ROWS %d\n%s%s' \
	    "$(printf '%s\n' "$rows" | grep -c .)" "$cols" "$axes"
	if [ $ncol = 1 ]; then echo '#WINDOW 5 0.5'; else echo '#WINDOW 0.5 1 3 4'; fi
	printf '#TEMP 310\n#ENERGY kcal/mol\n#END\n%s\n' "$rows"
}
data() { grep -v '^#' "$1" | grep -v '^$'; }

# ---- open axis: edges, the upper end, dropped samples --------------------
# bins of 2 on [0,10]: [0,2) [2,4) [4,6) [6,8) [8,10]; 10 is in the last bin,
# -0.001 and 10.001 are outside.
printf '%s\n' 0 1.999 2 5 9.999 10 -0.001 10.001 | samples 'x 0 10 open nm' > open.txt
t open-run 0 'histogram -b 5 -T < open.txt > open.out'
data open.out > open.data
printf '0 2\n1 1\n2 1\n4 2\n' > open.want
same_file open-counts open.want open.data
ok open-nsamples grep -qx '#NSAMPLES 6' open.out
ok open-dropped grep -qx '#DROPPED 2' open.out
ok open-warning grep -q '2 of 8 samples outside' open-run.err
ok open-warning-one-line test "$(wc -l < open-run.err)" -eq 1
ok open-grid-keys sh -c "grep -qx '#AXIS x 0 10 open nm' open.out && grep -qx '#BINS 5' open.out"
ok open-keys-carried sh -c "grep -qx '#WINDOW 5 0.5' open.out && grep -qx '#TEMP 310' open.out"
ok open-columns sh -c "grep -qx '#COL bin i32 1' open.out && grep -qx '#COL count i32 1' open.out && grep -qx '#ROWS 4' open.out"
t open-quiet 0 'histogram -q -b 5 -T < open.txt > /dev/null'
ok open-quiet-silent test ! -s open-quiet.err
# the same through the binary writer
t open-binary 0 'histogram -b 5 < open.txt | bias-build -T > open.bin.out'
awk '/^#FEK/ { s++ } s == 1 && !/^#/' open.bin.out > open.bin.data
same_file open-binary-counts open.want open.bin.data

# ---- periodic axis: wrapping ---------------------------------------------------
# bins of 10 deg on [-180,180): 190 and -170 -> bin 1, -190 and 179.999 ->
# bin 35, -180, 180, 540, -540 -> bin 0.
printf '%s\n' 190 -170 -180 180 -190 179.999 540 -540 | samples 'x -180 180 periodic deg' > per.txt
t per-run 0 'histogram -b 36 -T < per.txt > per.out'
data per.out > per.data
printf '0 4\n1 2\n35 2\n' > per.want
same_file per-counts per.want per.data
ok per-no-drop grep -qx '#DROPPED 0' per.out
ok per-no-warning test ! -s per-run.err
# -b lo:hi:n:p replaces the stream's domain: [-5,5) periodic, 2 bins
printf '%s\n' 7 2 -4 4.5 | samples 'x 0 10 open 1' > over.txt
t override-run 0 'histogram -b -5:5:2:p -T < over.txt > over.out'
data over.out > over.data
printf '0 2\n1 2\n' > over.want
same_file override-counts over.want over.data
ok override-axis grep -qx '#AXIS x -5 5 periodic 1' over.out
t override-open 0 'histogram -b 0:4:4 -T < over.txt > over2.out'
data over2.out > over2.data
printf '2 1\n' > over2.want
same_file override-open-counts over2.want over2.data
ok override-open-dropped grep -qx '#DROPPED 3' over2.out

# ---- 2-D: row-major bins (the last axis fastest) ------------------------------
printf '%s\n' '0.1 0.1' '0.6 1.9' '0.9 0.6' '0.4 1.2' '0.6 1.9' |
    samples 'x 0 1 open 1' 'y 0 2 open 1' > two.txt
t twod-run 0 'histogram -b 2 -b 4 -T < two.txt > two.out'
data two.out > two.data
printf '0 1\n2 1\n5 1\n7 2\n' > two.want
same_file twod-counts two.want two.data
ok twod-bins grep -qx '#BINS 2 4' two.out
t twod-one-b 0 'histogram -b 2 -T < two.txt > two1.out'
ok twod-one-b-all-axes grep -qx '#BINS 2 2' two1.out
data two1.out > two1.data
printf '0 1\n1 1\n2 1\n3 2\n' > two1.want
same_file twod-one-b-counts two1.want two1.data

# several sections and several files: one histogram each, in order
cat open.txt per.txt > both.txt
t sections-run 0 'histogram -q -b 5 -T < both.txt > both.out'
ok sections-two test "$(grep -c '^#FEK 1' both.out)" -eq 2
ok sections-order sh -c "grep '^#AXIS' both.out | tr '\n' ' ' | grep -qx '#AXIS x 0 10 open nm #AXIS x -180 180 periodic deg '"
t files-run 0 'histogram -q -b 36 -T per.txt per.txt > files.out'
ok files-two-sections test "$(grep -c '^#FEK 1' files.out)" -eq 2

# ---- Grossfield metadata and time series (-m) ----------------------------------
cat > ts1.dat <<'EOF'
# time  x
@    title "xmgrace junk"
0  0.5
1  1.5
2  1.7  99 extra columns are ignored

3  9.5
4  12
EOF
cat > ts2.dat <<'EOF'
0 5
0.5 5.5
1 6.01
EOF
cat > meta1.txt <<'EOF'
# path centre spring [correl [temp]]
ts1.dat 1.0 2.5
ts2.dat 8.0 2.5 10 300
EOF
t meta-1d 0 'histogram -m meta1.txt -b 0:10:5 -t 300 -T > meta1.out'
awk '/^#FEK/ { s++ } s == 1 && !/^#/' meta1.out > m1a.data
awk '/^#FEK/ { s++ } s == 2 && !/^#/' meta1.out > m1b.data
printf '0 3\n4 1\n' > m1a.want
printf '2 2\n3 1\n' > m1b.want
same_file meta-1d-counts-1 m1a.want m1a.data
same_file meta-1d-counts-2 m1b.want m1b.data
ok meta-1d-dropped-warning grep -q 'ts1.dat: 1 of 5 samples outside' meta-1d.err
ok meta-1d-windows sh -c "grep '^#WINDOW' meta1.out | tr '\n' ' ' | grep -qx '#WINDOW 1 2.5 #WINDOW 8 2.5 '"
ok meta-1d-corrtime sh -c "test \$(grep -c '^#CORRTIME 10\$' meta1.out) = 1"
ok meta-1d-temp test "$(grep -c '^#TEMP 300$' meta1.out)" -eq 2
ok meta-1d-source grep -qx '#SOURCE ts2.dat' meta1.out
cat > ts3.dat <<'EOF'
0 0.1 0.1
1 0.9 0.2
2 0.9 0.7
3 0.2 0.6
4 0.8 0.9
5 0.5 0.5
EOF
echo 'ts3.dat 0.5 0.5 10 20' > meta2.txt
t meta-2d 0 'histogram -m meta2.txt -b 0:1:2 -b 0:1:2 -T > meta2.out'
data meta2.out > m2.data
printf '0 1\n1 1\n2 1\n3 3\n' > m2.want
same_file meta-2d-counts m2.want m2.data
ok meta-2d-window grep -qx '#WINDOW 0.5 0.5 10 20' meta2.out
ok meta-2d-axes sh -c "grep -qx '#AXIS x 0 1 open 1' meta2.out && grep -qx '#AXIS y 0 1 open 1' meta2.out"
# the metadata path feeds the rest of the pipeline
t meta-pipeline 0 'histogram -m meta1.txt -b 0:10:5 -t 300 -q | bias-build -T > meta-bias.out'
ok meta-pipeline-logbias test "$(grep -c '^#KIND logbias$' meta-bias.out)" -eq 2

t_usage meta-b-count 'histogram -m meta1.txt -b 5'
t meta-temp-conflict 65 'histogram -q -m meta1.txt -b 0:10:5 -t 310'
echo 'ts1.dat 1.0' > meta-short.txt
t meta-fields 65 'histogram -m meta-short.txt -b 0:10:5'
ok meta-fields-msg grep -q 'meta-short.txt: line 1' meta-fields.err
echo 'no-such-ts.dat 1 2' > meta-missing.txt
t meta-missing-series 66 'histogram -m meta-missing.txt -b 0:10:5'
t meta-missing-file 66 'histogram -m no-such-meta.txt -b 0:10:5'
printf '0 1\n1 abc\n' > tsbad.dat
echo 'tsbad.dat 1 2' > meta-bad.txt
t meta-bad-series 65 'histogram -m meta-bad.txt -b 0:10:5'
ok meta-bad-series-msg grep -q 'tsbad.dat: line 2' meta-bad-series.err
echo 'ts1.dat 1 -2' > meta-neg.txt
t meta-negative-spring 65 'histogram -m meta-neg.txt -b 0:10:5'

# ---- errors ------------------------------------------------------------------------
t_usage err-b-count 'histogram -b 5 -b 5 < open.txt'
ok err-b-count-msg grep -q '2 -b options for 1 dimension' err-b-count.err
t_usage err-b-count-2d 'histogram -b 2 -b 2 -b 2 < two.txt'
printf '%s\n' 1 2 inf 3 | samples 'x 0 10 open 1' > inf.txt
t err-nonfinite 65 'histogram -b 5 < inf.txt'
ok err-nonfinite-msg grep -q 'row 3' err-nonfinite.err
printf '%s\n' 11 12 -1 | samples 'x 0 10 open 1' > outside.txt
t err-all-outside 65 'histogram -b 5 < outside.txt'
ok err-all-outside-msg grep -q 'no sample inside' err-all-outside.err
# a good section before the bad one: nothing half-written
cat open.txt outside.txt > good-bad.txt
t err-all-or-nothing 65 'histogram -q -b 5 < good-bad.txt'
ok err-all-or-nothing-names-section grep -q 'section 2' err-all-or-nothing.err
t err-wrong-kind 65 'histogram -b 5 < open.out'
grep -v '^#AXIS' open.txt > noaxis.txt
t err-no-axis 65 'histogram -b 5 < noaxis.txt'
sed 's/^#COL x f64 1$/#COL x f64 1\n#COL y f64 1/' open.txt | sed 's/^\([-0-9.]*\)$/\1 0/' > cols.txt
t err-columns-vs-axes 65 'histogram -b 5 < cols.txt'
t_usage err-no-b 'histogram < open.txt'
t_usage err-b-zero 'histogram -b 0 < open.txt'
t_usage err-b-reversed 'histogram -b 5:1:4 < open.txt'
t_usage err-b-bad-p 'histogram -b 0:1:4:q < open.txt'
t_usage err-m-and-operand 'histogram -m meta1.txt -b 0:10:5 open.txt'

# ---- devices ---------------------------------------------------------------------
# -d cpu is the reference path; the time series of -m are binned on the CPU
# only, so -d gpu -m exits 69 with or without a GPU.
t device-cpu 0 'histogram -d cpu -b 36 -T < per.txt > per-cpu.out'
grep -v '^#PROV' per-cpu.out > per-cpu.np
grep -v '^#PROV' per.out > per.np
same_file device-cpu-same per-cpu.np per.np
t device-gpu-meta 69 'histogram -d gpu -m meta1.txt -b 0:10:5'
t_usage device-bad 'histogram -d fpga -b 5 < open.txt'
t device-env-bad 64 'FEK_DEVICE=fpga histogram -b 5 < open.txt'

# ---- -g: statistical inefficiency from each window's series ------------------------
# An AR(1) series x_i = phi x_(i-1) + sqrt(1 - phi^2) z_i has g = (1 + phi) /
# (1 - phi) = 9 at phi = 0.8 (Chodera et al. 2007); 10^5 samples estimate it
# to a few percent.  The same series shifted by half a period and wrapped on
# a periodic axis must give the same g (cos and sin, no jumps at the wrap).
ar1() {
	awk -v phi=0.8 -v n=100000 -v seed=7 -v shift="$1" -v axis="$2" 'BEGIN {
		srand(seed); pi = atan2(0, -1)
		print "#FEK 1"; print "#KIND samples"; print "#ROWS " n
		print "#COL x f64 1"; print "#AXIS x " axis " 1"
		print "#WINDOW 0 0.1"; print "#TEMP 300"; print "#ENERGY kcal/mol"; print "#END"
		x = 0; s = sqrt(1 - phi * phi)
		for (i = 0; i < n; i++) {
			u1 = rand(); u2 = rand(); if (u1 < 1e-300) u1 = 1e-300
			x = phi * x + s * sqrt(-2 * log(u1)) * cos(2 * pi * u2)
			y = 10 * x + shift
			if (shift) y -= 360 * int((y + 180) / 360 + (y + 180 < 0 ? -1 : 0))
			printf "%.17g\n", y
		}
	}'
}
ar1 0 '-1000 1000 open' > ar1.txt
ar1 180 '-180 180 periodic' > ar1p.txt
t ineff-ar1 0 'histogram -g -T -b 100 < ar1.txt > ar1.out'
g_ar1=$(sed -n 's/^#INEFFICIENCY //p' ar1.out)
near ineff-ar1-analytic "$g_ar1" 9 0.9
t ineff-ar1-periodic 0 'histogram -g -T -b 100 < ar1p.txt > ar1p.out'
near ineff-periodic-wrap "$(sed -n "s/^#INEFFICIENCY //p" ar1p.out)" "$g_ar1" 0.4
ok ineff-absent-without-g sh -c "histogram -T -b 100 < ar1.txt | grep -qv '^#INEFFICIENCY'"
if /usr/bin/python3 -c 'import pymbar' 2> /dev/null; then
	grep -v '^#' ar1.txt > ar1.dat
	g_py=$(/usr/bin/python3 -c 'import numpy, pymbar.timeseries as ts
print(repr(ts.statisticalInefficiency(numpy.loadtxt("ar1.dat"))))')
	near ineff-pymbar "$g_ar1" "$g_py" 1e-7
else
	skip ineff-pymbar "python3-pymbar not installed"
fi

# ---- -m: the block reader, fek_strtod, windows in parallel --------------------------
# lib/core/decimal.c's fek_strtod against the C library's strtod: the same double,
# bit for bit, and the same end, on 10^6 random strings and the edge cases
# (tests/decimal-check.c).
CC=${CC:-cc}
if t decimal-build 0 "$CC -std=c11 -D_DEFAULT_SOURCE -O2 -I'$TOP/lib' -o dcheck '$TOP/tests/decimal-check.c' '$TOP/lib/core/decimal.c' -lgsl -lopenblas -lm"; then
	t decimal-vs-strtod 0 './dcheck 1000000 1 > dcheck.out'
	ok decimal-no-mismatch grep -q ' 0 mismatches$' dcheck.out
fi
# The same samples as a fek stream through histogram and as time series
# through -m, their numbers spelled several ways (as written, leading zeros,
# the point moved into an exponent, E+000, tabs, CR LF, extra columns,
# comments): the same counts in every bin of every window, and the same
# output with one thread and with two.
printf '%s\n' '2 1000' '5 1000' '8 1000' > win3
sample-gen -q -w win3 -p '(x-5)^2' -r 0:10 -n 20000 -s 3 > same.fek
sample-gen -q -w win3 -p '(x-5)^2' -r 0:10 -n 20000 -s 3 -T | awk '
	function moved(x,  i, f) {	# 1.25 -> 125e-2
		i = index(x, ".")
		if (i == 0 || index(x, "e")) return x "e0"
		f = substr(x, i + 1)
		return substr(x, 1, i - 1) f "e-" length(f)
	}
	/^#WINDOW / { w++; f = "same" w ".dat"; print f, $2, $3 > "same-meta.txt"; row = 0; next }
	/^#/ { next }
	{
		k = row % 6
		if (k == 0) printf "%d %s\n", row, $1 > f
		else if (k == 1) printf "\t%d\t%s 99 extra\r\n", row, $1 > f
		else if (k == 2) printf "  %d.000 00%s # c\n", row, $1 > f
		else if (k == 3) printf "%d %s\n", row, moved($1) > f
		else if (k == 4) printf "%d %sE+000\n", row, $1 > f
		else printf "# comment\n@ legend\n\n%d %s\n", row, $1 > f
		row++
	}'
sections() { awk '/^#FEK/ { s++ } !/^#/ { print s, $0 }' "$1"; }
t same-stream 0 'histogram -q -b 0:10:200 -T same.fek > same-stream.out'
t same-meta 0 'OMP_NUM_THREADS=2 histogram -q -m same-meta.txt -b 0:10:200 -T > same-meta.out'
sections same-stream.out > same-stream.rows
sections same-meta.out > same-meta.rows
ok same-three-windows test "$(grep -c '^#FEK' same-meta.out)" = 3
same_file same-counts same-stream.rows same-meta.rows
t same-meta-serial 0 'OMP_NUM_THREADS=1 histogram -q -m same-meta.txt -b 0:10:200 -g -T > same-serial.out'
t same-meta-parallel 0 'OMP_NUM_THREADS=2 histogram -q -m same-meta.txt -b 0:10:200 -g -T > same-parallel.out'
same_file same-threads same-serial.out same-parallel.out

# Errors in parallel runs: the first in metadata order wins, as one thread
# reading the files in turn would report it.  Window 1 is long and bad at its
# end, window 2 short and bad at once (found first by a second thread).
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%d %.17g\n", i, 5 + i % 7 / 7; print "200000 5.5e" }' > bigbad.dat
printf '0 1\n1 2x\n' > shortbad.dat
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "%d %.17g\n", i, 5 + i % 3 / 3 }' > good.dat
printf 'bigbad.dat 5 10\nshortbad.dat 5 10\n' > meta-order1.txt
printf 'good.dat 5 10\ngood.dat 5 10\nshortbad.dat 5 10\nno-such.dat 5 10\n' > meta-order2.txt
printf 'good.dat 5 10\nno-such.dat 5 10\nshortbad.dat 5 10\n' > meta-order3.txt
printf 'good.dat 5 10 0 300\nshortbad.dat 5 10\ngood.dat 5 10 0 310\n' > meta-order4.txt
printf 'good.dat 5 10 0 300\ngood.dat 5 10 0 310\nshortbad.dat 5 10\n' > meta-order5.txt
printf '0 100\n' > outside.dat
printf 'good.dat 5 10\noutside.dat 5 10\nshortbad.dat 5 10\n' > meta-order6.txt
for n in 1 2 3; do
	t meta-order1-$n 65 "OMP_NUM_THREADS=$n histogram -q -m meta-order1.txt -b 0:10:5"
	ok meta-order1-$n-msg grep -qx 'histogram: bigbad.dat: line 200001: column 2 is not a finite number' meta-order1-$n.err
	t meta-order2-$n 65 "OMP_NUM_THREADS=$n histogram -q -m meta-order2.txt -b 0:10:5"
	ok meta-order2-$n-msg grep -qx 'histogram: shortbad.dat: line 2: column 2 is not a finite number' meta-order2-$n.err
	t meta-order3-$n 66 "OMP_NUM_THREADS=$n histogram -q -m meta-order3.txt -b 0:10:5"
	ok meta-order3-$n-msg grep -qx 'histogram: no-such.dat: No such file or directory' meta-order3-$n.err
	t meta-order4-$n 65 "OMP_NUM_THREADS=$n histogram -q -m meta-order4.txt -b 0:10:5"
	ok meta-order4-$n-msg grep -q 'shortbad.dat: line 2' meta-order4-$n.err
	t meta-order5-$n 65 "OMP_NUM_THREADS=$n histogram -q -m meta-order5.txt -b 0:10:5"
	ok meta-order5-$n-msg grep -q 'window 2: temperature 310 differs from window 1' meta-order5-$n.err
	t meta-order6-$n 65 "OMP_NUM_THREADS=$n histogram -q -m meta-order6.txt -b 0:10:5"
	ok meta-order6-$n-msg grep -q 'outside.dat: no sample inside the histogram range' meta-order6-$n.err
done
# A line longer than the reader's block (256 KiB) and a last line without
# its newline: the line numbers still count every line.
awk 'BEGIN { printf "0 1\n"; for (i = 0; i < 600000; i++) printf " "; printf "1 2\n2 3\n3 4" }' > longline.dat
echo 'longline.dat 5 10' > meta-long.txt
t meta-long-line 0 'histogram -q -m meta-long.txt -b 0:10:5 -T > meta-long.out'
ok meta-long-line-count grep -qx '#NSAMPLES 4' meta-long.out
awk 'BEGIN { printf "0 1\n"; for (i = 0; i < 600000; i++) printf " "; printf "1 2\n2 3\n3 4e" }' > longbad.dat
echo 'longbad.dat 5 10' > meta-longbad.txt
t meta-long-line-bad 65 'histogram -q -m meta-longbad.txt -b 0:10:5'
ok meta-long-line-bad-msg grep -qx 'histogram: longbad.dat: line 4: column 2 is not a finite number' meta-long-line-bad.err
