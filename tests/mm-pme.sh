# tests/mm-pme.sh - smooth PME's reciprocal part (lib/mm/pme.c) through
# tests/mm-pme-check, whose checks come from answers that are not the code's
# own (see the head of tests/mm-pme-check.c):
#   - energy, forces, net force and virial against a direct Ewald sum in
#     cubic, orthorhombic and triclinic cells, orders 4, 5, 6, 8 (and the
#     table of errors against grid spacing);
#   - forces against central differences of the energy, the virial
#     against energy differences under stretches, shears and scaling;
#   - a net charge's background term; a lone charge in a cube (the
#     simple-cubic Wigner constant); the Madelung constant of rock salt in
#     its cubic and triclinic primitive cells;
#   - beta against erfc and against gmx_d, grid sizes against gmx grompp's,
#     energies against gmx_d's "Coul. recip." (numbers written into the
#     check, with the commands that produced them);
#   - bad orders and grids refused with 64; one thread and several agree
#     bit for bit.
# Each "ok NAME" / "FAIL NAME: why" line of the check is one result here;
# its "#" lines (the error table and the numbers behind each check) are
# shown.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-mm.sh"

PC=$TOP/tests/mm-pme-check
if ! [ -x "$PC" ]; then
	skip mm-pme-check "tests/mm-pme-check not built (make check builds it)"
	exit 0
fi

t mm-pme-check 0 "'$PC' > pme.out"
grep '^#' pme.out
check_lines pme- pme.out
# a check that stopped early reports fewer results than it has
le pme-count 100 "$check_nres"
