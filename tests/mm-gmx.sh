# tests/mm-gmx.sh - md-gpu --top --rerun against GROMACS (Debian's gromacs
# 2022.5, double precision gmx_d where installed, else gmx) on the same
# inputs, term by term as gmx energy reports them, run live where gmx is
# installed (scripts/install-deps bench installs it):
#   - alanine dipeptide (ACE-ALA-NME, heavy atoms in testdata/mm, hydrogens
#     by gmx pdb2gmx) with amber99sb-ildn in a 3 nm box with plain cut-off
#     Coulomb ("vacuum": reaction field with epsilon-rf 1) and in TIP3P
#     water with PME and DispCorr EnerPres;
#   - a TIP4P box (GROMACS's tip4p.gro, OPLS-AA's tip4p.itp: settles and
#     a virtual site) with PME;
#   - the same dipeptide with charmm27 (Urey-Bradley, type-9 dihedrals,
#     impropers; its CMAP taken out of the topology for both programs);
# every term within 1e-5 relative (or 1e-5 kJ/mol where it is near zero)
# of GROMACS's, the reciprocal sum within 1e-4 relative (PME) — GROMACS's
# PME interpolates its B-spline moduli differently in the last digits.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

if have gmx_d; then
	GMX=gmx_d
elif have gmx; then
	GMX=gmx
else
	skip mm-gmx "no gmx (Debian's gromacs: scripts/install-deps bench)"
	exit 0
fi
GMX_MAXBACKUP=-1
export GMX_MAXBACKUP
echo "mm-gmx: $($GMX --version 2>/dev/null | awk '/^GROMACS version/ { v = $3 } /^Precision/ { p = $2 } END { print "GROMACS", v, p }')"

# gmx_energy, ours and compare: tests/lib-mm.sh

# ---- inputs --------------------------------------------------------------------------
t ala2-pdb2gmx 0 "$(ala2_pdb2gmx $GMX ala2-raw.gro ala2.top)"
t ala2-box 0 "$(ala2_box $GMX ala2-raw.gro)"
cat > vac.mdp <<'EOF'
cutoff-scheme = Verlet
coulombtype = Cut-off
rcoulomb = 1.0
rvdw = 1.0
DispCorr = no
EOF
gmx_energy ala2-vac vac.mdp ala2.top ala2.gro && ours ala2-vac vac.mdp ala2.top ala2.gro &&
compare ala2-vac || fail ala2-vac "a run failed: $(tail -n 2 ala2-vac.mdrun 2>/dev/null) $(tail -n 2 ala2-vac.fek 2>/dev/null)"

cat > pme.mdp <<'EOF'
cutoff-scheme = Verlet
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
DispCorr = EnerPres
fourierspacing = 0.12
pme-order = 4
ewald-rtol = 1e-5
EOF
t ala2-solvate 0 "$(ala2_solvate $GMX ala2.top)"
gmx_energy ala2-tip3p pme.mdp ala2.top ala2-wat.gro && ours ala2-tip3p pme.mdp ala2.top ala2-wat.gro &&
compare ala2-tip3p || fail ala2-tip3p "a run failed: $(tail -n 2 ala2-tip3p.mdrun 2>/dev/null)"

cat > tip4p.top <<'EOF'
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/tip4p.itp"
[ system ]
TIP4P
[ molecules ]
SOL 1728
EOF
# GROMACS's 216 TIP4P waters in a cube of 1.86 nm, twice along each edge
t tip4p-gro 0 "$GMX genconf -f $($GMX -h 2>&1 | awk '/^Data prefix:/ { print $3 }')/share/gromacs/top/tip4p.gro -nbox 2 2 2 -o tip4p.gro > gc.log 2>&1"
gmx_energy tip4p pme.mdp tip4p.top tip4p.gro && ours tip4p pme.mdp tip4p.top tip4p.gro &&
compare tip4p || fail tip4p "a run failed: $(tail -n 2 tip4p.mdrun 2>/dev/null)"

# The dipeptide in charmm27 (tests/lib-mm.sh) has its CMAP taken out of
# the topology for both programs, and pdb2gmx's log must show the termini
# chosen by hand.
termini="grep -q 'Start terminus ACE-1: None' p2gc.log && grep -q 'End terminus CT3-3: None' p2gc.log"
t ala2-charmm 0 "$(ala2_charmm $GMX ala2c.pdb ala2c-raw.gro ala2c.top "$termini")"
gmx_energy ala2-charmm vac.mdp ala2c.top ala2c.gro && ours ala2-charmm vac.mdp ala2c.top ala2c.gro &&
compare ala2-charmm || fail ala2-charmm "a run failed: $(tail -n 2 ala2-charmm.mdrun 2>/dev/null)"
