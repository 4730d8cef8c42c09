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

CHECK="$TOP/tests/mm-bonded-check"

if ! [ -x "$CHECK" ]; then
	skip bonded "tests/mm-bonded-check not built (make check builds it)"
	exit 0
fi

# the program's own status: 0 all passed, 1 some failed; anything else
# (a crash, a usage error) fails the run
"$CHECK" -v > "$TMP/bonded.out" 2> "$TMP/bonded.err" < /dev/null
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
	fail bonded-run "exit $rc: $(tail -n 1 "$TMP/bonded.err")"
fi
nres=0
while read -r verdict name rest; do
	case $verdict in
	ok) pass "bonded:$name"; nres=$((nres + 1)) ;;
	FAIL) fail "bonded:${name%:}" "$rest"; nres=$((nres + 1)) ;;
	esac
done < "$TMP/bonded.out"
# every check reported: 10 closed-form and sign checks, 6 per kind for 8
# kinds, the improper's wrap, 7 of the virtual sites
if [ "$nres" = 66 ]; then
	pass bonded-count
else
	fail bonded-count "$nres results, expected 66"
fi
if [ "$rc" = 1 ] && ! grep -q '^FAIL' "$TMP/bonded.out"; then
	fail bonded-status "exit 1 without a FAIL line"
fi
