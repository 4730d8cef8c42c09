# tests/gpu-mm-run.sh - make check-gpu: md-gpu --top dynamics resident on
# the GPU (kernels/mm/run.cu: the integrators, SETTLE, SHAKE and RATTLE on
# the device) against the CPU (lib/mm/run.c).  The GPU draws the CPU's
# Philox normals and, with --precision double, its forces equal the CPU's
# to 1e-12, so its log follows the CPU's until chaos amplifies the
# rounding: over 100 steps of 2 fs the potential energies of the logs
# agree within 1e-8 relative and the last frames' positions within 1e-8
# nm, for 216 SPC/E waters (SETTLE, reaction field; Langevin and velocity
# Verlet) and alanine dipeptide in vacuum (SHAKE and RATTLE on h-bonds);
# likewise over 30 steps for 5832 waters with PME, where the pair list
# (kernels/mm/nblist.cu) is rebuilt, and a drop of water in a large box,
# where its rows overflow and grow; in mixed precision the large box
# within 1e-5; the run resident on the GPU repeats to the bit and equals
# the host-driven one (FEK_MM_HOSTRUN=1); velocity Verlet conserves the
# energy over 2000 steps in both precisions (sd(E) / sd(K) < 0.05, as
# tests/mm-md.sh on the CPU); velocity Verlet with v-rescale and with
# the Nose-Hoover chain follows the CPU's log, H included, and over 4000
# steps holds 300 K within 3 % and H within 2e-4 of |E| (tests/mm-md.sh's
# limits); the Monte Carlo barostat follows the CPU's and the host-driven
# run's volumes, and gives an ideal gas its exact <V> and sd(V).  Inputs as tests/gpu-mm.sh (GROMACS here,
# else $FEK_MM_GPU_DATA).  Skipped unless FEK_TEST_GPU.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-mm-run "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
if [ -n "${FEK_MM_GPU_DATA:-}" ]; then
	D=$FEK_MM_GPU_DATA
elif have gmx; then
	G=/usr/share/gromacs/top
	t inputs 0 "cp $G/spc216.gro . && cp $TOP/testdata/mm/spce216.top . &&
		$(ala2_amber ala2.top)"
	D=.
else
	skip gpu-mm-run "no gmx and no FEK_MM_GPU_DATA"
	exit 0
fi
[ -f "$D/spce216.top" ] || cp "$TOP/testdata/mm/spce216.top" .
S=$D/spce216.top
[ -f "$S" ] || S=spce216.top
W=$D/spc216.gro

printf 'integrator = sd\ndt = 0.002\ntau-t = 1\nref-t = 300\ngen-vel = yes\ngen-temp = 300\ncoulombtype = Reaction-Field\nepsilon-rf = 0\nrcoulomb = 0.9\nrvdw = 0.9\n' > wsd.mdp
sed 's/^integrator = sd/integrator = md-vv/' wsd.mdp > wvv.mdp
printf 'integrator = sd\ndt = 0.002\ntau-t = 1\nref-t = 300\ngen-vel = yes\ngen-temp = 300\nconstraints = h-bonds\ncoulombtype = Cut-off\nrcoulomb = 1.0\nrvdw = 1.0\n' > asd.mdp

# logdiff A B: the largest relative difference of the logs' pot column
logdiff() {
	awk 'FNR == 1 { f++ } f == 1 && /^#COL/ { nc++; if ($2 == "pot") pc = nc } /^#/ { next }
	    f == 1 { u[$2] = $pc; n++ } f == 2 && ($2 in u) { d = $pc - u[$2]; d = d < 0 ? -d : d; a = u[$2] < 0 ? -u[$2] : u[$2]; d /= a; if (d > m) m = d; k++ }
	    END { printf "%.3g\n", (k == n && n > 0 ? m : 999) }' "$1" "$2"
}
# hdiff A B: the largest difference of the logs' H (column 21), row by
# row, over the first log's |E| (column 19)
hdiff() {
	paste <(grep -v '^#' "$1") <(grep -v '^#' "$2") | awk '{ n = NF / 2; d = $21 - $(n + 21); if (d < 0) d = -d; a = $19 < 0 ? -$19 : $19; d /= a; if (d > m) m = d } END { printf "%.3g\n", m }'
}
# framediff A B: the largest position difference (nm) of the last frames
framediff() {
	awk 'FNR == 1 { f++ } /^#KIND/ { s[f]++; r[f] = 0 } /^#/ { next }
	    { r[f]++; if (f == 1) { x[s[1], r[1]] = $1; y[s[1], r[1]] = $2; z[s[1], r[1]] = $3 }
	      else if (s[2] == s[1]) { d = $1 - x[s[2], r[2]]; if (d < 0) d = -d; if (d > m) m = d
		d = $2 - y[s[2], r[2]]; if (d < 0) d = -d; if (d > m) m = d; d = $3 - z[s[2], r[2]]; if (d < 0) d = -d; if (d > m) m = d; k++ } }
	    END { printf "%.3g\n", (k > 0 ? m : 999) }' "$1" "$2"
}

for c in "water-sd $S $W wsd.mdp" "water-vv $S $W wvv.mdp" "ala2-sd $D/ala2.top $D/ala2.gro asd.mdp"; do
	set -- $c
	R="md-gpu --top $2 --mdp $4 --config $3 -n 100 -e 100 --thermo 10 -T"
	t $1-cpu 0 "$R -d cpu -l $1-cpu.log > $1-cpu.fek"
	t $1-gpu 0 "$R -d gpu --precision double -l $1-gpu.log > $1-gpu.fek"
	d=$(logdiff $1-cpu.log $1-gpu.log)
	echo "$1: 100 steps, largest relative difference of pot GPU - CPU $d"
	le $1-pot "$d" 1e-8
	d=$(framediff $1-cpu.fek $1-gpu.fek)
	echo "$1: last frame, largest position difference GPU - CPU $d nm"
	le $1-frame "$d" 1e-8
done
# the pair list where the box holds cells (5832 SPC/E waters, 5.59 nm,
# PME): a skin of 0.02 nm has it rebuilt every few steps, 0.1 now
# and then, and neither changes the forces
if [ -f "$D/big.gro" ]; then
	BG=$D/big.gro
else
	t big-inputs 0 "gmx genconf -f $W -nbox 3 3 3 -o big.gro > gc.log 2>&1"
	BG=big.gro
fi
sed 's/^  SOL  216$/  SOL  5832/' "$S" > big.top
printf 'integrator = sd\ndt = 0.002\ntau-t = 1\nref-t = 300\ngen-vel = yes\ngen-temp = 300\ncoulombtype = PME\nrcoulomb = 0.9\nrvdw = 0.9\nDispCorr = EnerPres\n' > bsd.mdp
R="md-gpu --top big.top --mdp bsd.mdp --config $BG -n 30 -e 30 --thermo 5 -T"
t big-cpu 0 "$R -d cpu -l big-cpu.log > big-cpu.fek"
for sk in 0.02 0.1; do
	t big-gpu-$sk 0 "$R -d gpu --precision double -v --skin $sk -l big-gpu-$sk.log > big-gpu-$sk.fek 2> big-$sk.err"
	grep 'pair list' big-$sk.err
	d=$(logdiff big-cpu.log big-gpu-$sk.log)
	echo "5832 waters, skin $sk: 30 steps, largest relative difference of pot GPU - CPU $d"
	le big-$sk-pot "$d" 1e-8
	d=$(framediff big-cpu.fek big-gpu-$sk.fek)
	le big-$sk-frame "$d" 1e-8
done
# mixed precision (the default on the GPU): the same run within 1e-5,
# the same bits twice
t big-gpu-mixed 0 "$R -d gpu -l big-mixed.log > big-mixed.fek"
d=$(logdiff big-cpu.log big-mixed.log)
echo "5832 waters, mixed precision: 30 steps, largest relative difference of pot GPU - CPU $d"
le big-mixed-pot "$d" 1e-5
d=$(framediff big-cpu.fek big-mixed.fek)
echo "5832 waters, mixed precision: last frame, largest position difference GPU - CPU $d nm"
le big-mixed-frame "$d" 1e-5
t big-mixed-again 0 "$R -d gpu -l big-mixed2.log > big-mixed2.fek && grep -v '^#PROV' big-mixed.fek > m1 && grep -v '^#PROV' big-mixed2.fek | cmp - m1"
n=$(sed -n 's/.*built \([0-9]*\) times.*/\1/p' big-0.02.err)
echo "skin 0.02: $n builds in 30 steps"
le big-rebuilt 3 "${n:-0}"
# a drop of 216 waters in a 6 nm box: rows sized for the box's mean
# density overflow at the first build (those atoms search all atoms),
# then grow
awk 'NR == 1 { print; next } { l = $0 } NR > 2 && prev != "" { print prev } { prev = l } END { print "   6.00000   6.00000   6.00000" }' "$W" > drop.gro
R="md-gpu --top $S --mdp wsd.mdp --config drop.gro -n 30 -e 30 --thermo 5 -T"
t drop-cpu 0 "$R -d cpu -l drop-cpu.log > drop-cpu.fek"
t drop-gpu 0 "$R -d gpu --precision double -v -l drop-gpu.log > drop-gpu.fek 2> drop.err"
grep 'pair list' drop.err
le drop-pot "$(logdiff drop-cpu.log drop-gpu.log)" 1e-8
le drop-frame "$(framediff drop-cpu.fek drop-gpu.fek)" 1e-8

t water-gpu-again 0 "md-gpu --top $S --mdp wsd.mdp --config $W -n 100 -e 100 --thermo 10 -T -d gpu --precision double -l again.log > again.fek && grep -v '^#PROV' again.fek > a1 && grep -v '^#PROV' water-sd-gpu.fek | cmp - a1"
t ala2-hostrun 0 "FEK_MM_HOSTRUN=1 md-gpu --top $D/ala2.top --mdp asd.mdp --config $D/ala2.gro -n 100 -e 100 --thermo 10 -T -d gpu --precision double -l host.log > host.fek"
d=$(logdiff host.log ala2-sd-gpu.log)
echo "ala2: resident against host-driven, largest relative difference of pot $d"
le ala2-resident-hostrun "$d" 1e-8

# velocity Verlet with v-rescale resident on the GPU: the CPU's draws, so
# its log follows the CPU's (and the host-driven run's) as the others do;
# over 4000 steps from 200 K the temperature and the conserved H as
# tests/mm-md.sh asks of the CPU
printf 'integrator = md-vv\ndt = 0.002\ntcoupl = v-rescale\ntau-t = 0.1\nref-t = 300\ngen-vel = yes\ngen-temp = 200\ncoulombtype = Reaction-Field\nepsilon-rf = 0\nrcoulomb = 0.9\nrvdw = 0.9\n' > wvr.mdp
R="md-gpu --top $S --mdp wvr.mdp --config $W -n 100 -e 100 --thermo 10 -T"
t water-vr-cpu 0 "$R -d cpu -l vr-cpu.log > vr-cpu.fek"
t water-vr-gpu 0 "$R -d gpu --precision double -l vr-gpu.log > vr-gpu.fek"
t water-vr-host 0 "FEK_MM_HOSTRUN=1 $R -d gpu --precision double -l vr-host.log > vr-host.fek"
le water-vr-pot "$(logdiff vr-cpu.log vr-gpu.log)" 1e-8
le water-vr-frame "$(framediff vr-cpu.fek vr-gpu.fek)" 1e-8
le water-vr-hostrun "$(logdiff vr-host.log vr-gpu.log)" 1e-8
# the log's H (column 21) of both within 1e-8 of |E| at the end
le water-vr-H "$(hdiff vr-cpu.log vr-gpu.log)" 1e-8
# the Nose-Hoover chain (10, tau 0.5 ps) likewise
sed 's/^tcoupl = v-rescale/tcoupl = nose-hoover/; s/^tau-t = 0.1/tau-t = 0.5/' wvr.mdp > wnh.mdp
R="md-gpu --top $S --mdp wnh.mdp --config $W -n 100 -e 100 --thermo 10 -T"
t water-nh-cpu 0 "$R -d cpu -l nh-cpu.log > nh-cpu.fek"
t water-nh-gpu 0 "$R -d gpu --precision double -l nh-gpu.log > nh-gpu.fek"
le water-nh-pot "$(logdiff nh-cpu.log nh-gpu.log)" 1e-8
le water-nh-frame "$(framediff nh-cpu.fek nh-gpu.fek)" 1e-8
le water-nh-H "$(hdiff nh-cpu.log nh-gpu.log)" 1e-8
t water-nh-long 0 "md-gpu -d gpu --top $S --mdp wnh.mdp --config $W -n 4000 -l nhl.log --thermo 10 > /dev/null"
set -- $(thermostat_stats nhl.log)
echo "Nose-Hoover chain on the GPU (mixed; 10, tau 0.5 ps) from 200 K, 216 SPC/E: mean T $1 K over steps 1000-4000 (300 K); |dH| / |E| $2"
le water-nh-temperature "$(reldev "$1" 300)" 0.03
le water-nh-conserved "$2" 2e-4
for pr in double mixed; do
	t water-vr-long-$pr 0 "md-gpu -d gpu --precision $pr --top $S --mdp wvr.mdp --config $W -n 4000 -l vrl-$pr.log --thermo 10 > /dev/null"
	set -- $(thermostat_stats vrl-$pr.log)
	echo "v-rescale on the GPU ($pr; tau 0.1 ps) from 200 K, 216 SPC/E: mean T $1 K over steps 1000-4000 (300 K); |dH| / |E| $2"
	le water-vr-temperature-$pr "$(reldev "$1" 300)" 0.03
	le water-vr-conserved-$pr "$2" 2e-4
done

# energy conservation on the GPU (velocity Verlet, SETTLE, 2 fs)
for pr in double mixed; do
	t water-nve-$pr 0 "md-gpu -d gpu --precision $pr --top $S --mdp wvv.mdp --config $W -n 2000 --thermo 5 -l nve-$pr.log > /dev/null"
	r=$(awk '!/^#/ && $2 >= 200 { n++; k += $18; kk += $18 * $18; e += $19; ee += $19 * $19 }
	    END { sk = sqrt(kk / n - (k / n) ^ 2); se = sqrt(ee / n - (e / n) ^ 2); printf "%.4g\n", se / sk }' nve-$pr.log)
	echo "velocity Verlet on the GPU ($pr), 216 SPC/E, 2 fs, 2000 steps: sd(E) / sd(K) = $r"
	le water-nve-$pr-conserved "$r" 0.05
done

# issue 29 item 12: a rerun of frames whose box changes keeps the first
# frame's PME grid on both devices (16 points along 1.862 nm at 0.12 nm;
# the 2 nm frame would choose 18 of its own): every term of every frame
# GPU = CPU within 1e-8 relative (|x| below 1 kJ/mol: absolute)
printf 'coulombtype = PME\nrcoulomb = 0.9\nrvdw = 0.9\n' > rr.mdp
sed '$s/.*/   2   2   2/' "$W" > rr2.gro
cat "$W" rr2.gro > rrgrow.gro
for d in cpu gpu; do
	t rerun-grow-$d 0 "md-gpu -d $d --precision double --top $S --mdp rr.mdp --rerun rrgrow.gro -T > rr-$d.txt"
done
r=$(paste <(grep -v '^#' rr-cpu.txt) <(grep -v '^#' rr-gpu.txt) | awk '{ n = NF / 2; r++
	for (i = 3; i <= n; i++) { a = $i < 0 ? -$i : $i; d = $i - $(n + i); d = d < 0 ? -d : d
	    if (a > 1) d /= a; if (d > m) m = d } }
	END { printf "%.3g\n", (r == 2 ? m : 999) }')
echo "rerun of a growing box (1.862 then 2 nm), 216 SPC/E, PME: largest relative difference GPU - CPU $r"
le rerun-grow-gpu-cpu "$r" 1e-8

# the Monte Carlo barostat resident on the GPU (its moves made on the
# host between the device's steps): 216 SPC/E at 1 bar, a move every 5
# steps, on the CPU, the GPU and the host-driven GPU run: the same
# uniforms and, in double precision, the same energies, so over 100 steps
# (20 moves) the logs' pot and V agree within 1e-8 relative and the last
# frames within 1e-8 nm; some moves accepted
printf 'pcoupl = MC\nref-p = 1\nnstpcouple = 5\n' | cat wsd.mdp - > wnpt.mdp
R="md-gpu --top $S --mdp wnpt.mdp --config $W -n 100 -e 100 --thermo 5 -T"
t water-npt-cpu 0 "$R -d cpu -l npt-cpu.log > npt-cpu.fek"
t water-npt-gpu 0 "$R -d gpu --precision double -v -l npt-gpu.log > npt-gpu.fek 2> npt-gpu.err"
t water-npt-host 0 "FEK_MM_HOSTRUN=1 $R -d gpu --precision double -l npt-host.log > npt-host.fek"
# coldiff NAME A B: the largest relative difference of the logs' column NAME
coldiff() {
	awk -v col="$1" 'FNR == 1 { f++ } f == 1 && /^#COL/ { nc++; if ($2 == col) pc = nc } /^#/ { next }
	    f == 1 { u[$2] = $pc; n++ } f == 2 && ($2 in u) { d = $pc - u[$2]; d = d < 0 ? -d : d; a = u[$2] < 0 ? -u[$2] : u[$2]; d /= a; if (d > m) m = d; k++ }
	    END { printf "%.3g\n", (k == n && n > 0 ? m : 999) }' "$2" "$3"
}
le water-npt-pot "$(coldiff pot npt-cpu.log npt-gpu.log)" 1e-8
le water-npt-volume "$(coldiff V npt-cpu.log npt-gpu.log)" 1e-8
le water-npt-frame "$(framediff npt-cpu.fek npt-gpu.fek)" 1e-8
le water-npt-hostrun "$(coldiff V npt-host.log npt-gpu.log)" 1e-8
ok water-npt-moves grep -q 'Monte Carlo barostat at 1 bar: [1-9][0-9]* of 20 volume moves accepted' npt-gpu.err
ok water-npt-volume-moved test "$(awk '!/^#/ { v[$NF] = 1 } END { for (k in v) n++; print n }' npt-gpu.log)" -gt 1
# tests/mm-baro.sh's ideal gas on the GPU, resident, mixed precision: 100
# rigid diatomics that do not interact at 300 K and 100 bar, a move every
# step; <V> = 101 kT / P = 41.83 nm^3 within 3 % and sd(V) = sqrt(101) kT
# / P = 4.16 within 15 %
ideal_gas_inputs
printf 'integrator = sd\ndt = 0.002\ntau-t = 1\nref-t = 300\ngen-vel = yes\npcoupl = MC\nref-p = 100\nnstpcouple = 1\nrcoulomb = 0.5\nrvdw = 0.5\n' > gnpt.mdp
t gas-gpu 0 "md-gpu -d gpu --top gas.top --mdp gnpt.mdp --config gas.gro -n 20000 -l gas.log --thermo 10 -T > /dev/null"
set -- $(awk '/^#COL/ { c++; if ($2 == "V") vc = c } !/^#/ && $2 >= 2000 { n++; s += $vc; ss += $vc * $vc }
    END { m = s / n; printf "%.4f %.4f\n", m, sqrt(ss / n - m * m) }' gas.log)
echo "ideal diatomic gas on the GPU, 100 molecules, 300 K, 100 bar: <V> $1, sd(V) $2 nm^3; exact 41.83 4.16"
le gas-gpu-mean-volume "$(echo "$1" | awk '{ d = $1 / 41.8337 - 1; print d < 0 ? -d : d }')" 0.03
le gas-gpu-volume-spread "$(echo "$2" | awk '{ d = $1 / 4.16261 - 1; print d < 0 ? -d : d }')" 0.15
