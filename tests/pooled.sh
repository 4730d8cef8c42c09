# tests/pooled.sh - sample-gen -P (the pooled histogram and its windows
# table, lib/wham/pool.c) and wham-gpu reading it.  WHAM sees the data only
# through B_b = sum_h n_hb and H_h (Potgieter 2014, Eqs. 3.1-3.4), so the
# pooled stream must give the PMF of the per-window histograms of the same
# samples to rounding; the windows' means must be the count-weighted bin
# centres (minimum image about the centre on a periodic axis) and their
# groups the overlap of the per-window histograms.  The GPU's pooling is
# checked against this in tests/gpu-sample.sh.
. "$(dirname "$0")/lib.sh"


G1="-p '(x-1)^2*(x-3)^2' -r 0:4 -g 21 -k 40 -n 20000 -b 80 -s 3 -d cpu"
t_pipe pool-1d-gen 0 "sample-gen $G1 -P -T > p1.txt && sample-gen $G1 -T > h1.txt"
t_pipe pool-1d-wham 0 "wham-gpu -d cpu -T p1.txt | grep -v '^#PROV' > wp1 && wham-gpu -d cpu -T h1.txt | grep -v '^#PROV' > wh1"
# same PMF and window free energies (the sums are exact; only their order differs)
numcmp_files pool-1d-same-pmf wh1 wp1 1e-12 1e-12
ok pool-1d-keys sh -c "grep -q '^#WINDOWS 21\$' p1.txt && grep -q '^#NSAMPLES 420000\$' p1.txt"
hist_means h1.txt > m1.exp; pooled_means p1.txt 1 > m1.got
numcmp_files pool-1d-means m1.exp m1.got 1e-9 1e-9
ok pool-1d-groups sh -c "awk '/^#KIND windows/ { w = 1 } w && !/^#/ && NF && \$5 != 1 { exit 1 }' p1.txt"
t_pipe pool-1d-rmsd 0 "wham-gpu -d cpu p1.txt | pmf | rmsd -p '(x-1)^2*(x-3)^2' -c 5kT --fail-above 0.02"

# 2-D, one axis periodic, windows not on the grid's bin centres
G2="-p 'cos(x)+0.5*cos(y-1)+0.3*cos(x+y)' -r -3.141592653589793:3.141592653589793:p -r -2:2 -g 7 -k 8 -n 4000 -b 30 -b 25 -s 11 -d cpu"
t_pipe pool-2d-gen 0 "sample-gen $G2 -P -T > p2.txt && sample-gen $G2 -T > h2.txt"
t_pipe pool-2d-wham 0 "wham-gpu -d cpu -T p2.txt | grep -v '^#PROV' > wp2 && wham-gpu -d cpu -T h2.txt | grep -v '^#PROV' > wh2"
numcmp_files pool-2d-same-pmf wh2 wp2 1e-11 1e-11
hist_means h2.txt > m2.exp; pooled_means p2.txt 2 > m2.got
numcmp_files pool-2d-means m2.exp m2.got 1e-9 1e-9
ok pool-2d-periodic-mean sh -c "awk 'NR == 1 && \$1 < -2.9 { f = 1 } END { exit !f }' m2.got"
t_pipe pool-2d-binary 0 "sample-gen $G2 -P | wham-gpu -d cpu -T | grep -v '^#PROV' > wp2b && cmp -s wp2 wp2b"

# windows that share no bin: sample-gen warns, wham-gpu refuses (exit 1)
G3="-p 0 -r 0:10 -w gap.win -n 2000 -b 100 -s 2 -d cpu"
printf '2 5000\n2.03 5000\n8 5000\n' > gap.win
T_ALLOW_STDOUT=1 t pool-gap-warns 0 "sample-gen $G3 -P -T > p3.txt"
ok pool-gap-warning sh -c "grep -q 'groups that share no sampled bin' pool-gap-warns.err"
ok pool-gap-group sh -c "awk '/^#KIND windows/ { w = 1 } w && !/^#/ && NF { g = g \$5 \" \" } END { exit g != \"1 1 3 \" }' p3.txt"
t pool-gap-wham 1 "wham-gpu -d cpu p3.txt"

# bad input: one line, the documented exit code, nothing on stdout
t pool-bootstrap 65 "wham-gpu -d cpu -B 10 p1.txt"
t pool-then-hist 65 "cat p1.txt h1.txt | wham-gpu -d cpu -T"
t hist-then-pool 65 "cat h1.txt p1.txt | wham-gpu -d cpu -T"
awk '/^#FEK/ { s++ } s == 2' p1.txt > w1.txt
awk '/^#FEK/ { s++ } s == 1' p1.txt > b1.txt
t pool-windows-alone 65 "wham-gpu -d cpu w1.txt"
t pool-without-windows 65 "wham-gpu -d cpu b1.txt"
awk '/^#KIND windows/ { w = 1 } w && !/^#/ && NF && !done { $3 = $3 + 1; done = 1 } { print }' p1.txt > n1.txt
t pool-n-mismatch 65 "wham-gpu -d cpu n1.txt"
sed 's/^#WINDOWS 21$/#WINDOWS 20/' p1.txt > c1.txt
t pool-count-mismatch 65 "wham-gpu -d cpu c1.txt"
awk '/^#KIND windows/ { w = 1 } w && !/^#/ && NF && !done { $3 = 0; done = 1 } { print }' p1.txt > z1.txt
t pool-empty-window 65 "wham-gpu -d cpu z1.txt"
sed 's/^#COL group f64 1$/#COL grp f64 1/' p1.txt > g1.txt
t pool-no-group 65 "wham-gpu -d cpu g1.txt"
t_usage pool-needs-bins "sample-gen -p x^2 -r 0:1 -g 3 -k 1 -P"

# -w (the bias weighted by each window's mean slope) takes the means from
# the windows table: the PMF of the per-window histograms' -w, less their
# boundary term on open axes (not pooled), which moves it by far less
# than -w's gain over -c here (0.0203 -> 0.0146 kcal/mol)
G4="-p '(x-1)^2*(x-3)^2' -r 0:4 -g 21 -k 40 -n 20000 -b 20 -s 3 -d cpu"
t_pipe pool-w-gen 0 "sample-gen $G4 -P > p4 && sample-gen $G4 > h4"
t_pipe pool-w 0 "wham-gpu -d cpu -w p4 | pmf > fp4 && wham-gpu -d cpu -w h4 | pmf > fh4"
t_pipe pool-w-biaseval 0 "wham-gpu -d cpu -w -T p4 | grep -q '^#BIASEVAL weighted$'"
t_pipe pool-w-near 0 "rmsd -f fh4 -c 5kT --fail-above 0.002 fp4"
