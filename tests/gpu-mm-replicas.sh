# tests/gpu-mm-replicas.sh - make check-gpu: md-gpu --top -R on the GPU
# (kernels/mm/replicas.cu) against the CPU (lib/mm/replicas.c), alanine
# dipeptide in vacuum (amber99sb-ildn, bonds to hydrogen constrained,
# cut-off 1 nm in a 3 nm box).  The GPU draws the CPU's Philox normals, so
# a replica follows its CPU twin step by step until chaos amplifies the
# rounding: over 200 steps of 2 fs the phi/psi samples of velocity Verlet,
# of Langevin dynamics and of two umbrella windows agree within 1e-6 deg;
# a GPU run repeats to the bit.  The populations (C7eq, C7ax, alpha_R)
# over long runs are compared in bench/RESULTS.md, not here.  The system
# is made with gmx pdb2gmx where it is installed, else read from
# $FEK_MM_GPU_DATA (ala2.top, preprocessed, and ala2.gro: see
# tests/gpu-mm.sh).  Skipped unless FEK_TEST_GPU is set.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-mm-replicas "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
if have gmx; then
	t ala2-pdb2gmx 0 "$(ala2_amber ala2.top)"
	D=.
elif [ -n "${FEK_MM_GPU_DATA:-}" ]; then
	D=$FEK_MM_GPU_DATA
else
	skip gpu-mm-replicas "no gmx and no FEK_MM_GPU_DATA"
	exit 0
fi
cat > vv.mdp <<'EOF'
integrator = md-vv
dt = 0.002
gen-vel = yes
gen-temp = 300
constraints = h-bonds
coulombtype = Cut-off
rcoulomb = 1.0
rvdw = 1.0
EOF
sed 's/md-vv/sd/; $a ref-t = 300\ntau-t = 1' vv.mdp > sd.mdp
CV="--dihedral phi=5,7,9,15 --dihedral psi=7,9,15,17"
RUN="md-gpu --top $D/ala2.top --config $D/ala2.gro -n 200 -e 1 -R 4 $CV -T"

# maxdiff A B: the largest |a - b| (degrees, across the period) of the rows
maxdiff() {
	grep -v '^#' "$1" > a.rows
	grep -v '^#' "$2" > b.rows
	paste a.rows b.rows | awk -v n="$(wc -l < a.rows)" '{ for (c = 1; c <= 2; c++) { d = $c - $(c + 2); d = d < 0 ? -d : d; d = d > 180 ? 360 - d : d; if (d > m) m = d } k++ }
	    END { printf "%.3g\n", (k == n && n > 0 ? m : 999) }'
}

for m in vv sd; do
	t $m-cpu 0 "$RUN --mdp $m.mdp -d cpu > $m-cpu.txt"
	t $m-gpu 0 "$RUN --mdp $m.mdp -d gpu > $m-gpu.txt"
	d=$(maxdiff $m-cpu.txt $m-gpu.txt)
	echo "$m: 4 replicas x 200 steps, largest phi/psi difference GPU - CPU $d deg"
	le $m-gpu-equals-cpu "$d" 1e-6
done
t sd-gpu-again 0 "$RUN --mdp sd.mdp -d gpu > sd-gpu2.txt && cmp sd-gpu.txt sd-gpu2.txt"

printf -- '-70 70 0.05 0.05\n-90 85 0.05 0.05\n' > win.txt
t win-cpu 0 "$RUN --mdp sd.mdp -d cpu -w win.txt > w-cpu.txt"
t win-gpu 0 "$RUN --mdp sd.mdp -d gpu -w win.txt > w-gpu.txt"
d=$(maxdiff w-cpu.txt w-gpu.txt)
echo "two umbrella windows, 4 replicas each: largest difference GPU - CPU $d deg"
le win-gpu-equals-cpu "$d" 1e-6
t win-sections 0 "test \$(grep -c '^#KIND samples' w-gpu.txt) -eq 2"

# without --mdp: GROMACS's defaults, constraints = none (issue 29 item 8:
# the GPU copied a NULL cluster table and exited 70 "CUDA: constraints:
# invalid argument")
NOMDP="md-gpu --top $D/ala2.top --config $D/ala2.gro -n 200 -e 10 -R 4 $CV -T"
t no-mdp-cpu 0 "$NOMDP -d cpu > nomdp-cpu.txt"
t no-mdp-gpu 0 "$NOMDP -d gpu > nomdp-gpu.txt"
d=$(maxdiff nomdp-cpu.txt nomdp-gpu.txt)
echo "no .mdp (no constraints), 4 replicas x 200 steps: largest difference GPU - CPU $d deg"
le no-mdp-gpu-equals-cpu "$d" 1e-6

printf 'coulombtype = PME\nrcoulomb = 1.0\nrvdw = 1.0\nref-t = 300\nintegrator = sd\n' > pme.mdp
t_usage gpu-pme-refused "md-gpu --top $D/ala2.top --config $D/ala2.gro --mdp pme.mdp -n 1 -R 2 $CV -d gpu"
