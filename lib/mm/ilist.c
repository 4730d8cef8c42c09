/*
 * ilist.c - the interaction lists of lib/mm (mm.h): how many atoms and
 * parameters each kind has, appending to a list, and the names GROMACS's
 * gmx energy gives the energy terms.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "mm/mm.h"

const int fek_mm_nat[FEK_MM_NKIND] = {
	[FEK_MM_BOND] = 2, [FEK_MM_ANGLE] = 3, [FEK_MM_UB] = 3,
	[FEK_MM_PDIH] = 4, [FEK_MM_PIDIH] = 4, [FEK_MM_RB] = 4,
	[FEK_MM_IDIH] = 4, [FEK_MM_PAIR] = 2, [FEK_MM_CONSTR] = 2,
	[FEK_MM_SETTLE] = 3, [FEK_MM_VSITE3] = 4,
};

const int fek_mm_npar[FEK_MM_NKIND] = {
	[FEK_MM_BOND] = 2, [FEK_MM_ANGLE] = 2, [FEK_MM_UB] = 4,
	[FEK_MM_PDIH] = 3, [FEK_MM_PIDIH] = 3, [FEK_MM_RB] = 6,
	[FEK_MM_IDIH] = 2, [FEK_MM_PAIR] = 3, [FEK_MM_CONSTR] = 1,
	[FEK_MM_SETTLE] = 2, [FEK_MM_VSITE3] = 2,
};

static const char *const term_name[FEK_MM_NTERM] = {
	[FEK_MM_E_BOND] = "Bond", [FEK_MM_E_ANGLE] = "Angle",
	[FEK_MM_E_UB] = "U-B", [FEK_MM_E_PDIH] = "Proper Dih.",
	[FEK_MM_E_PIDIH] = "Per. Imp. Dih.", [FEK_MM_E_RB] = "Ryckaert-Bell.",
	[FEK_MM_E_IDIH] = "Improper Dih.", [FEK_MM_E_LJ14] = "LJ-14",
	[FEK_MM_E_COUL14] = "Coulomb-14", [FEK_MM_E_LJSR] = "LJ (SR)",
	[FEK_MM_E_DISPCORR] = "Disper. corr.",
	[FEK_MM_E_COULSR] = "Coulomb (SR)",
	[FEK_MM_E_COULRECIP] = "Coul. recip.",
};

const char *
fek_mm_term_name(int term)
{
	return term >= 0 && term < FEK_MM_NTERM ? term_name[term] : "?";
}

void
fek_mm_ilist_add(struct fek_mm_ilist *il, int kind, const int *atoms,
    const double *par)
{
	int na = fek_mm_nat[kind], np = fek_mm_npar[kind];

	if (il->n == il->cap) {
		long cap = il->cap ? 2 * il->cap : 64;
		int *a = realloc(il->atoms, (size_t)cap * na * sizeof *a);
		double *p = realloc(il->par, (size_t)cap * np * sizeof *p);

		if (a == NULL || p == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory "
			    "(interactions)");
		il->atoms = a;
		il->par = p;
		il->cap = cap;
	}
	memcpy(il->atoms + il->n * na, atoms, na * sizeof *atoms);
	memcpy(il->par + il->n * np, par, np * sizeof *par);
	il->n++;
}
