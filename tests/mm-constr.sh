# tests/mm-constr.sh - lib/mm's constraints (constr.c: SETTLE, SHAKE and
# RATTLE) against answers that do not come from them, by
# tests/mm-constr-check (see its header for each check and its limit):
#   - random steps of TIP3P and SPC waters (settles), an ethanol-like
#     molecule with its bonds to hydrogen constrained, a ring and a
#     triangulated strip with every bond constrained, split by a
#     triclinic cell: every constraint holds (settles to rounding, SHAKE
#     to its tolerance), the corrections keep momentum and angular
#     momentum and lie along the old bonds, free atoms are not touched;
#   - the virial and the velocities fek_mm_constrain_x returns against
#     sums done in the check; RATTLE's and SETTLE's velocities leave no
#     velocity along a bond, keep momentum and angular momentum, and their
#     virial is the sum done in the check;
#   - the same waters as settles and as three SHAKE bonds each agree;
#   - SHAKE's bonds split into connected clusters (for the GPU): each bond
#     once, no atom in two clusters, the original order kept;
#   - every atom in its own image gives the result of the whole system;
#   - bad inputs: a constrained massless atom, impossible settles, shared
#     atoms (65), a zero tolerance (64), SHAKE that cannot converge and a
#     water moved too far (1, naming the atoms);
#   - NVE: 216 rigid SPC/E waters (testdata/mm/spce216.top at the positions
#     of GROMACS's spc216.gro, copied here when GROMACS is installed)
#     run 10 ps by velocity Verlet with SETTLE and RATTLE, 2 fs steps,
#     reaction field: the drift of the total energy per ns per degree of
#     freedom, printed with the run's figures.
# Each "ok NAME" / "FAIL NAME: ..." line of the program is one result
# here, named constr:NAME; its "# ..." lines are shown.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

CHECK="$TOP/tests/mm-constr-check"
NSTEPS=5000

if ! [ -x "$CHECK" ]; then
	skip constr "tests/mm-constr-check not built (make check builds it)"
	exit 0
fi

# GROMACS's 216 SPC waters, where its data are installed
gro=
for d in ${GMXDATA:+"$GMXDATA/top"} /usr/share/gromacs/top; do
	if [ -f "$d/spc216.gro" ]; then
		cp "$d/spc216.gro" "$TMP/spc216.gro" && gro=$TMP/spc216.gro
		break
	fi
done
if [ -n "$gro" ]; then
	set -- -g "$gro" -p "$TOP/testdata/mm/spce216.top" -n "$NSTEPS"
	want=50
else
	set --
	want=47
	skip constr:nve "no spc216.gro (GROMACS's data: scripts/install-deps check)"
fi

# every check reported: 16 of positions by kind of molecule, 3 more of
# positions, 7 of velocities, 5 of images, the count, 4 SETTLE against
# SHAKE, 10 bad inputs, and 3 of the NVE run
check_prog constr "$want" "$CHECK" -v "$@"
grep '^# nve' "$TMP/constr.out"
