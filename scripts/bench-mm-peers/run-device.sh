#!/bin/sh
# run-device.sh - OpenMM peers of md-gpu --top on the GPU machine (issue 16).
# Run from the repository root with .whl (openmm, openmm-cuda-13 8.6.1,
# cp312) and .exp/mmbench (make-data.sh) carried.  Logs go to ${OUT:-/tmp/out};
# the OPENMM_MM result lines are printed last.  Expected about 1-2 minutes on
# an H100; each run is capped (timeout 60, 120, 60 s), 4 minutes in all.
#   carry: [".whl", ".exp/mmbench"]
#   command: sh scripts/bench-mm-peers/run-device.sh
set -u
OUT=${OUT:-/tmp/out}
D=${DATA:-.exp/mmbench}
S=scripts/bench-mm-peers/openmm_mm.py
SITE=${SITE:-/tmp/site}
P=${PLATFORM:-CUDA}		# PLATFORM=CPU QUICK=1: a smoke test without a GPU
Q=${QUICK:+00}			# QUICK=1: steps / 100, no timeouts
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

if ! python3 -c 'import openmm' 2>/dev/null; then
	python3 -m pip install -q --no-index --no-deps --no-compile \
		--no-cache-dir --upgrade --target "$SITE" .whl/*.whl ||
		{ echo "run-device: cannot install .whl/*.whl" >&2; exit 69; }
	export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader \
	> "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

run() {	# name seconds args...
	name=$1; lim=$2; shift 2
	echo "== $name: python3 $S $*"
	[ -n "$Q" ] && lim=0
	timeout "$lim" python3 "$S" "$@" > "$OUT/$name.log" 2>&1
	rc=$?
	grep -v '^OPENMM_MM' "$OUT/$name.log" | tail -4
	[ $rc -eq 0 ] || echo "== $name: exit $rc"
}

ALA="--top $D/ala2-processed.top --gro $D/ala2.gro --name ala2 --nonbonded cutoff"
JAC="--prmtop $D/JAC.prmtop --inpcrd $D/jac.rst7 --name jac --nonbonded pme"

# alanine dipeptide in vacuum (22 atoms), cut-off 1.0 nm, 2 fs, h-bonds
run ala2-k1 60 $ALA --platform $P --precision mixed \
	--contexts 1 --steps $((50000 / 1$Q)) --warmup $((1000 / 1$Q))
run ala2-k20 120 $ALA --platform $P --precision mixed \
	--contexts 20 --steps $((5000 / 1$Q)) --warmup $((500 / 1$Q))
# DHFR in water (JAC, 23558 atoms), PME 0.9 nm tol 5e-4, 2 fs, h-bonds
run jac-k1 60 $JAC --platform $P --precision mixed \
	--contexts 1 --steps $((5000 / 1$Q)) --warmup $((500 / 1$Q))

echo "== results"
cat "$OUT"/ala2-k1.log "$OUT"/ala2-k20.log "$OUT"/jac-k1.log | grep '^OPENMM_MM'
