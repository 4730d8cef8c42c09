#!/bin/sh
# compare-energies.sh [DATA] - potential energies of the input coordinates,
# md-gpu --rerun -d cpu against OpenMM's Reference platform, per term, for
# ala2 (vacuum, cut-off) and JAC (PME) from DATA (default .exp/mmbench, made
# by make-data.sh).  Run from the repository root after make; needs a python
# with openmm and numpy: PYTHON (default python3) and PYTHONPATH as set.
set -u
D=${1:-.exp/mmbench}
PY=${PYTHON:-python3}
S=$(dirname "$0")/openmm_mm.py
MD=./bin/md-gpu
cols='bond angle ub pdih pidih rb idih lj14 coul14 ljsr dispcorr coulsr coulrecip pot'
rerun() {	# top mdp gro [extra mdp lines]
	if [ $# -gt 3 ]; then
		printf '%b' "$4" | cat "$2" - > /tmp/cmp-$$.mdp
		set -- "$1" /tmp/cmp-$$.mdp "$3"
	fi
	echo "# md-gpu --top $1 --mdp $2 --rerun $3 -d cpu"
	$MD --top "$1" --mdp "$2" --rerun "$3" -d cpu -T | grep -v '^#' |
	awk -v cols="$cols" '{ n = split(cols, c, " "); for (i = 1; i <= n; i++)
		printf "#   %-10s %.10g\n", c[i], $(i + 2)
		printf "#   %-10s %.10g\n", "ljsr+disp", $12 + $13
		printf "#   %-10s %.10g\n", "coul(sr+recip)", $14 + $15 }'
	rm -f /tmp/cmp-$$.mdp
}

echo "## ala2 in vacuum, Coulomb cut-off (reaction field eps_rf 1), rc 1.0"
rerun $D/ala2-processed.top $D/ala2.mdp $D/ala2.gro
rerun $D/ala2-processed.top $D/ala2.mdp $D/ala2.gro 'vdw-modifier = none\n'
$PY "$S" --top $D/ala2-processed.top --gro $D/ala2.gro --name ala2 \
	--nonbonded cutoff --platform Reference --terms --steps 0

echo "## JAC, PME rc 0.9, DispCorr EnerPres (jac.gro coordinates)"
rerun $D/jac.top $D/jac.mdp $D/jac.gro
rerun $D/jac.top $D/jac-openmm.mdp $D/jac.gro
$PY "$S" --prmtop $D/JAC.prmtop --gro $D/jac.gro --name jac \
	--platform Reference --terms --steps 0
$PY "$S" --prmtop $D/JAC.prmtop --gro $D/jac.gro --name jac \
	--platform Reference --terms --steps 0 \
	--pme-params 3.4704591937120832,52,52,52
$PY "$S" --top $D/jac.top --gro $D/jac.gro --name jac-top --dispcorr yes \
	--platform Reference --terms --steps 0 \
	--pme-params 3.4704591937120832,52,52,52
