/*
 * bonded.c - the CPU reference of lib/mm's bonded interactions and pairs
 * (mm.h, fek_mm_bonded): energies, forces and virial of FEK_MM_BOND,
 * ANGLE, UB, PDIH, PIDIH, RB, IDIH and PAIR, in double precision and
 * written for clarity; the GPU (kernels/mm/bonded.cu) must agree with it.
 *
 * The functional forms (GROMACS 2022 reference manual, "Bonded
 * interactions" and "Exclusions and 1-4 interactions"), the angle and
 * dihedral conventions, the forces (Bekker; Blondel and Karplus for the
 * dihedrals) and the virial of one interaction are in bonded_eval.h,
 * which the GPU shares; this file runs them over the lists of a system
 * and sums their results.
 *
 * Periodic boundaries: each difference vector is the minimum image
 * (fek_vimage), and the atoms of an interaction are chained from atom j
 * (i = j + r_ij, k = j + r_kj, l = k + b3; the Urey-Bradley 1-3 vector
 * is r_ij - r_kj), so an interaction split by the cell is evaluated
 * whole (for interactions shorter than half the cell).
 *
 * Virial.  Each interaction's -1/2 sum_a r_a (x) f_a, r_a relative to a
 * point of the interaction through the chain above (bonded_eval.h); since
 * an interaction's forces add to zero, their sum equals the single sum
 * -1/2 sum_i x_i (x) f_i over the atoms of the whole molecule and does
 * not depend on which periodic images x holds.  Xi[3 a + b] = -1/2 sum
 * r_a f_b (row-major, GROMACS's convention; the interactions have no net
 * torque, so it is symmetric).
 */
#include "mm/mm.h"
#include "mm/vec3.h"
#include "mm/bonded_eval.h"

/*
 * One interaction's na forces fa onto its atoms (f, n x 3), and its
 * virial va (3 x 3) into vir.
 */
static void
add_forces(double *f, double *vir, int na, const int *atoms,
    double (*fa)[3], const double *va)
{
	for (int a = 0; a < na; a++)
		for (int c = 0; c < 3; c++)
			f[3 * atoms[a] + c] += fa[a][c];
	for (int c = 0; c < 9; c++)
		vir[c] += va[c];
}

/* FEK_MM_BOND: U = kb/2 (r - b0)^2 per bond; the energy. */
static double
bonds(const struct fek_mm_ilist *il, const struct fek_box *b,
    const double *x, double *f, double *vir)
{
	double sum = 0;

	for (long m = 0; m < il->n; m++) {
		const int *at = il->atoms + 2 * m;
		double d[3], fa[2][3], va[9];

		fek_vimage(b, x, at[0], at[1], d);
		sum += fek_mm_bond_eval(d, il->par + 2 * m, fa, va);
		add_forces(f, vir, 2, at, fa, va);
	}
	return sum;
}

/*
 * FEK_MM_PAIR: the 1-4 pairs, LJ (c12 / r^12 - c6 / r^6) into *elj and
 * Coulomb (ONE_4PI_EPS0 qq / (eps_r r)) into *ecoul.
 */
static void
pairs(const struct fek_mm_ilist *il, const struct fek_box *b, double eps_r,
    const double *x, double *f, double *vir, double *elj, double *ecoul)
{
	for (long m = 0; m < il->n; m++) {
		const int *at = il->atoms + 2 * m;
		double d[3], fa[2][3], va[9], uc;

		fek_vimage(b, x, at[0], at[1], d);
		*elj += fek_mm_pair_eval(d, il->par + 3 * m, eps_r, &uc, fa,
		    va);
		*ecoul += uc;
		add_forces(f, vir, 2, at, fa, va);
	}
}

/*
 * FEK_MM_ANGLE (ub 0) or FEK_MM_UB (ub 1): the angle at j of i, j, k
 * (with ub its 1-3 term too); the energy.
 */
static double
angles(const struct fek_mm_ilist *il, int ub, const struct fek_box *b,
    const double *x, double *f, double *vir)
{
	int np = ub ? 4 : 2;
	double sum = 0;

	for (long m = 0; m < il->n; m++) {
		const int *at = il->atoms + 3 * m;
		const double *p = il->par + np * m;
		double rij[3], rkj[3], fa[3][3], va[9];

		fek_vimage(b, x, at[0], at[1], rij);
		fek_vimage(b, x, at[2], at[1], rkj);
		sum += ub ? fek_mm_ub_eval(rij, rkj, p, fa, va) :
		    fek_mm_angle_eval(rij, rkj, p, fa, va);
		add_forces(f, vir, 3, at, fa, va);
	}
	return sum;
}

/* The dihedrals of one kind (PDIH, PIDIH, RB, IDIH); the energy. */
static double
dihedrals(const struct fek_mm_ilist *il, int kind, const struct fek_box *b,
    const double *x, double *f, double *vir)
{
	int np = fek_mm_npar[kind];
	double sum = 0;

	for (long m = 0; m < il->n; m++) {
		const int *at = il->atoms + 4 * m;
		double b1[3], b2[3], b3[3], fa[4][3], va[9];

		fek_vimage(b, x, at[1], at[0], b1);
		fek_vimage(b, x, at[2], at[1], b2);
		fek_vimage(b, x, at[3], at[2], b3);
		sum += fek_mm_dih_eval(kind, b1, b2, b3, il->par + np * m, fa,
		    va);
		add_forces(f, vir, 4, at, fa, va);
	}
	return sum;
}

/* ---- all of them ------------------------------------------------------ */

/*
 * fek_mm_bonded: mm.h.  For each kind BOND .. PAIR of t at x (nm, n x 3)
 * in box b: its energy (kJ/mol) added to e->term (BOND -> E_BOND, ...,
 * PAIR -> E_LJ14 and E_COUL14), its forces (kJ/mol/nm) added to f, its
 * virial (kJ/mol) added to e->vir.  e->pot is not touched (the caller
 * sums the terms).  Bonds, angles and dihedrals of atoms at the same
 * place or in a line get their energy and no force (see the top of the
 * file); a pair of atoms at the same place gets an infinite (or NaN)
 * energy and no force.
 */
void
fek_mm_bonded(const struct fek_mm_top *t, const struct fek_box *b,
    double eps_r, const double *x, double *f, struct fek_mm_energy *e)
{
	static const int dih_kind[] = { FEK_MM_PDIH, FEK_MM_PIDIH,
	    FEK_MM_RB, FEK_MM_IDIH };
	static const int dih_term[] = { FEK_MM_E_PDIH, FEK_MM_E_PIDIH,
	    FEK_MM_E_RB, FEK_MM_E_IDIH };

	e->term[FEK_MM_E_BOND] += bonds(&t->il[FEK_MM_BOND], b, x, f, e->vir);
	e->term[FEK_MM_E_ANGLE] += angles(&t->il[FEK_MM_ANGLE], 0, b, x, f,
	    e->vir);
	e->term[FEK_MM_E_UB] += angles(&t->il[FEK_MM_UB], 1, b, x, f, e->vir);
	for (int k = 0; k < 4; k++)
		e->term[dih_term[k]] += dihedrals(&t->il[dih_kind[k]],
		    dih_kind[k], b, x, f, e->vir);
	pairs(&t->il[FEK_MM_PAIR], b, eps_r, x, f, e->vir,
	    &e->term[FEK_MM_E_LJ14], &e->term[FEK_MM_E_COUL14]);
}
