# tests/binavg.sh: coarse bins as accurate as fine ones (issue 3) -- the
# bias weighted by a PMF of each window's mean slope (bias-build -w,
# wham-gpu -w; lib/wham/bias.c) on noise-free histograms of analytic PMFs:
# every window's expected counts N P_hb, P_hb the exact integral of the
# biased density over bin b (tests/binavg-gen.c, Gauss-Legendre), so that
# binning and the bias evaluation are the whole error; the PMF at the bin
# centres is compared with the analytic one (rmsd -f).  The limits are set
# from what the bins give, measured (kJ/mol, RMSD over F <= 25 kJ/mol):
#   1-D quartic (scripts/bench-sampler-drift's case, windows 2 sigma apart)
#     -c: 0.88 at 100 bins (a bin 2 sigma), 0.0062 at 250, 0.00042 at 1000;
#     -w: 0.033 at 100, 0.0016 at 250 (the issue's targets 0.05, 0.005);
#   2-D, x open, y periodic, 40 x 16 windows, separable and not:
#     -c: 0.47-0.48 at 40 x 16 bins (2 sigma), 0.018 at 80 x 32, 0.005 at
#     160 x 64; -w: 0.060-0.062 at 40 x 16, 0.013 at 80 x 32;
#   1-D flat PMF, windows on the ends of the open axis (the boundary term of
#     the mean force): -c 0.026 and 0.010 at 100 and 250 bins, -w 0.021 and
#     0.0013.
# Each limit sits between what -w gives and what -c gives, so that the test
# fails if -w falls back to the centre value; and the bad inputs -w adds.
#
# Then -S (BIASEVAL spline, lib/wham/binshape.c): the bias weighted by p's own
# shape inside each bin, from a spline through the solution's ln p, solved
# self-consistently.  Measured on the same histograms (kJ/mol):
#   1-D quartic: 4.3e-6 at 100 bins, 6.8e-5 at 40 (a bin 5 sigma: -c 4.4),
#     4.9e-4 at 20 (10 sigma: -c 19);
#   1-D flat, windows on the open ends: 5.0e-6 at 100 bins;
#   2-D at 40 x 16 (2 sigma): 0.0019 separable, 0.0021 not (-c at 160 x 64,
#     bins of a half sigma: 0.0049 and 0.0050; the smoothing of ln p, which
#     takes these noise-free counts for 1e5 samples' worth, is most of it),
#     at 80 x 32 0.0011 both;
#   the thesis case (bins 0.74 sigma, the PMF curving up to 4x the spring):
#     7.9e-4 kcal/mol against -c 0.050, -w 0.076;
#   noisy fine bins (1000 bins, a bin sigma/5): the same as -c to 0.1%.
# Limits sit well above -S and well below the next best (-w, or -c), so a
# fall-back to either fails.
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}
t build-helper 0 "$CC -O2 -o bgen '$TOP/tests/binavg-gen.c' -lgsl -lopenblas -lm"

# rmsd_of PROB REF: the RMSD (kJ/mol) of the PMF of a wham-gpu output
# against the reference columns, over F <= 25 kJ/mol
rmsd_of() {
	pmf -u kJ "$1" | rmsd -u kJ -E kJ -c 25 -f "$2" | awk '$1 == "RMSD" { print $2 }'
}

# ---- 1-D quartic ---------------------------------------------------------------
for nb in 100 250; do
	t q$nb-gen 0 "./bgen quartic $nb q$nb.ref > q$nb.fek"
	t q$nb-w 0 "wham-gpu -w --tol 1e-9 q$nb.fek > q$nb-w.prob"
	t q$nb-c 0 "wham-gpu -c --tol 1e-9 q$nb.fek > q$nb-c.prob"
done
le q100-w-rmsd "$(rmsd_of q100-w.prob q100.ref)" 0.05
le q250-w-rmsd "$(rmsd_of q250-w.prob q250.ref)" 0.005
# the same data with the centre bias: what -w removes
ok q100-c-worse awk -v r="$(rmsd_of q100-c.prob q100.ref)" 'BEGIN { exit !(r > 0.5) }'
ok q250-c-worse awk -v r="$(rmsd_of q250-c.prob q250.ref)" 'BEGIN { exit !(r > 0.005) }'
# bias-build -w writes the factors wham-gpu -w builds (means from the rows
# as doubles there, summed as read here)
t q100-bb 0 'bias-build -w -T q100.fek > q100-bb.fek && wham-gpu --tol 1e-9 -T q100-bb.fek > q100-bb.prob'
ok q100-bb-key sh -c "grep -qx '#BIASEVAL weighted' q100-bb.fek && test \$(grep -c '^#KIND logbias' q100-bb.fek) = 100"
t q100-w-text 0 'wham-gpu -w -T --tol 1e-9 q100.fek > q100-w.txt'
ok q100-key grep -qx '#BIASEVAL weighted' q100-w.txt
awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF' q100-w.txt > a.lnp
awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF' q100-bb.prob > b.lnp
numcmp_files q100-bb-same a.lnp b.lnp 1e-9 1e-9

# ---- 1-D flat, windows cut by the ends of the axis -------------------------------
for nb in 100 250; do
	t f$nb-gen 0 "./bgen flat $nb f$nb.ref > f$nb.fek"
	t f$nb-w 0 "wham-gpu -w --tol 1e-9 f$nb.fek > f$nb-w.prob"
done
le f100-w-rmsd "$(rmsd_of f100-w.prob f100.ref)" 0.024
le f250-w-rmsd "$(rmsd_of f250-w.prob f250.ref)" 0.003

# ---- 2-D: x open, y periodic; separable and not -----------------------------------
for cs in sep nonsep; do
	t $cs-gen 0 "./bgen $cs 40 16 $cs.ref > $cs.fek"
	t $cs-w 0 "wham-gpu -w $cs.fek > $cs-w.prob"
	t $cs-c 0 "wham-gpu -c $cs.fek > $cs-c.prob"
	le $cs-w-rmsd "$(rmsd_of $cs-w.prob $cs.ref)" 0.08
	ok $cs-c-worse awk -v r="$(rmsd_of $cs-c.prob $cs.ref)" 'BEGIN { exit !(r > 0.3) }'
	t $cs-gen2 0 "./bgen $cs 80 32 $cs-2.ref > $cs-2.fek"
	t $cs-w2 0 "wham-gpu -w $cs-2.fek > $cs-w2.prob"
	le $cs-w2-rmsd "$(rmsd_of $cs-w2.prob $cs-2.ref)" 0.016
done

# ---- the packed reader (i32 counts, read whole) and the streamed one (-B)
# give the same means, so the same PMF; periodic means across the cut
printf '%s\n' '-170 0.01' '-130 0.01' '-90 0.01' '-50 0.01' '-10 0.01' \
    '30 0.01' '70 0.01' '110 0.01' '150 0.01' > pw.txt
t pk-gen 0 "sample-gen -q -p '0.5*cos(x*pi/180)' -r -180:180:p -w pw.txt -n 4000 -t 300 -s 3 | histogram -q -b 24 > pk.fek"
t pk-packed 0 'wham-gpu -w -T --tol 1e-10 pk.fek > pk1.txt'
t pk-streamed 0 'wham-gpu -w -B 2 -T --tol 1e-10 pk.fek > pk2.txt'
t pk-bb 0 'bias-build -w pk.fek | wham-gpu -T --tol 1e-10 > pk3.txt'
awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF { print $1 }' pk1.txt > pk1.lnp
awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF { print $1 }' pk2.txt > pk2.lnp
awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF { print $1 }' pk3.txt > pk3.lnp
numcmp_files pk-packed-streamed pk1.lnp pk2.lnp 1e-9 1e-9
numcmp_files pk-packed-biasbuild pk1.lnp pk3.lnp 1e-9 1e-9
# the window at -170 degrees: its samples either side of the cut at +-180
# give a mean near -170 (not near 0, the plain average of the angles)
t pk-one 0 "printf '%s\\n' '-170 0.01' > pw1.txt && sample-gen -q -p '0.5*cos(x*pi/180)' -r -180:180:p -w pw1.txt -n 4000 -t 300 -s 3 | histogram -q -b 24 > pk-one.fek && bias-build -w -T pk-one.fek > pk-one.out"
t pk-one-c 0 "bias-build -a -T pk-one.fek > pk-one-a.out"
# with the mean near the centre (a PMF nearly flat there) the weighted
# factors are close to the bin averages; a mean at 0 would move them by
# tens of kT
ok pk-one-near-average awk 'FNR == 1 { f = 0 } /^#KIND logbias/ { f++ } /^#/ { next } f { v[FILENAME, ++n[FILENAME]] = $1 }
	END { for (i = 1; i <= 24; i++) { d = v["pk-one.out", i] - v["pk-one-a.out", i]
		if (v["pk-one-a.out", i] > -20 && (d > 0.5 || d < -0.5)) exit 1 } }' pk-one.out pk-one-a.out

# ---- -S: p's own shape inside each bin, self-consistently ---------------------------
# rmsd_u PROB REF UNIT CUT: rmsd_of in another unit and cutoff
rmsd_u() {
	pmf -u "$3" "$1" | rmsd -u "$3" -E "$3" -c "$4" -f "$2" | awk '$1 == "RMSD" { print $2 }'
}
t S-q100 0 'wham-gpu -S -v q100.fek > q100-S.prob 2> q100-S.log'
le S-q100-rmsd "$(rmsd_of q100-S.prob q100.ref)" 1e-4
ok S-q100-key sh -c "wham-gpu -S -T q100.fek | grep -qx '#BIASEVAL spline'"
ok S-q100-rounds grep -q -- '-S round 3: ln p moved' q100-S.log
t S-q40-gen 0 './bgen quartic 40 q40.ref > q40.fek'
t S-q40 0 'wham-gpu -S q40.fek > q40-S.prob && wham-gpu -c q40.fek > q40-c.prob'
le S-q40-rmsd "$(rmsd_of q40-S.prob q40.ref)" 1e-3
ok S-q40-c-worse awk -v r="$(rmsd_of q40-c.prob q40.ref)" 'BEGIN { exit !(r > 1) }'
t S-f100 0 'wham-gpu -S f100.fek > f100-S.prob'
le S-f100-rmsd "$(rmsd_of f100-S.prob f100.ref)" 1e-4
for cs in sep nonsep; do
	t S-$cs 0 "wham-gpu -S $cs.fek > $cs-S.prob"
	# 2 sigma bins at least as accurate as -c's bins of a half sigma
	le S-$cs-rmsd "$(rmsd_of $cs-S.prob $cs.ref)" 0.004
	t S-$cs-2 0 "wham-gpu -S $cs-2.fek > $cs-S2.prob"
	le S-$cs-2-rmsd "$(rmsd_of $cs-S2.prob $cs-2.ref)" 0.003
done
# the thesis case, where -w loses to -c
t S-thesis-gen 0 './bgen thesis 20 th.ref > th.fek'
t S-thesis 0 'wham-gpu -S th.fek > th-S.prob && wham-gpu -c th.fek > th-c.prob && wham-gpu -w th.fek > th-w.prob'
le S-thesis-rmsd "$(rmsd_u th-S.prob th.ref kcal 6kT)" 0.002
ok S-thesis-c-worse awk -v r="$(rmsd_u th-c.prob th.ref kcal 6kT)" 'BEGIN { exit !(r > 0.04) }'
ok S-thesis-w-worse awk -v r="$(rmsd_u th-w.prob th.ref kcal 6kT)" 'BEGIN { exit !(r > 0.06) }'
# the same case sampled (20000 samples a window): -S removes -c's bias of
# 0.05 kcal/mol and leaves the statistical error (about 0.012)
TP='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
awk 'BEGIN { for (c = -180; c <= 180; c += 60) print c, 0.001 }' > thw.txt
t_pipe S-thesis-noisy-gen 0 "sample-gen -q -p '$TP' -r -180:180:p -w thw.txt -n 20000 -t 300 -s 1 | histogram -q -b 20 > thn.fek"
t S-thesis-noisy 0 'wham-gpu -S thn.fek > thn-S.prob && wham-gpu -c thn.fek > thn-c.prob'
le S-thesis-noisy-rmsd "$(rmsd_u thn-S.prob th.ref kcal 6kT)" 0.025
ok S-thesis-noisy-c-worse awk -v r="$(rmsd_u thn-c.prob th.ref kcal 6kT)" 'BEGIN { exit !(r > 0.04) }'
# fine bins (a fifth of sigma) and sampling noise: the smoothing keeps -S
# from sharpening the noise, so it does as well as -c (the bins' own error
# is far below the noise there)
t S-fine-gen 0 "awk 'BEGIN { for (i = 0; i < 100; i++) printf \"%.2f 1000\\n\", 0.05 + 0.1 * i }' > qw.txt && sample-gen -q -w qw.txt -p '20*((x-5)^2/6.25-1)^2' -E kJ -u nm -r 0:10 -n 20000 -t 300 -s 2 -b 1000 > fine.fek && ./bgen quartic 1000 fine.ref > /dev/null"
t S-fine 0 'wham-gpu -S fine.fek > fine-S.prob && wham-gpu -c fine.fek > fine-c.prob'
ok S-fine-as-c awk -v s="$(rmsd_of fine-S.prob fine.ref)" -v c="$(rmsd_of fine-c.prob fine.ref)" \
    'BEGIN { exit !(s > 0 && c > 0 && s <= 1.01 * c) }'
# pooled input (sample-gen -P: no per-window histograms) gives the same
t_pipe S-pooled-gen 0 "sample-gen -q -p '$TP' -r -180:180:p -w thw.txt -n 5000 -t 300 -s 4 -b 20 -T > ph.txt && sample-gen -q -p '$TP' -r -180:180:p -w thw.txt -n 5000 -t 300 -s 4 -b 20 -P -T > pp.txt"
t S-pooled 0 'wham-gpu -S -T ph.txt > ph.out && wham-gpu -S -T pp.txt > pp.out'
awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF' ph.out > ph.lnp
awk '/^#FEK/ { s++ } s == 1 && !/^#/ && NF' pp.out > pp.lnp
numcmp_files S-pooled-same ph.lnp pp.lnp 1e-9 1e-9
# the bootstrap redraws with the converged factors
t S-bootstrap 0 'wham-gpu -S -B 4 -T thn.fek > thn-B.txt'
ok S-bootstrap-sd sh -c "grep -q '^#COL sd_lnp' thn-B.txt && grep -qx '#BIASEVAL spline' thn-B.txt"
# the default, where no window comes with a logbias section: -S for bins
# of 2 sigma (q100), the centre values for bins of sigma/5 (fine.fek,
# 0.01 nm against sqrt(kT/k) = 0.05 nm; -S gains nothing there, above)
t S-default 0 'wham-gpu -T q100.fek | grep -v "^#PROV" > def.txt && wham-gpu -S -T q100.fek | grep -v "^#PROV" > S.txt'
same_file S-default-same def.txt S.txt
t S-default-fine 0 'wham-gpu -v -T fine.fek | grep -v "^#PROV" > def-fine.txt && wham-gpu -c -T fine.fek | grep -v "^#PROV" > c-fine.txt'
same_file S-default-fine-centre def-fine.txt c-fine.txt
ok S-default-fine-says grep -q 'bins of up to 0.2 window widths.*centre bias' S-default-fine.err
# bins finer than a window width: the centre solve first, kept where the
# bin shape's estimated change of ln p is small against the counts' noise.
# The thesis's 1-D case at 40 bins (0.37 sigma), where the PMF's curvature
# across a bin is what the centre misses: with 2e5 samples a window the
# noise (about 0.005 kT a bin) is below that estimate, the rounds run and
# the PMF beats -c's; with 500 the noise hides it and -c is kept
t_pipe S-check-gen 0 "sample-gen -q -p '$TP' -r -180:180:p -w thw.txt -n 200000 -t 300 -s 5 -b 40 -P > many.fek && sample-gen -q -p '$TP' -r -180:180:p -w thw.txt -n 500 -t 300 -s 5 -b 40 -P > few.fek"
t S-check-many 0 'wham-gpu -v -T many.fek | grep -v "^#PROV" > many-def.prob && wham-gpu -S -T many.fek | grep -v "^#PROV" > many-S.prob && wham-gpu -c many.fek > many-c.prob'
ok S-check-many-says sh -c "grep -q 'bins of up to 0.369 window widths' S-check-many.err && grep -q 'would move ln p.*its rounds (-S)' S-check-many.err"
same_file S-check-many-as-S many-def.prob many-S.prob
ok S-check-many-better awk -v d="$(pmf many-def.prob | rmsd -p "$TP" | awk '$1 == "RMSD" { print $2 }')" \
    -v c="$(pmf many-c.prob | rmsd -p "$TP" | awk '$1 == "RMSD" { print $2 }')" \
    'BEGIN { exit !(d > 0 && d < 0.7 * c) }'
t S-check-few 0 'wham-gpu -v -T few.fek | grep -v "^#PROV" > few-def.prob && wham-gpu -c -T few.fek | grep -v "^#PROV" > few-c.prob'
ok S-check-few-says grep -q 'would move ln p.*the centre bias kept (-c)' S-check-few.err
same_file S-check-few-as-c few-def.prob few-c.prob
# with logbias sections (here the first window's, through bias-build) the
# default uses them and gives the others the centre values
awk '/^#FEK/ { s++ } s == 1' q100.fek > first.fek
awk '/^#FEK/ { s++ } s > 1' q100.fek > rest.fek
t S-default-mixed 0 'bias-build -T first.fek | cat - rest.fek | wham-gpu -T > mixed.txt'
ok S-default-mixed-centre grep -qx '#BIASEVAL centre' mixed.txt
# threads do not change the answer
t S-threads 0 'OMP_NUM_THREADS=1 wham-gpu -S -T sep.fek | grep -v "^#PROV" > s1.txt && OMP_NUM_THREADS=2 wham-gpu -S -T sep.fek | grep -v "^#PROV" > s2.txt'
same_file S-threads-same s1.txt s2.txt

# ---- bad input --------------------------------------------------------------------
hist1() {	# hist1 ROWS: a one-window histogram with these rows
	printf '#FEK 1\n#KIND histogram\n#ROWS %d\n#COL bin i32 1\n#COL count f64 1\n#AXIS x 0 10 open nm\n#BINS 10\n#WINDOW 5 10\n#TEMP 300\n#ENERGY kJ/mol\n#END\n' "$(printf '%s\n' "$@" | grep -c .)"
	printf '%s\n' "$@"
}
hist1 '3 0' '4 0' > empty.fek
t bb-empty 65 'bias-build -w empty.fek'
ok bb-empty-msg grep -q 'section 1: window has no samples' bb-empty.err
t bb-empty-c 0 'bias-build -c empty.fek > /dev/null'
t wg-empty 65 'wham-gpu -w empty.fek'
hist1 '3 2' '4 -1' > neg.fek
t bb-neg 65 'bias-build -w neg.fek'
ok bb-neg-msg grep -q 'row 2: count -1' bb-neg.err
hist1 '3 2' '10 1' > off.fek
t bb-off 65 'bias-build -w off.fek'
ok bb-off-msg grep -q 'row 2: bin 10 outside 0..9' bb-off.err
sed 's/^#COL count f64 1/#COL n f64 1/' neg.fek > cols.fek
t bb-cols 65 'bias-build -w cols.fek'
# -S builds every window's bias itself: logbias sections in the input are
# refused, not silently dropped
t S-logbias 65 'bias-build q100.fek | wham-gpu -S'
ok S-logbias-msg grep -q -- '-S: the input holds logbias sections' S-logbias.err
t S-empty 65 'wham-gpu -S empty.fek'
