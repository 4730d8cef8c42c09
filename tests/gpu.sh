# tests/gpu.sh - make check-gpu: wham-gpu's GPU evaluation against the CPU
# reference on fresh random inputs (a new seed every run, printed), every
# path: windows on a grid in 1, 2 and 3 dimensions, general windows, the
# exact log-space sums, every solver, and the bootstrap.  Tolerance: ln p
# and F within 1e-6 (kT) absolute, both solved to --tol 1e-10, which the
# issue asks of double accumulation.  Skipped unless FEK_TEST_GPU=1 (set by
# make check-gpu on the GPU machine).
. "$TOP/tests/lib.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
section() {	# section N FILE: data rows of the N-th section of a text stream
	awk -v n="$1" '/^#FEK/ { s++ } s == n && !/^#/ && NF' "$2"
}
SEED=${FEK_TEST_SEED:-$(date +%s)}
echo "gpu.sh: seed $SEED"
TOL=1e-6

# probe: a GPU is there and usable
printf -- '-60 0.001\n0 0.001\n60 0.001\n' > w.txt
sample-gen -p '0*x' -r -180:180:p -w w.txt -n 2000 -s "$SEED" |
    histogram -b 30 | bias-build > probe.fek
t gpu-probe 0 "wham-gpu -d gpu < probe.fek > /dev/null"

# cmp_devices NAME FILE [wham-gpu options]: CPU and GPU agree.
cmp_devices() {
	local name=$1 f=$2
	shift 2
	t $name-cpu 0 "wham-gpu -v -T -d cpu --tol 1e-10 $* < $f > $name.cpu"
	t $name-gpu 0 "wham-gpu -v -T -d gpu --tol 1e-10 $* < $f > $name.gpu"
	ok $name-on-gpu grep -qx '#DEVICE gpu' $name.gpu
	section 1 $name.cpu > $name.cpu1
	section 1 $name.gpu > $name.gpu1
	section 2 $name.cpu > $name.cpu2
	section 2 $name.gpu > $name.gpu2
	numcmp_files $name-lnp $name.cpu1 $name.gpu1 0 $TOL
	numcmp_files $name-F $name.cpu2 $name.gpu2 0 $TOL
}

P1='0.6*(1+cos(x*pi/180))+1.4*(1+cos(3*x*pi/180))'
sample-gen -p "$P1" -r -180:180:p -g 60 -k 0.01 -n 3000 -s "$SEED" |
    histogram -T -b 360 > g1.hist
bias-build < g1.hist > g1.fek
for s in iterate newton lbfgs; do
	cmp_devices grid1d-$s g1.fek --solver $s
done
ok grid1d-path grep -q 'window grid' grid1d-lbfgs-gpu.err
# one window split in two half-count sections: not a grid, so the
# general path's products with one column (R = 1)
split_first_window g1.hist g1a.hist g1b.hist
cat g1a.hist g1b.hist | bias-build > gen1.fek
cmp_devices general1d gen1.fek --solver lbfgs
ok general1d-path grep -q 'general windows' general1d-gpu.err

P2='0.3*(1+cos(x*pi/180))+0.7*(1+cos(3*x*pi/180))+0.3*(1+cos(y*pi/180))+0.7*(1+cos(3*y*pi/180))+0.3*cos((x-y)*pi/180)'
awk 'BEGIN { for (i = 0; i < 19; i++) for (j = 0; j < 19; j++)
    printf "%.10g %.10g 0.001 0.001\n", -180 + 20 * i, -180 + 20 * j }' > g2.win
sample-gen -p "$P2" -r -180:180:p -r -180:180:p -w g2.win -n 1000 -s "$SEED" -T |
    histogram -T -b 90 -b 90 > g2.hist
bias-build < g2.hist > g2.fek
cmp_devices grid2d g2.fek --solver lbfgs
# the bias built in wham-gpu: weighted by each window's mean slope (-w;
# one factor per axis, but rows no longer shared: the general path), and
# from a pooled stream of the same windows
cmp_devices grid2d-w g2.hist --solver lbfgs -w
# the bin shape (-S): rounds of solves, the later ones with general windows
cmp_devices grid2d-S g2.hist --solver lbfgs -S
sample-gen -p "$P2" -r -180:180:p -r -180:180:p -w g2.win -n 1000 -s "$SEED" -b 90 -b 90 -P > g2.pool
cmp_devices pooled2d g2.pool --solver lbfgs
# the same data, one window split in two half-count sections: not a grid
split_first_window g2.hist g2a.hist g2b.hist
cat g2a.hist g2b.hist | bias-build > gen2.fek
cmp_devices general2d gen2.fek --solver lbfgs
ok general2d-path grep -q 'general windows' general2d-gpu.err

P3='0.5*(1+cos(x*pi/180))+0.5*(1+cos(y*pi/180))+0.5*(1+cos(z*pi/180))'
awk 'BEGIN { for (i = 0; i < 6; i++) for (j = 0; j < 6; j++) for (k = 0; k < 6; k++)
    printf "%g %g %g 0.002 0.002 0.002\n", -180 + 60 * i, -180 + 60 * j, -180 + 60 * k }' > g3.win
sample-gen -p "$P3" -r -180:180:p -r -180:180:p -r -180:180:p -w g3.win -n 500 -s "$SEED" |
    histogram -b 24 -b 24 -b 24 > g3.hist
bias-build < g3.hist > g3.fek
cmp_devices grid3d g3.fek --solver lbfgs
# -w in 3-D: general windows, products of 24 x 216 x 576
cmp_devices general3d-w g3.hist --solver lbfgs -w
ok general3d-w-path grep -q 'general windows' general3d-w-gpu.err

# log space: T = 1 K, weights spanning e^950 (as in tests/wham.sh)
KS=$(awk 'BEGIN { for (i = 0; i < 20; i++) printf "%s%.17g", i ? " " : "", 10 * 0.0019872042586408316 }')
CS=$(awk 'BEGIN { for (i = 0; i < 20; i++) printf "%s%g", i ? " " : "", i + 0.5 }')
NS=$(awk -v s="$SEED" 'BEGIN { srand(s); for (i = 0; i < 20; i++) printf "%s%d", i ? " " : "", 1000 + int(900 * rand()) }')
"$TOP/tests/gen-wham1d" 20 0 20 0 1 "$CS" "$KS" "$NS" -1 ex3. 'function lp0(x, kt) { return -50 * x }' > ex3.txt
bias-build -c < ex3.txt > ex3.fek
cmp_devices logspace ex3.fek --solver lbfgs
ok logspace-gpu-path grep -q 'log space' logspace-gpu.err
section 1 logspace.gpu > ex3.got
numcmp_files logspace-exact ex3.lnp.want ex3.got 1e-10 1e-8

# bootstrap: the same resampled sets on both devices
cmp_devices boot g1.fek -B 5 -s "$SEED"
