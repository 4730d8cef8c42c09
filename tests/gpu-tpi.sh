# tests/gpu-tpi.sh - make check-gpu: tpi-gpu's insertions and deletions on
# the GPU (kernels/tpi/insert.cu) against the CPU reference (lib/tpi): with
# --precision double the same frames and seed give every move's energy to
# 1e-11 relative (1e-11 kT near zero), the sums to 1e-12 and the same
# histograms (LJ truncated with the tail, shifted, two types mixed,
# force-shifted, a triclinic cell, a box narrower than twice the cutoff,
# 32000 particles that do not fit in shared memory); with the GPU's
# default mixed arithmetic every insertion energy is within 1e-5 kT of
# the CPU's double precision (where beta u < 50; 1e-6 relative above) and
# the sums' logarithms within 1e-5; a GPU run gives the same bytes twice,
# for any block size, with the frame read from global memory instead of
# shared memory, and with each thread finding its own neighbour runs.
# Skipped unless FEK_TEST_GPU is set.
#
# FEK_TEST_GPU_AS=cpu runs every check with -d cpu instead: a check of this
# script where there is no GPU.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-tpi.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-tpi "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
G=${FEK_TEST_GPU_AS:-gpu}
SEED=${FEK_TEST_SEED:-$(( $(date +%s) % 1000000 ))}
echo "gpu-tpi: device $G, seed $SEED (FEK_TEST_SEED=$SEED repeats it)"

noprov() { grep -v '^#PROV' "$@"; }
# uerr A B: the largest |u_A - u_B| (column 2, kT) where u_A < 50, and the
# largest relative difference where u_A >= 50 (inf must match), of two
# row files of raw energies
uerr() {
	paste "$1" "$2" | awk '{ a = $2; b = $(2 + NF / 2)
	    if (a == b) { n++; next }
	    if (a ~ /inf/ || b ~ /inf/) { bad = 1; next }
	    d = a - b; if (d < 0) d = -d
	    if (a < 50) { if (d > m) m = d } else { d /= (a < 0 ? -a : a); if (d > r) r = d }; n++ }
	    END { if (bad || n == 0) print 1, 1; else printf "%.3g %.3g\n", m, r }'
}
# absmax A B COLS: the largest absolute difference of the columns COLS
absmax() {
	paste "$1" "$2" | awk -v cols="$3" '
	BEGIN { nc = split(cols, c, " ") }
	{ h = NF / 2; for (i = 1; i <= nc; i++) { d = $(c[i]) - $(c[i] + h); if (d < 0) d = -d; if (d > m) m = d } n++ }
	END { if (n == 0) print 1; else printf "%.3g\n", m }'
}

# ---- frames ------------------------------------------------------------------------
MD="md-gpu -d cpu -i baoab -s $SEED"
t frames 0 "$MD --lattice fcc:6 --density 0.8 -t 2 -n 300 -e 0 --checkpoint m.fek &&
	$MD --restart m.fek -t 0.851 --rc 2.5 --tail -n 400 -e 100 -T > lj.txt"
t frames-mix 0 "awk '/^#NTYPES/ { print \"#NTYPES 2\"; next } /^#TYPE 0/ { print; print \"#TYPE 1 B 1\"; next }
	/^#PAIR/ { next } /^#/ { print; next } { \$2 = (\$1 % 3 == 0); print }' lj.txt > mix.txt"
t frames-tric 0 "awk '/^#BOX/ { print \"#BOX\", \$2, \$3, \$4, 0.9, -1.3, 0.7; next } { print }' lj.txt > tric.txt"
# 108 particles in a cube of edge 5.13: narrower than twice the cutoff 3
t frames-small 0 "$MD --lattice fcc:3 --density 0.8 -t 1.5 --rc 1.5 -n 200 -e 50 -T > small.txt"
t frames-big 0 "$MD --lattice fcc:20 --density 0.8 -t 1.5 --rc 2.5 -n 20 -e 10 > big.fek"

# both NAME OPTIONS: the same job on the CPU and the device, sums and
# histograms, then every move's energy
both() {
	local name=$1
	shift
	t "$name-cpu" 0 "tpi-gpu -d cpu --precision double -T -s $SEED $* > $name-c.txt" &&
	t "$name-gpu" 0 "tpi-gpu -d $G --precision double -T -s $SEED $* > $name-g.txt" &&
	le "$name-sums" "$(relmax <(section tpisums $name-c.txt) <(section tpisums $name-g.txt) '1 2 3 4 5 6 7 8 9 10')" 1e-12 &&
	le "$name-hist" "$(histdiff <(section tpihist $name-c.txt) <(section tpihist $name-g.txt))" 1e-6 || return 0
	if [ "${NO_E:-0}" = 0 ]; then
		t "$name-cpu-E" 0 "tpi-gpu -d cpu --precision double -E -T -s $SEED $* > $name-ce.txt" &&
		t "$name-gpu-E" 0 "tpi-gpu -d $G --precision double -E -T -s $SEED $* > $name-ge.txt" &&
		# relative, or absolute in kT for energies near zero
		le "$name-energies" "$(relmax <(rows $name-ce.txt) <(rows $name-ge.txt) '1 2 3' 1)" 1e-11
	fi
	return 0
}
# mixed NAME OPTIONS: the device's mixed arithmetic against the CPU's
# double precision, insertions only: energies (uerr) and the sums
mixed() {
	local name=$1
	shift
	t "$name-mixed-E" 0 "tpi-gpu -d $G --precision mixed -E -T -s $SEED --no-deletions $* > $name-me.txt" &&
	t "$name-mixed" 0 "tpi-gpu -d $G --precision mixed -T -s $SEED --no-deletions $* > $name-m.txt" &&
	t "$name-double-E" 0 "tpi-gpu -d cpu --precision double -E -T -s $SEED --no-deletions $* > $name-de.txt" &&
	t "$name-double" 0 "tpi-gpu -d cpu --precision double -T -s $SEED --no-deletions $* > $name-d.txt" || return 0
	set -- $(uerr <(rows $name-de.txt) <(rows $name-me.txt))
	echo "gpu-tpi: $name, mixed against double: |du| <= $1 kT (u < 50 kT), $2 relative above"
	le "$name-mixed-u" "$1" 1e-5
	le "$name-mixed-u-rel" "$2" 1e-6
	le "$name-mixed-sums" "$(absmax <(section tpisums $name-d.txt) <(section tpisums $name-m.txt) '4 5')" 1e-5
	ok "$name-mixed-key" grep -q '^#PRECISION mixed' $name-m.txt
}
mixed lj-tail -n 1000000 lj.txt
mixed lj-shift -n 300000 --lj 1:1:2.5 --shift lj.txt
mixed mixture -n 300000 --lj 0:0:1:1 --lj 1:1:0.5:0.88 --mix lb --type 1 --tail mix.txt
mixed triclinic -n 300000 --bins -100:9.9e10:1e4 tric.txt
mixed big -n 1000000 -t 1.5 big.fek
# force-shifted pairs are never in single precision: the same bytes
t fshift-mixed 0 "tpi-gpu -d $G --precision mixed -T -s $SEED -n 100000 --lj 1:1:2.5 --force-shift lj.txt | grep -v '^#PRECISION\|^#PROV' > fm.txt"
t fshift-double 0 "tpi-gpu -d $G --precision double -T -s $SEED -n 100000 --lj 1:1:2.5 --force-shift lj.txt | grep -v '^#PRECISION\|^#PROV' > fd.txt"
ok fshift-mixed-same cmp -s fm.txt fd.txt

both lj-tail -n 200000 lj.txt
both lj-shift -n 100000 --lj 1:1:2.5 --shift lj.txt
both mixture -n 100000 --lj 0:0:1:1 --lj 1:1:0.5:0.88 --mix lb --type 1 --tail mix.txt
both fshift -n 100000 --lj 1:1:2.5 --force-shift lj.txt
# (tilting a liquid's cell makes overlaps: deletions of 10^6 kT, and of
# 5e9 kT with FEK_TEST_SEED=20261125: the histogram reaches 1e11 kT)
both triclinic -n 100000 --bins -100:9.9e10:1e4 tric.txt
both small-box -n 50000 -t 1.5 --lj 1:1:3 small.txt
both big -n 300000 -t 1.5 big.fek

# ---- the same bytes: twice, any block size, frame in global memory -----------------
t det-1 0 "tpi-gpu -d $G -n 1000000 -s $SEED lj.txt > d1.fek"
t det-2 0 "tpi-gpu -d $G -n 1000000 -s $SEED lj.txt > d2.fek"
ok det-same cmp -s d1.fek d2.fek
for B in 64 512 1024; do
	t det-block-$B 0 "FEK_TPI_BLOCK=$B tpi-gpu -d $G -n 1000000 -s $SEED lj.txt > d-$B.fek"
	ok det-block-same-$B cmp -s d1.fek d-$B.fek
done
t det-global 0 "FEK_TPI_NOSMEM=1 tpi-gpu -d $G -n 1000000 -s $SEED lj.txt > dg.fek"
ok det-global-same cmp -s d1.fek dg.fek
t det-thread 0 "FEK_TPI_NOWARP=1 tpi-gpu -d $G -n 1000000 -s $SEED lj.txt > dt.fek"
ok det-thread-same cmp -s d1.fek dt.fek
# 5 x 10^6 insertions: more than one chunk of the GPU's sort
NO_E=1 both chunks -n 5000000 --no-deletions lj.txt
