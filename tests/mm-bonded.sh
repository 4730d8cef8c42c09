# tests/mm-bonded.sh - lib/mm's CPU reference of the bonded interactions,
# 1-4 pairs and virtual sites (bonded.c, vsite.c) against answers that do
# not come from it, by tests/mm-bonded-check (see its header for each
# check and its limit):
#   - energies against the functional forms at chosen geometries (a
#     stretched bond, right and other angles, Urey-Bradley, periodic
#     dihedrals of multiplicity 1-3 and phase 0 and 180 deg, Ryckaert-
#     Bellemans at trans and cis, the harmonic improper near xi0 and
#     across +-180 deg, a 1-4 pair), the dihedral's IUPAC sign and phi
#     against the manual's formula;
#   - forces against central differences of the energy, zero net force
#     and torque, for every kind at random geometries;
#   - the virial against dU/d ln L (the cell scaled) and each component
#     against a shear of the coordinates, and as -1/2 sum x (x) f;
#   - a molecule split by a triclinic cell as the same molecule whole;
#   - virtual sites (TIP4P's M and an asymmetric site): placement, the
#     spread forces against central differences through the
#     construction, force and torque kept, the virial of the real atoms.
# Each "ok NAME" / "FAIL NAME: ..." line of the program is one result
# here, named bonded:NAME.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

CHECK="$TOP/tests/mm-bonded-check"

if ! [ -x "$CHECK" ]; then
	skip bonded "tests/mm-bonded-check not built (make check builds it)"
	exit 0
fi

# every check reported: 10 closed-form and sign checks, 6 per kind for 8
# kinds, the improper's wrap, 7 of the virtual sites
check_prog bonded 66 "$CHECK" -v
