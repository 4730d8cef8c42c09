# tests/gpu-bd.sh - make check-gpu: bd-step's trajectories on the GPU
# (kernels/bd/run.cu) against the CPU reference (lib/bd) and against physics:
#  - the interaction (energy, force, both torques) at random
#    configurations to 1e-10 of each term's size, and each grid's
#    trilinear potential and gradient at random points to 1e-12, CPU =
#    GPU (bd-check gpu): small
#    solutes on smooth grids made here, and barnase-barstar on APBS grids
#    where FEK_BD_GRIDS names a folder holding barnase.pqr, barstar.pqr,
#    barnase.dx[.gz], barstar.dx[.gz] (scripts/bench-bd makes one);
#  - trajectories cut after three steps (every one stuck): the same times
#    and closest approaches as the CPU's to 1e-9;
#  - uncharged spheres, 10^5 trajectories: beta = 0.25 and k = 4 pi D R
#    within 2 binomial errors; Coulomb point charges on grids (l = -7.14
#    A, R = 20 A): k/k_Smol = 1.189, 10^5 trajectories, within 2 binomial
#    errors; the GPU's rate equals the CPU's within their errors;
#  - the same bytes twice, and for -f shards concatenated;
#  - solutes of 300 atoms each (every sub-lane of bd_eval.h's order
#    summing several): CPU = GPU sums (bd-check gpu), and the same rows
#    whether warps run every trajectory to its end (FEK_BD_BLOCKS=0),
#    blocks take over the last ones (the default; some must have been
#    handed over) or blocks run them all.
# Skipped unless FEK_TEST_GPU is set.  FEK_TEST_GPU_AS=cpu runs the
# checks with -d cpu (a check of the script without a GPU).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-bd.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	_t_record SKIP gpu-bd "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
G=${FEK_TEST_GPU_AS:-gpu}
SEED=${FEK_TEST_SEED:-$(( $(date +%s) % 1000000 ))}
echo "gpu-bd: device $G, seed $SEED (FEK_TEST_SEED=$SEED repeats it)"

# ---- the interaction and the grids: CPU = GPU --------------------------------
{ atom 1 1.0 0.5 -0.3 0.6 1.5; atom 2 -2.1 1.2 0.8 -0.4 1.7; atom 3 0.3 -2.5 1.9 0.9 1.2
  atom 4 2.2 2.0 -1.7 -0.7 1.6; atom 5 -0.8 -0.6 -2.4 0.3 1.5; } > s5a.pqr
{ atom 1 -1.4 0.2 0.9 -0.5 1.5; atom 2 1.8 -1.1 0.4 0.8 1.7; atom 3 0.2 2.3 -1.6 -0.6 1.2
  atom 4 -0.9 -2.0 -1.2 0.4 1.6; } > s5b.pqr
echo "1 1" > one.rxn
mkdx wa.dx 31 -12 0.8 "sin(0.3 * x) * cos(0.2 * y) + 0.1 * z * z / (1 + x * x)"
mkdx wb.dx 27 -10 0.77 "exp(-0.01 * (x * x + y * y + z * z)) * (1 + 0.2 * x - 0.3 * y * z)"
if [ "$G" = gpu ]; then
	t eval-small 0 "$BDCHECK gpu s5a.pqr wa.dx s5b.pqr wb.dx one.rxn 0.1 4000 $SEED"
	t eval-onegrid 0 "$BDCHECK gpu s5a.pqr - s5b.pqr wb.dx one.rxn 0.05 2000 $SEED"
	if [ -n "${FEK_BD_GRIDS:-}" ]; then
		d=$FEK_BD_GRIDS
		ga=$(ls "$d"/barnase.dx* | head -n 1)
		gb=$(ls "$d"/barstar.dx* | head -n 1)
		t eval-barnase 0 "$BDCHECK gpu $d/barnase.pqr $ga $d/barstar.pqr $gb $d/contacts 0.05 500 $SEED"
	else
		_t_record SKIP eval-barnase "FEK_BD_GRIDS unset"
	fi
fi

# ---- three steps: the same trajectories -----------------------------------
{ atom 1 0 0 0 0.8 1.5; atom 2 3 0 0 -0.5 1.5; atom 3 0 3 0 0.2 1.5; } > t3a.pqr
{ atom 1 0 0 0 -0.6 1.5; atom 2 0 0 3 0.4 1.5; } > t3b.pqr
mkdx ta.dx 41 -20 1 "2 * exp(-0.05 * sqrt(x * x + y * y + z * z)) / (1 + 0.1 * (x * x + y * y + z * z))"
mkdx tb.dx 41 -20 1 "-1.5 * exp(-0.04 * sqrt(x * x + y * y + z * z)) / (1 + 0.12 * (x * x + y * y + z * z))"
T3="--diff 0.01:0.01 --rdiff 0.001:0.002 --bsphere 12 --qsphere 40 --contacts 1 --rxn-dist 2 --ionic 0.1 --max-steps 3 --dt 2:2 -s $SEED -T"
t short-cpu 0 "bd-step -d cpu -n 3000 $T3 t3a.pqr ta.dx t3b.pqr tb.dx one.rxn > short-cpu.txt"
t short-gpu 0 "bd-step -d $G -n 3000 $T3 t3a.pqr ta.dx t3b.pqr tb.dx one.rxn > short-gpu.txt"
short_same() {
	paste <(rows short-cpu.txt) <(rows short-gpu.txt) | awk '
	{ if ($1 != $7 || $2 != $8 || $3 != $9) bad = 1
	  for (c = 4; c <= 6; c++) { a = $c; b = $(c + 6); d = (a - b) / (a + 1e-300); if (d < 0) d = -d; if (d > m) m = d } }
	END { printf "largest relative difference %g\n", m > "/dev/stderr"; exit bad || m > 1e-9 || NR != 3000 }'
}
ok short-same short_same

# ---- rates, 10^5 trajectories ------------------------------------------------
atom 1 0 0 0 0 0 > n.pqr
SPH="--diff 0.01:0 --rdiff 0:0 --bsphere 50 --qsphere 100 --contacts 1 --dt 0.05:100 --dt-range 20:100 -s $SEED"
N=100000
t_pipe smol 0 "bd-step -d $G -v $SPH -n $N --rxn-dist 20 n.pqr - n.pqr - one.rxn 2> smol.log | bd-rate -T > smol.txt"
read -r b k klo khi < <(awk '!/^#/ { print $6, $10, $11, $12 }' smol.txt)
near smol-beta "$b" 0.25 "$(awk -v n=$N 'BEGIN { print 2 * sqrt(0.25 * 0.75 / n) }')"
KS=$(awk 'BEGIN { printf "%.6g", 4 * 3.141592653589793 * 0.01 * 20 * 6.02214076e8 }')
within2 smol-k "$k" "$klo" "$khi" "$KS"
atom 1 0 0 0 1 0 > p.pqr
atom 1 0 0 0 -1 0 > m.pqr
mkdx p.dx 41 -40 2 "(r = sqrt(x*x + y*y + z*z)) > 0 ? $LB / r : 100"
mkdx m.dx 41 -40 2 "(r = sqrt(x*x + y*y + z*z)) > 0 ? -$LB / r : -100"
t_pipe coulomb 0 "bd-step -d $G $SPH -n $N --rxn-dist 20 --ionic 0 --dh-radius 0:0 p.pqr p.dx m.pqr m.dx one.rxn | bd-rate -T > coul.txt"
KC=$(awk -v l="$LB" -v ks="$KS" 'BEGIN { x = -l / 20; printf "%.6g", ks * x / (exp(x) - 1) }')
read -r k klo khi < <(awk '!/^#/ { print $10, $11, $12 }' coul.txt)
within2 coulomb-k "$k" "$klo" "$khi" "$KC"
# the CPU's rate on other trajectories of the same system agrees
t_pipe coulomb-cpu 0 "bd-step -d cpu $SPH -f $N -n 20000 --rxn-dist 20 --ionic 0 --dh-radius 0:0 p.pqr p.dx m.pqr m.dx one.rxn | bd-rate -T > coulc.txt"
read -r bc nc < <(awk '!/^#/ { print $6, $2 }' coulc.txt)
read -r bg ng < <(awk '!/^#/ { print $6, $2 }' coul.txt)
ok coulomb-cpu-gpu awk -v a="$bc" -v na="$nc" -v b="$bg" -v nb="$ng" 'BEGIN {
	if (na + 0 < 1 || nb + 0 < 1) exit 1
	s = sqrt(a * (1 - a) / na + b * (1 - b) / nb); d = a - b; if (d < 0) d = -d; exit !(d <= 3 * s) }'

# ---- the same bytes: twice, and sharded --------------------------------------
R="bd-step -d $G $SPH --rxn-dist 20 -T"
t rep1 0 "$R -n 5000 n.pqr - n.pqr - one.rxn > rep1.txt"
t rep2 0 "$R -n 5000 n.pqr - n.pqr - one.rxn > rep2.txt"
rows rep1.txt > rep1.rows
rows rep2.txt > rep2.rows
same_file repeat-same rep1.rows rep2.rows
t sh1 0 "$R -n 2000 n.pqr - n.pqr - one.rxn > sh1.txt"
t sh2 0 "$R -f 2000 -n 3000 n.pqr - n.pqr - one.rxn > sh2.txt"
rows sh1.txt sh2.txt > sh.rows
same_file shards-same sh.rows rep1.rows

# ---- warps and blocks: the same rows -----------------------------------------
# 300 atoms a solute, in a ball of 9 A, charges +-0.3 (seeded awk)
ball() {
	awk -v seed="$1" -v s0="$2" 'BEGIN { srand(seed)
		for (i = 1; i <= 300; ) {
			x = 18 * rand() - 9; y = 18 * rand() - 9; z = 18 * rand() - 9
			if (x * x + y * y + z * z > 81) continue
			q = (rand() < 0.5 ? -0.3 : 0.3) * s0
			printf "ATOM  %5d  X   SPH     1    %8.3f%8.3f%8.3f %7.4f %6.4f\n", i, x, y, z, q, 1.2
			i++ } }'
}
ball 11 1 > ba.pqr
ball 12 -1 > bb.pqr
if [ "$G" = gpu ]; then
	t eval-ball 0 "$BDCHECK gpu ba.pqr ta.dx bb.pqr tb.dx one.rxn 0.1 2000 $SEED"
fi
B="bd-step -d $G --diff 0.02:0.01 --rdiff 0.0005:0.0005 --bsphere 22 --qsphere 34 --contacts 1 --rxn-dist 3 --ionic 0.1 --dt 1:4 -s $SEED -T"
t_pipe ball-warps 0 "FEK_BD_BLOCKS=0 $B -n 3000 ba.pqr ta.dx bb.pqr tb.dx one.rxn > bw.txt"
t_pipe ball-end 0 "$B -v -n 3000 ba.pqr ta.dx bb.pqr tb.dx one.rxn > be.txt 2> be.log"
t_pipe ball-blocks 0 "FEK_BD_BLOCKS=all $B -n 3000 ba.pqr ta.dx bb.pqr tb.dx one.rxn > bk.txt"
rows bw.txt > bw.rows
rows be.txt > be.rows
rows bk.txt > bk.rows
same_file ball-end-same bw.rows be.rows
same_file ball-blocks-same bw.rows bk.rows
if [ "$G" = gpu ]; then
	ok ball-handed-over awk '/trajectories handed over/ { l = $0; sub(/.*[(]/, "", l); n = l + 0 }
	    END { print "handed over:", n + 0 > "/dev/stderr"; exit !(n > 0) }' be.log
fi
