# tests/gpu-mm.sh - make check-gpu: md-gpu --top's forces on the GPU
# (kernels/mm/*.cu) against the CPU reference (lib/mm), by
# tests/mm-gpu-check: every energy term, the forces and the virial within
# 1e-9 relative, the same bits on repeated evaluations, with the virtual
# sites placed and a little off their places; on 216 rigid SPC/E waters
# with reaction field and PME, a TIP4P box (virtual sites), alanine
# dipeptide in vacuum and in TIP3P water (amber99sb-ildn) and with
# charmm27 (Urey-Bradley, impropers); and with the pairs in mixed
# precision (--precision mixed) within 1e-5.  The systems are made with GROMACS
# (gmx pdb2gmx, solvate, genconf; topologies preprocessed by grompp -pp)
# where it is installed, else read from $FEK_MM_GPU_DATA (the same files,
# made on a machine that has it by scripts/mm-gpu-data).  Skipped
# unless FEK_TEST_GPU is set.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

if [ -z "${FEK_TEST_GPU:-}" ]; then
	skip gpu-mm "FEK_TEST_GPU unset (make check-gpu on a GPU machine)"
	exit 0
fi
CHECK=$TOP/tests/mm-gpu-check
[ -x "$CHECK" ] || { fail gpu-mm "tests/mm-gpu-check not built (make check-gpu builds it)"; exit 0; }

# the inputs: made here with GROMACS (tests/lib-mm.sh), or found in
# $FEK_MM_GPU_DATA (made by scripts/mm-gpu-data)
if have gmx; then
	ok gpu-mm-inputs mm_gpu_inputs	# a shell function: ok runs it in a subshell (t would hand it to sh -c)
	D=.
elif [ -n "${FEK_MM_GPU_DATA:-}" ]; then
	D=$FEK_MM_GPU_DATA
else
	skip gpu-mm "no gmx and no FEK_MM_GPU_DATA (the systems are made with GROMACS)"
	exit 0
fi

printf 'coulombtype = Reaction-Field\nepsilon-rf = 0\nrcoulomb = 0.9\nrvdw = 0.9\n' > rf.mdp
printf 'coulombtype = PME\nrcoulomb = 0.9\nrvdw = 0.9\nDispCorr = EnerPres\n' > pme.mdp
printf 'coulombtype = Cut-off\nrcoulomb = 1.0\nrvdw = 1.0\n' > cut.mdp
printf 'coulombtype = PME\nrcoulomb = 1.0\nrvdw = 1.0\nDispCorr = EnerPres\nconstraints = h-bonds\n' > pmeh.mdp

# gpucheck NAME MDP TOP GRO: tests/mm-gpu-check's lines as results (with
# MIXED=-M, the GPU's pairs in mixed precision, to 1e-5)
gpucheck() {
	local n=$1
	shift
	"$CHECK" ${MIXED:-} -m "$@" > "$n.out" 2> "$n.err"
	rc=$?
	if [ "$rc" = 69 ]; then
		skip "$n" "$(tail -n 1 "$n.err")"
		return
	fi
	grep '^#' "$n.out" | sed "s/^# /$n: /"
	check_lines "$n-" "$n.out"
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$n" "exit $rc: $(tail -n 1 "$n.err")"
}
gpucheck spce-rf rf.mdp "$D/spce216.top" "$D/spc216.gro"
gpucheck spce-pme pme.mdp "$D/spce216.top" "$D/spc216.gro"
gpucheck tip4p-pme pme.mdp "$D/tip4p.top" "$D/tip4p.gro"
gpucheck ala2-cut cut.mdp "$D/ala2.top" "$D/ala2.gro"
gpucheck ala2-tip3p pmeh.mdp "$D/ala2w.top" "$D/ala2-wat.gro"
gpucheck ala2-charmm cut.mdp "$D/ala2c.top" "$D/ala2c.gro"
MIXED=-M
gpucheck spce-rf-mixed rf.mdp "$D/spce216.top" "$D/spc216.gro"
gpucheck tip4p-pme-mixed pme.mdp "$D/tip4p.top" "$D/tip4p.gro"
gpucheck ala2-tip3p-mixed pmeh.mdp "$D/ala2w.top" "$D/ala2-wat.gro"
MIXED=

# $FEK_MM_GPU_DATA, for a GPU machine without GROMACS (the device tool's):
# scripts/mm-gpu-data DIR on a machine with it.
