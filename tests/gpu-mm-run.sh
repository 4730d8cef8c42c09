# tests/gpu-mm-run.sh - make check-gpu: md-gpu --top dynamics resident on
# the GPU (kernels/mm_run.cu: the integrators, SETTLE, SHAKE and RATTLE on
# the device) against the CPU (lib/mm/run.c).  The GPU draws the CPU's
# Philox normals and its forces equal the CPU's to 1e-12, so its log
# follows the CPU's until chaos amplifies the rounding: over 100 steps of
# 2 fs the potential energies of the logs agree within 1e-8 relative and
# the last frames' positions within 1e-8 nm, for 216 SPC/E waters (SETTLE,
# reaction field; Langevin and velocity Verlet) and alanine dipeptide in
# vacuum (SHAKE and RATTLE on h-bonds); the run resident on the GPU
# repeats to the bit and equals the host-driven one (FEK_MM_HOSTRUN=1);
# velocity Verlet conserves the energy over 2000 steps (sd(E) / sd(K) <
# 0.05, as tests/mm-md.sh on the CPU).  Inputs as tests/gpu-mm.sh
# (GROMACS here, else $FEK_MM_GPU_DATA).  Skipped unless FEK_TEST_GPU.
. "$(dirname "$0")/lib.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-mm-run "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
if [ -n "${FEK_MM_GPU_DATA:-}" ]; then
	D=$FEK_MM_GPU_DATA
elif have gmx; then
	G=/usr/share/gromacs/top
	t inputs 0 "cp $G/spc216.gro . && cp $TOP/testdata/mm/spce216.top . &&
		gmx pdb2gmx -f $TOP/testdata/mm/ala2-heavy.pdb -ff amber99sb-ildn -water tip3p -ignh -o a.gro -p ala2.top > p2g.log 2>&1 &&
		gmx editconf -f a.gro -o ala2.gro -box 3 -c > ec.log 2>&1"
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
	t $1-gpu 0 "$R -d gpu -l $1-gpu.log > $1-gpu.fek"
	d=$(logdiff $1-cpu.log $1-gpu.log)
	echo "$1: 100 steps, largest relative difference of pot GPU - CPU $d"
	le $1-pot "$d" 1e-8
	d=$(framediff $1-cpu.fek $1-gpu.fek)
	echo "$1: last frame, largest position difference GPU - CPU $d nm"
	le $1-frame "$d" 1e-8
done
t water-gpu-again 0 "md-gpu --top $S --mdp wsd.mdp --config $W -n 100 -e 100 --thermo 10 -T -d gpu -l again.log > again.fek && grep -v '^#PROV' again.fek > a1 && grep -v '^#PROV' water-sd-gpu.fek | cmp - a1"
t ala2-hostrun 0 "FEK_MM_HOSTRUN=1 md-gpu --top $D/ala2.top --mdp asd.mdp --config $D/ala2.gro -n 100 -e 100 --thermo 10 -T -d gpu -l host.log > host.fek"
d=$(logdiff host.log ala2-sd-gpu.log)
echo "ala2: resident against host-driven, largest relative difference of pot $d"
le ala2-resident-hostrun "$d" 1e-8

# energy conservation on the GPU (velocity Verlet, SETTLE, 2 fs)
t water-nve 0 "md-gpu -d gpu --top $S --mdp wvv.mdp --config $W -n 2000 --thermo 5 -l nve.log > /dev/null"
r=$(awk '!/^#/ && $2 >= 200 { n++; k += $18; kk += $18 * $18; e += $19; ee += $19 * $19 }
    END { sk = sqrt(kk / n - (k / n) ^ 2); se = sqrt(ee / n - (e / n) ^ 2); printf "%.4g\n", se / sk }' nve.log)
echo "velocity Verlet on the GPU, 216 SPC/E, 2 fs, 2000 steps: sd(E) / sd(K) = $r"
le water-nve-conserved "$r" 0.05
