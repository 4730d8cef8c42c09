# tests/sample-gen.sh: umbrella samples (tools/sample-gen.c, lib/wham/sample.c)
# against the densities they must follow, exp(-(W + V)/kT) with
# V = 1/2 k (x - c)^2: Gaussian moments for a flat PMF, chi-square against
# densities integrated by Simpson's rule, autocorrelation of the correlated
# mode; reproducibility and -j; option and windows-file errors.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-sample.sh"

# ---- flat PMF, open domain: a Gaussian of mean c and variance kT/k ---------
sample_gauss gauss-run "" cpu 11

# -E kJ and another temperature: variance k_B(kJ) T / k
N=20000
t gauss-kj-run 0 "sample-gen -E kJ -p '0*x' -r -1000:1000 -w w1.txt -n $N -t 150 -s 12 -T > g2.txt"
read -r n m v kurt r1 <<EOF
$(moments 1 < g2.txt)
EOF
V=$(awk -v kb=$KBJ 'BEGIN { printf "%.17g", kb * 150 / 2.0 }')
within gauss-kj-variance "$v" "$V" "$(se_var $V $N)" 5
within gauss-kj-mean "$m" 3.5 "$(se_mean $V $N)" 5
ok gauss-kj-header grep -qx '#ENERGY kJ/mol' g2.txt

# 2-D: independent axes with their own springs
echo '1 -2 2 0.5' > w2.txt
t gauss-2d-run 0 "sample-gen -p '0*x+0*y' -r -500:500 -r -500:500 -w w2.txt -n $N -s 13 -T > g3.txt"
for axis in 1 2; do
	read -r n m v kurt r1 <<EOF
$(moments $axis < g3.txt)
EOF
	c=$(echo "1 -2" | cut -d' ' -f$axis)
	k=$(echo "2 0.5" | cut -d' ' -f$axis)
	V=$(awk -v kt=$kT -v k=$k 'BEGIN { printf "%.17g", kt / k }')
	within gauss-2d-mean-$axis "$m" "$c" "$(se_mean $V $N)" 5
	within gauss-2d-variance-$axis "$v" "$V" "$(se_var $V $N)" 5
done
rxy=$(awk '!/^#/ && NF { n++; sx += $1; sy += $2; sxx += $1*$1; syy += $2*$2; sxy += $1*$2 }
    END { cx = sxx/n - (sx/n)^2; cy = syy/n - (sy/n)^2; print (sxy/n - sx*sy/n/n) / sqrt(cx*cy) }' g3.txt)
within gauss-2d-independent "$rxy" 0 "$(awk -v n=$N 'BEGIN { print 1 / sqrt(n) }')" 5
ok gauss-2d-columns sh -c "grep -qx '#COL x f64 1' g3.txt && grep -qx '#COL y f64 1' g3.txt && grep -qx '#WINDOW 1 -2 2 0.5' g3.txt"

# ---- periodic wrap: a window at 180 on -180:180:p ---------------------------
echo '180 0.001' > wp.txt
t wrap-run 0 "sample-gen -p '0*x' -r -180:180:p -w wp.txt -n 5000 -s 5 -T > wp.out"
read -r n pos neg out m v <<EOF
$(awk '!/^#/ && NF { n++; if ($1 > 0) p++; else q++; if (!($1 >= -180 && $1 < 180)) o++
    d = $1 > 0 ? $1 - 180 : $1 + 180; s += d; ss += d * d }
    END { printf "%d %d %d %d %.17g %.17g\n", n, p, q, o, s / n, ss / n - (s / n) ^ 2 }' wp.out)
EOF
V=$(awk -v kt=$kT 'BEGIN { printf "%.17g", kt / 0.001 }')
near wrap-inside-domain "$out" 0 0
# each side holds half the samples: binomial sd sqrt(n)/2 = 35
within wrap-both-sides "$pos" 2500 35.4 5
within wrap-mean-min-image "$m" 0 "$(se_mean $V 5000)" 5
within wrap-variance-min-image "$v" "$V" "$(se_var $V 5000)" 5
ok wrap-axis-key grep -qx '#AXIS x -180 180 periodic 1' wp.out

# ---- reproducibility and -j ---------------------------------------------------
P=$TOR_PMF
run() { sample-gen -p "$P" -r -180:180:p -g 5 -k 0.002 -n 300 "$@"; }
run -s 4 > r1.bin
run -s 4 > r2.bin
run -s 5 > r3.bin
same_file seed-same-bytes r1.bin r2.bin
ok seed-different-bytes sh -c '! cmp -s r1.bin r3.bin'
run -T | grep -v '^#PROV' > d1.txt
run -T -s 1 | grep -v '^#PROV' > d2.txt
same_file seed-default-is-1 d1.txt d2.txt
ok seed-windows-differ sh -c "test \$(awk '/^#FEK/ { s++ } s == 1 && !/^#/' d1.txt | md5sum | cut -c1-32) != \$(awk '/^#FEK/ { s++ } s == 2 && !/^#/' d1.txt | md5sum | cut -c1-32)"
t j-run 0 "sample-gen -p '$P' -r -180:180:p -g 5 -k 0.002 -n 300 -j 2:3 -T > j23.txt"
grep -v '^#PROV' j23.txt > j23.np
awk '/^#FEK/ { s++ } s == 2 || s == 3' d1.txt > full23.np
same_file j-equals-full-sections j23.np full23.np
ok j-prov-records-range grep -q '^#PROV sample-gen .*-j 2:3' j23.txt
ok j-two-sections test "$(grep -c '^#FEK 1' j23.txt)" -eq 2
t j-one-run 0 "sample-gen -p '$P' -r -180:180:p -g 5 -k 0.002 -n 300 -j 5 -T > j5.txt"
grep -v '^#PROV' j5.txt > j5.np
awk '/^#FEK/ { s++ } s == 5' d1.txt > full5.np
same_file j-single-window j5.np full5.np
ok j-grid-centres sh -c "grep '^#WINDOW' d1.txt | tr '\n' ' ' | grep -q '^#WINDOW -180 0.002 #WINDOW -90 0.002 #WINDOW 0 0.002 #WINDOW 90 0.002 #WINDOW 180 0.002 \$'"

# ---- chi-square against densities integrated by Simpson's rule ----------
sample_dw "" cpu 20000 21
sample_seam "" cpu 20000 22

# 2-D, a coupled PMF: 10 x 10 bins on [-2,2]^2, 2-D Simpson per bin
echo '0.2 -0.1 1 2' > w2d.txt
t chi2d-run 0 "sample-gen -p '(x^2-1)^2+0.5*x*y' -r -2:2 -r -2:2 -w w2d.txt -n 20000 -s 23 -T > c2d.txt"
res=$(awk -v kt=$kT '
	function f(x, y) { return exp(-(((x*x-1)^2 + 0.5*x*y) + 0.5*1*(x-0.2)^2 + 0.5*2*(y+0.1)^2) / kt) }
	function wt(j) { return j == 0 || j == m ? 1 : (j % 2 ? 4 : 2) }
	!/^#/ && NF { i = int(($1 + 2) / 0.4); j = int(($2 + 2) / 0.4); if (i == 10) i = 9; if (j == 10) j = 9; obs[i * 10 + j]++; n++ }
	END {
		m = 8; h = 0.4
		for (i = 0; i < 10; i++) for (j = 0; j < 10; j++) {
			s = 0
			for (a = 0; a <= m; a++) for (b = 0; b <= m; b++)
				s += wt(a) * wt(b) * f(-2 + i * h + a * h / m, -2 + j * h + b * h / m)
			I[i * 10 + j] = s; tot += s
		}
		for (q = 0; q < 100; q++) {
			e = n * I[q] / tot
			if (e < 5) { pe += e; po += obs[q]; continue }
			chi += (obs[q] - e) ^ 2 / e; cat++
		}
		if (pe > 0) { chi += (po - pe) ^ 2 / pe; cat++ }
		printf "%.6g %d\n", chi, cat - 1
	}' c2d.txt)
chi_ok chi2d "$res"

# ---- correlated mode (-c): same density, correlated series ---------------------
# Overdamped Langevin in the spring alone is an Ornstein-Uhlenbeck process:
# stationary variance kT/k, lag-1 autocorrelation exp(-1/corr) at the
# sampling interval tau/corr (lib/wham/sample.h).
t corr-run 0 "sample-gen -p '0*x' -r -1000:1000 -w w1.txt -n 100000 -c 20 -s 31 -T > corr.txt"
read -r n m v kurt r1 <<EOF
$(moments 1 < corr.txt)
EOF
V=$(awk -v kt=$kT 'BEGIN { printf "%.17g", kt / 2.0 }')
near corr-variance-10pc "$v" "$V" "$(awk -v v=$V 'BEGIN { print 0.1 * v }')"
ok corr-lag1-above-half awk -v r="$r1" 'BEGIN { exit !(r > 0.5) }'
near corr-lag1-exp "$r1" "$(awk 'BEGIN { print exp(-1 / 20) }')" 0.01
ok corr-header grep -qx '#CORRTIME 20' corr.txt
# exact mode of the same window: no memory (|r| < 0.05, measured above for
# g1.txt; again here with the periodic thesis window)
read -r n m v kurt r1 <<EOF
$(moments 1 < seam.txt)
EOF
le exact-lag1-small "$(awk -v r="$r1" 'BEGIN { print (r < 0 ? -r : r) }')" 0.05

# ---- bad options: 64 --------------------------------------------------------------
t_usage opt-missing-p "sample-gen -r -1:1 -g 3 -k 1"
t_usage opt-bad-r "sample-gen -p '0*x' -r 1 -g 3 -k 1"
t_usage opt-r-reversed "sample-gen -p '0*x' -r 2:1 -g 3 -k 1"
t_usage opt-r-not-p "sample-gen -p '0*x' -r 0:1:q -g 3 -k 1"
t_usage opt-missing-r "sample-gen -p '0*x' -g 3 -k 1"
t_usage opt-n-zero "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -n 0"
t_usage opt-n-junk "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -n 10x"
t_usage opt-unknown-variable "sample-gen -p 'x+y' -r -1:1 -g 3 -k 1"
ok opt-unknown-variable-msg grep -q "unknown variable 'y'" opt-unknown-variable.err
t_usage opt-bad-formula "sample-gen -p 'x+*' -r -1:1 -g 3 -k 1"
t_usage opt-g-without-k "sample-gen -p '0*x' -r -1:1 -g 3"
t_usage opt-no-windows "sample-gen -p '0*x' -r -1:1"
t_usage opt-w-and-g "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -w w1.txt"
t_usage opt-t-zero "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -t 0"
t_usage opt-c-zero "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -c 0"
t_usage opt-E-kT "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -E kT"
t_usage opt-j-reversed "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -j 3:2"
t_usage opt-j-past-end "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -j 2:4"
ok opt-j-past-end-msg grep -q '3 windows' opt-j-past-end.err
t_usage opt-k-negative "sample-gen -p '0*x' -r -1:1 -g 3 -k -1"
t_usage opt-operand "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 extra"
t_usage opt-pmf-not-finite "sample-gen -p 'log(x)' -r -1:1 -g 3 -k 1"

echo '0 0' > wzero.txt
t_usage opt-c-zero-spring "sample-gen -p '0*x' -r -1:1 -w wzero.txt -c 5"
# ---- windows file -------------------------------------------------------------
printf '# centre spring\n0 1\n\n1 2 3\n' > wbad.txt
t wfile-field-count 65 "sample-gen -p '0*x' -r -1:1 -w wbad.txt"
ok wfile-field-count-msg grep -q 'wbad.txt: line 4' wfile-field-count.err
printf '0 1\n1\n' > wshort.txt
t wfile-too-few 65 "sample-gen -p '0*x' -r -1:1 -w wshort.txt"
ok wfile-too-few-msg grep -q 'line 2' wfile-too-few.err
printf '0 1\n0.5 abc\n' > wjunk.txt
t wfile-not-number 65 "sample-gen -p '0*x' -r -1:1 -w wjunk.txt"
printf '0 -1\n' > wneg.txt
t wfile-negative-spring 65 "sample-gen -p '0*x' -r -1:1 -w wneg.txt"
printf '0 nan\n' > wnan.txt
t wfile-nan 65 "sample-gen -p '0*x' -r -1:1 -w wnan.txt"
printf '# nothing\n\n' > wnone.txt
t wfile-no-windows 65 "sample-gen -p '0*x' -r -1:1 -w wnone.txt"
printf '0 0 1 1\n' > w2on1.txt
t wfile-2d-on-1d 65 "sample-gen -p '0*x' -r -1:1 -w w2on1.txt"
t wfile-missing 66 "sample-gen -p '0*x' -r -1:1 -w no-such-windows.txt"
ok wfile-missing-msg grep -q 'no-such-windows.txt' wfile-missing.err

sample_refused "" cpu

# ---- fused binning (-b): the stream histogram(1) makes of the samples ------
# Same seed, same samples: the fused output must equal the pipe's, byte for
# byte in the text twin, once the PROV lines (which name the commands) are
# set aside.
t fused-1d-run 0 "sample-gen -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s 3 -b 36 -T > f1.txt"
t_pipe fused-1d-pipe 0 "sample-gen -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s 3 | histogram -b 36 -T > p1.txt"
same_noprov fused-1d-equals-pipe f1.txt p1.txt
ok fused-1d-sections test "$(grep -c '^#KIND histogram$' f1.txt)" -eq 5
ok fused-1d-prov-names-b grep -q '^#PROV sample-gen .* -b 36' f1.txt
# 2-D, one axis re-ranged open (samples dropped, with a warning per window),
# the other periodic; binary output through bias-build's reader
printf '%s\n' '0 0.5 2 40' '1 0.5 3 30' > wf2.txt
t fused-2d-run 0 "sample-gen -p '(x^2-1)^2+cos(y*pi)' -r -2:2 -r -1:1:p -w wf2.txt -n 4000 -s 9 -b -1.5:1.5:12 -b 10 -T > f2.txt"
t_pipe fused-2d-pipe 0 "sample-gen -p '(x^2-1)^2+cos(y*pi)' -r -2:2 -r -1:1:p -w wf2.txt -n 4000 -s 9 | histogram -b -1.5:1.5:12 -b 10 -T > p2.txt"
same_noprov fused-2d-equals-pipe f2.txt p2.txt
ok fused-2d-warns-dropped grep -q '^sample-gen: window 1: [0-9]* of 4000 samples outside the histogram range, dropped$' fused-2d-run.err
ok fused-2d-grid sh -c "grep -qx '#AXIS x -1.5 1.5 open 1' f2.txt && grep -qx '#AXIS y -1 1 periodic 1' f2.txt && grep -qx '#BINS 12 10' f2.txt"
t fused-binary-same 0 "sample-gen -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s 3 -b 36 | bias-build -T > fb.txt"
t_pipe fused-binary-pipe 0 "sample-gen -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s 3 | histogram -b 36 | bias-build -T > pb.txt"
same_noprov fused-binary-equals-pipe fb.txt pb.txt
# with -j, and with correlated samples (-c), still the pipe's stream
t fused-j-run 0 "sample-gen -p '$P' -r -180:180:p -g 5 -k 0.002 -n 3000 -s 3 -b 36 -j 2:3 -T > fj.txt"
noprov fj.txt > fj.np
awk '/^#FEK/ { s++ } s == 2 || s == 3' f1.np > f1-23.np
same_file fused-j-equals-sections fj.np f1-23.np
t fused-corr-run 0 "sample-gen -p 'x^2' -r -2:2 -g 3 -k 10 -c 5 -n 2000 -s 4 -b 20 -T > fc.txt"
t_pipe fused-corr-pipe 0 "sample-gen -p 'x^2' -r -2:2 -g 3 -k 10 -c 5 -n 2000 -s 4 | histogram -b 20 -T > pc.txt"
same_noprov fused-corr-equals-pipe fc.txt pc.txt
ok fused-corr-carries-corrtime grep -qx '#CORRTIME 5' fc.txt
# errors: the -b count, bad ranges, a grid that misses every sample
t_usage opt-b-count "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -b 4 -b 4"
t_usage opt-b-one-range-2d "sample-gen -p '0*x+0*y' -r -1:1 -r -1:1 -g 3 -k 1 -b -1:1:4"
t_usage opt-b-zero "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -b 0"
t_usage opt-b-reversed "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -b 1:-1:4"
t_usage opt-b-not-p "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -b -1:1:4:q"
t_usage opt-b-too-many-bins "sample-gen -p '0*x+0*y+0*z' -r -1:1 -r -1:1 -r -1:1 -g 2 -k 1 -b 2000"
t fused-all-outside 65 "sample-gen -p '0*x' -r -1:1 -g 3 -k 1 -n 100 -b 5:6:4"
ok fused-all-outside-msg grep -q 'window 1: no sample inside the histogram range (100 outside)' fused-all-outside.err

# ---- devices: -c has no GPU path (69 with or without a GPU) ------------------
t device-gpu-corr 69 "sample-gen -d gpu -p 'x^2' -r -2:2 -g 3 -k 10 -c 5 -n 100"
t_usage device-bad "sample-gen -d tpu -p 'x^2' -r -2:2 -g 3 -k 10"
t device-cpu-same 0 "sample-gen -d cpu -p '$P' -r -180:180:p -g 5 -k 0.002 -n 300 -s 4 -T > dcpu.txt"
run -s 4 -T | noprov > dref.np
noprov dcpu.txt > dcpu.np
same_file device-cpu-is-reference dcpu.np dref.np
t device-auto-corr 0 "FEK_DEVICE=auto sample-gen -p 'x^2' -r -2:2 -g 3 -k 10 -c 5 -n 100 > /dev/null"
