# tests/gpu-tpi-mol.sh - make check-gpu: tpi-gpu --top's moves of a rigid
# molecule on the GPU (kernels/tpi/mol.cu) against the CPU reference
# (lib/tpi/mol_insert.c), both double precision: the same frames and seed
# give every move's energy to 1e-9 relative (1e-9 kT near zero; the
# pairs are summed in another order, and sin and cos place the
# molecule to a unit of the last place), the sums to 1e-9 and the same
# histograms.  The systems of tests/tpi-mol.sh (tests/lib-tpi.sh):
# TIP4P/2005 with PME at rc = L/2, with a reaction field, a box that
# changes between frames, 2136 waters in 8 cells a side, a tilted cell,
# an all-atom methane the frames lack, the screen (--screen) off, at 150
# kT and over two chunks of insertions; and, where FEK_MM_GPU_DATA holds
# them (scripts/mm-gpu-data), SPC/E and OPLS-AA TIP4P with PME of order
# 6.  Then the same bytes from two GPU runs, and a molecule of more sites
# than the GPU takes refused with 69 (-d gpu) or moved on the CPU (-d
# auto).  Skipped unless FEK_TEST_GPU is
# set; FEK_TEST_GPU_AS=cpu runs every check with -d cpu instead (a check
# of this script where there is no GPU).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-tpi.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-tpi-mol "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
G=${FEK_TEST_GPU_AS:-gpu}
SEED=${FEK_TEST_SEED:-$(( $(date +%s) % 1000000 ))}
echo "gpu-tpi-mol: device $G, seed $SEED (FEK_TEST_SEED=$SEED repeats it)"
tpi_mol_inputs || { fail gpu-tpi-mol-inputs "the inputs could not be made"; exit 0; }

# both NAME OPTIONS: the same job on the CPU and the device: the sums and
# histograms, then every move's energy
both() {
	local name=$1
	shift
	t "$name-cpu" 0 "tpi-gpu -d cpu -T -t 300 -s $SEED $* > $name-c.txt" &&
	t "$name-gpu" 0 "tpi-gpu -d $G -T -t 300 -s $SEED $* > $name-g.txt" &&
	le "$name-sums" "$(relmax <(section tpisums $name-c.txt) <(section tpisums $name-g.txt) '1 2 3 4 5 6 7 8 9 10')" 1e-9 &&
	le "$name-hist" "$(histdiff <(section tpihist $name-c.txt) <(section tpihist $name-g.txt))" 1e-6 || return 0
	t "$name-cpu-E" 0 "tpi-gpu -d cpu -E -T -t 300 -s $SEED $* > $name-ce.txt" &&
	t "$name-gpu-E" 0 "tpi-gpu -d $G -E -T -t 300 -s $SEED $* > $name-ge.txt" || return 0
	ok "$name-moves" test "$(rows $name-ce.txt | wc -l)" = "$(rows $name-ge.txt | wc -l)"
	# relative, or absolute in kT for energies near zero
	le "$name-energies" "$(relmax <(rows $name-ce.txt) <(rows $name-ge.txt) '1 2' 1)" 1e-9
	return 0
}

both tip4p2005 --top tip4p2005.top --mdp tip4p2005.mdp -n 100000 tip4p2005-267.gro
both tip4p2005-rf --top tip4p2005.top --mdp rf.mdp -n 100000 tip4p2005-267.gro
both tip4p2005-box2 --top tip4p2005.top --mdp tip4p2005.mdp -n 50000 npt.gro
both big --top big.top --mdp big.mdp -n 50000 big.gro
both tilt --top big.top --mdp big.mdp -n 20000 tilt.gro
both methane-aa --top aa.top --mdp tip4p2005.mdp --config methane.gro -n 50000 tip4p2005-267.gro
both methane-ua --top ua.top --mdp tip4p2005.mdp -n 50000 tip4p2005-267.gro
# the screen (default 300 kT) off and at another W; over a million
# insertions the screen's sentinel cell sorts last in each chunk of 2^20
both big-noscreen --top big.top --mdp big.mdp --screen 0 -n 20000 big.gro
both tip4p2005-screen150 --top tip4p2005.top --mdp tip4p2005.mdp --screen 150 -n 100000 tip4p2005-267.gro
both chunks --top tip4p2005.top --mdp tip4p2005.mdp -n 1100000 tip4p2005-267.gro
D=${FEK_MM_GPU_DATA:-}
if [ -n "$D" ] && [ -f "$D/spce216.top" ] && [ -f "$D/tip4p.top" ]; then
	cp "$D/spc216.gro" "$D/spce216.top" "$D/tip4p.gro" "$D/tip4p.top" .
	both spce-pme6 --top spce216.top --mdp pme6.mdp -n 50000 spc216.gro
	both tip4p-pme --top tip4p.top --mdp pme.mdp -n 50000 tip4p.gro
else
	skip gpu-tpi-mol-gmx "FEK_MM_GPU_DATA has no spce216.top or tip4p.top (scripts/mm-gpu-data)"
fi

# the same bytes twice; -v says where the moves ran
t det-1 0 "tpi-gpu -d $G -v --top tip4p2005.top --mdp tip4p2005.mdp -t 300 -n 200000 -s $SEED tip4p2005-267.gro > d1.fek 2> d1.log"
t det-2 0 "tpi-gpu -d $G -v --top tip4p2005.top --mdp tip4p2005.mdp -t 300 -n 200000 -s $SEED tip4p2005-267.gro > d2.fek 2> d2.log"
ok det-same cmp -s d1.fek d2.fek
if [ "$G" = gpu ]; then
	ok det-on-gpu grep -q 'frames on the GPU' d1.log
	grep 'tpi-gpu: ' d1.log | sed 's/^/gpu-tpi-mol: /'
fi

# a molecule of 17 sites (a rigid chain of LJ beads, --config's) is more
# than a thread holds: 69 on the GPU, and the CPU takes it
awk 'BEGIN { print "chain"; print 17
    for (i = 1; i <= 17; i++) printf "%5dCHN  %5s%5d%8.4f%8.4f%8.4f\n", 1, "C" i, i, 1 + 0.15 * i, 1, 1
    print "   4.00000   4.00000   4.00000" }' > chain.gro
solute_top chain.top 'CB 6 14.0 0.0 A 0.35 0.5' \
    "[ moleculetype ]\nCHN 3\n[ atoms ]\n$(awk 'BEGIN { for (i = 1; i <= 17; i++) printf "%d CB 1 CHN C%d 1 0 14.0\\n", i, i }')" CHN 1
if [ "$G" = gpu ]; then
	t chain-gpu 69 "tpi-gpu -d gpu --top chain.top --mdp tip4p2005.mdp --config chain.gro -t 300 -n 10 tip4p2005-267.gro"
	says chain-gpu 'has 17 sites; the GPU takes at most 16'
	# -d auto takes the CPU for it
	t chain-auto 0 "tpi-gpu -d auto -v --top chain.top --mdp tip4p2005.mdp --config chain.gro -t 300 -n 10 tip4p2005-267.gro > chain-auto.fek 2> chain-auto.log"
	ok chain-auto-cpu grep -q 'frames on the CPU' chain-auto.log
fi
t chain-cpu 0 "tpi-gpu -d cpu -q --top chain.top --mdp tip4p2005.mdp --config chain.gro -t 300 -n 10 tip4p2005-267.gro > chain.fek"
