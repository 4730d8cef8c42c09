/*
 * bonded.c - the CPU reference of lib/mm's bonded interactions and pairs
 * (mm.h, fek_mm_bonded): energies, forces and virial of FEK_MM_BOND,
 * ANGLE, UB, PDIH, PIDIH, RB, IDIH and PAIR, in double precision and
 * written for clarity; the GPU must agree with it.
 *
 * Functional forms: GROMACS 2022 reference manual, "Bonded interactions"
 * (the subsection, and the [ section ] function type):
 *   Bond stretching, harmonic potential  U = kb/2 (r - b0)^2
 *     ([ bonds ] 1)
 *   Harmonic angle potential ([ angles ] 1)
 *                                        U = k/2 (th - th0)^2
 *   Urey-Bradley potential ([ angles ] 5)
 *                                        U = kth/2 (th - th0)^2 +
 *                                            kub/2 (r13 - r13_0)^2
 *   Proper dihedrals: periodic type ([ dihedrals ] 1, 9; 4 is the
 *     periodic improper, the same form)  U = k (1 + cos(n phi - phi0))
 *   Proper dihedrals: Ryckaert-Bellemans function ([ dihedrals ] 3)
 *                                        U = sum_n=0..5 Cn cos^n(psi),
 *                                            psi = phi - 180 deg
 *   Improper dihedrals: harmonic type ([ dihedrals ] 2)
 *                                        U = k/2 (xi - xi0)^2, xi - xi0
 *                                            taken in (-pi, pi]
 * and "Exclusions and 1-4 interactions" for the pairs ([ pairs ] 1):
 *   U_LJ14 = c12 / r^12 - c6 / r^6, U_C14 = ONE_4PI_EPS0 qq / (eps_r r),
 * with no cut-off and no shift (qq includes fudgeQQ).
 *
 * Angles.  th is the angle at j between r_ij = x_i - x_j and r_kj =
 * x_k - x_j, th = atan2(|r_ij x r_kj|, r_ij . r_kj) (accurate near 0 and
 * pi, where acos is not).  The dihedral of atoms i, j, k, l is the
 * manual's (IUPAC/IUB 1970): the angle between the planes (i, j, k) and
 * (j, k, l), phi = 0 when i and l are cis, phi = pi when trans, and phi
 * positive when, looking along j -> k, the bond k-l is rotated clockwise
 * from the bond j-i.  With b1 = x_j - x_i, b2 = x_k - x_j, b3 = x_l - x_k
 * and the plane normals n1 = b1 x b2, n2 = b2 x b3:
 *   phi = atan2(|b2| b1 . n2, n1 . n2),
 * in (-pi, pi]; the same phi as the manual's sign(r_ij . n) acos(m . n /
 * |m||n|) with m = r_ij x r_kj, n = r_kj x r_kl.  Example: j at 0, k on
 * +z, i on +x and l above +y gives phi = +pi/2.
 *
 * Dihedral forces without 1/sin(phi) (H. Bekker, "Molecular dynamics
 * simulation methods revised", thesis, Groningen 1996; A. Blondel and
 * M. Karplus, J. Comput. Chem. 17, 1132 (1996)), derived here from the
 * gradients with respect to b1 and b3 and the invariance of phi under
 * translation, rotation and the scaling of b2: with
 * p = (b1 . b2) / |b2|^2 and q = (b3 . b2) / |b2|^2,
 *   dphi/dx_i = -|b2| / |n1|^2 n1
 *   dphi/dx_l = +|b2| / |n2|^2 n2
 *   dphi/dx_j = -(1 + p) dphi/dx_i + q dphi/dx_l
 *   dphi/dx_k = p dphi/dx_i - (1 + q) dphi/dx_l
 * and f_a = -dU/dphi dphi/dx_a.  These sum to zero (translation) and
 * their moments cancel (rotation); phi is undefined only when i, j, k or
 * j, k, l are collinear (n1 or n2 zero), where the term is left out.
 * Angle forces likewise: dth/dx_i = -(n x r_ij) / (|n| |r_ij|^2) and
 * dth/dx_k = (n x r_kj) / (|n| |r_kj|^2) with n = r_ij x r_kj, the unit
 * vectors in the plane, perpendicular to each arm, divided by the arm's
 * length; th is not differentiable at 0 and pi (n = 0), where the angle
 * gets its energy but no force (as the exact gradient there is either a
 * cusp's or zero).
 *
 * Periodic boundaries: each difference vector is the minimum image
 * (fek_box_minimage), and the atoms of an interaction are chained from
 * atom j (i = j + r_ij, k = j + r_kj, l = k + b3; the Urey-Bradley 1-3
 * vector is r_ij - r_kj), so an interaction split by the cell is
 * evaluated whole (for interactions shorter than half the cell).
 *
 * Virial.  Xi = -1/2 sum_a r_a (x) f_a over each interaction's atoms,
 * r_a the atom's position relative to the atom the chain starts from
 * (j; for bonds and pairs the second atom), through the chain above;
 * since an interaction's forces add to zero this equals the single sum
 * -1/2 sum_i x_i (x) f_i over the atoms of the whole molecule and does
 * not depend on which periodic images x holds.  Xi[3 a + b] = -1/2 sum
 * r_a f_b (row-major, GROMACS's convention; the interactions have no
 * net torque, so it is symmetric).
 */
#include <math.h>

#include "mm/mm.h"
#include "mm/vec3.h"

/* ---- vectors ---------------------------------------------------------- */

/*
 * One interaction's na forces fa onto its atoms (f, n x 3), and its
 * virial -1/2 sum_a ra (x) fa into vir, ra the atoms' positions relative
 * to a common point of the interaction (through the minimum-image chain).
 */
static void
add_forces(double *f, double *vir, int na, const int *atoms,
    const double (*fa)[3], const double (*ra)[3])
{
	for (int a = 0; a < na; a++) {
		for (int c = 0; c < 3; c++)
			f[3 * atoms[a] + c] += fa[a][c];
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				vir[3 * r + c] -= 0.5 * ra[a][r] * fa[a][c];
	}
}

/* ---- two-body terms: bonds, the Urey-Bradley 1-3 term, pairs ---------- */

/*
 * A central two-body term of atoms i, j at d = x_i - x_j (minimum image),
 * |d| = r, dudr = dU/dr: the forces -dudr d / r on i, +dudr d / r on j,
 * and their virial.  r = 0 (coincident atoms) adds nothing.
 */
static void
central_pair(int i, int j, const double *d, double r, double dudr, double *f,
    double *vir)
{
	double fa[2][3], ra[2][3];
	int atoms[2] = { i, j };

	if (r == 0)
		return;
	for (int c = 0; c < 3; c++) {
		fa[0][c] = -dudr * d[c] / r;
		fa[1][c] = -fa[0][c];
		ra[0][c] = d[c];
		ra[1][c] = 0;
	}
	add_forces(f, vir, 2, atoms, (const double (*)[3])fa,
	    (const double (*)[3])ra);
}

/* FEK_MM_BOND: U = kb/2 (r - b0)^2 per bond; the energy. */
static double
bonds(const struct fek_mm_ilist *il, const struct fek_box *b,
    const double *x, double *f, double *vir)
{
	double sum = 0;

	for (long m = 0; m < il->n; m++) {
		const int *at = il->atoms + 2 * m;
		const double *p = il->par + 2 * m;
		double b0 = p[0], kb = p[1], d[3], r;

		fek_vimage(b, x, at[0], at[1], d);
		r = sqrt(fek_vdot(d, d));
		sum += 0.5 * kb * (r - b0) * (r - b0);
		central_pair(at[0], at[1], d, r, kb * (r - b0), f, vir);
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
		const double *p = il->par + 3 * m;
		double c6 = p[0], c12 = p[1], qq = p[2];
		double d[3], r, ir, ir6, ulj, uc;

		fek_vimage(b, x, at[0], at[1], d);
		r = sqrt(fek_vdot(d, d));
		ir = 1 / r;	/* r = 0: an infinite or NaN energy, no
				   force (central_pair) */
		ir6 = ir * ir * ir * ir * ir * ir;
		ulj = c12 * ir6 * ir6 - c6 * ir6;
		uc = FEK_MM_ONE_4PI_EPS0 * qq / eps_r * ir;
		*elj += ulj;
		*ecoul += uc;
		/* dU/dr = -12 c12 / r^13 + 6 c6 / r^7 - uc / r */
		central_pair(at[0], at[1], d, r, (-12 * c12 * ir6 * ir6 +
		    6 * c6 * ir6 - uc) * ir, f, vir);
	}
}

/* ---- angles ----------------------------------------------------------- */

/*
 * FEK_MM_ANGLE (ub 0) or FEK_MM_UB (ub 1): the angle th at j of i, j, k,
 * U = kth/2 (th - th0)^2, plus for ub kub/2 (r_ik - r13)^2 between i and
 * k (through the chain i = j + r_ij, k = j + r_kj); the energy.
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
		double rij[3], rkj[3], n[3], t[3], fa[3][3], ra[3][3];
		double nn, th, dudth, lij2, lkj2;

		fek_vimage(b, x, at[0], at[1], rij);
		fek_vimage(b, x, at[2], at[1], rkj);
		fek_vcross(rij, rkj, n);
		nn = sqrt(fek_vdot(n, n));
		th = atan2(nn, fek_vdot(rij, rkj));
		sum += 0.5 * p[1] * (th - p[0]) * (th - p[0]);
		dudth = p[1] * (th - p[0]);
		lij2 = fek_vdot(rij, rij);
		lkj2 = fek_vdot(rkj, rkj);
		if (nn > 0 && lij2 > 0 && lkj2 > 0) {
			/* f_i = -dU/dth dth/dx_i, dth/dx_i = -(n x r_ij) /
			 * (|n| |r_ij|^2); f_k likewise with +(n x r_kj) */
			fek_vcross(n, rij, t);
			for (int c = 0; c < 3; c++)
				fa[0][c] = dudth * t[c] / (nn * lij2);
			fek_vcross(n, rkj, t);
			for (int c = 0; c < 3; c++)
				fa[2][c] = -dudth * t[c] / (nn * lkj2);
			for (int c = 0; c < 3; c++) {
				fa[1][c] = -fa[0][c] - fa[2][c];
				ra[0][c] = rij[c];
				ra[1][c] = 0;
				ra[2][c] = rkj[c];
			}
			add_forces(f, vir, 3, at, (const double (*)[3])fa,
			    (const double (*)[3])ra);
		}
		if (ub) {
			double d[3], r, r13 = p[2], kub = p[3];

			for (int c = 0; c < 3; c++)
				d[c] = rij[c] - rkj[c];	/* x_i - x_k */
			r = sqrt(fek_vdot(d, d));
			sum += 0.5 * kub * (r - r13) * (r - r13);
			central_pair(at[0], at[2], d, r, kub * (r - r13), f,
			    vir);
		}
	}
	return sum;
}

/* ---- dihedrals -------------------------------------------------------- */

/* The geometry of the dihedral i, j, k, l. */
struct dihedral {
	double b1[3], b2[3], b3[3];	/* x_j - x_i, x_k - x_j, x_l - x_k
					   (minimum images) */
	double n1[3], n2[3];		/* b1 x b2, b2 x b3 */
	double phi;			/* IUPAC, (-pi, pi] */
};

/*
 * The dihedral angle of atoms at[0..3] into g (its vectors, normals and
 * phi); 0, or -1 when it is undefined (i, j, k or j, k, l collinear,
 * phi then 0).
 */
static int
dihedral_angle(const struct fek_box *b, const double *x, const int *at,
    struct dihedral *g)
{
	double l2;

	fek_vimage(b, x, at[1], at[0], g->b1);
	fek_vimage(b, x, at[2], at[1], g->b2);
	fek_vimage(b, x, at[3], at[2], g->b3);
	fek_vcross(g->b1, g->b2, g->n1);
	fek_vcross(g->b2, g->b3, g->n2);
	l2 = sqrt(fek_vdot(g->b2, g->b2));
	g->phi = atan2(l2 * fek_vdot(g->b1, g->n2), fek_vdot(g->n1, g->n2));
	if (fek_vdot(g->n1, g->n1) == 0 || fek_vdot(g->n2, g->n2) == 0) {
		g->phi = 0;
		return -1;
	}
	return 0;
}

/*
 * The forces f_a = -dudphi dphi/dx_a of a dihedral of geometry g onto
 * atoms at[0..3] (Bekker; Blondel and Karplus: see the top of the file),
 * and their virial, positions relative to j through the chain (i = j -
 * b1, k = j + b2, l = j + b2 + b3).
 */
static void
dihedral_forces(const struct dihedral *g, const int *at, double dudphi,
    double *f, double *vir)
{
	double l22 = fek_vdot(g->b2, g->b2), l2 = sqrt(l22);
	double gi[3], gl[3], fa[4][3], ra[4][3];
	double p = fek_vdot(g->b1, g->b2) / l22, q = fek_vdot(g->b3, g->b2) / l22;
	double si = -l2 / fek_vdot(g->n1, g->n1), sl = l2 / fek_vdot(g->n2, g->n2);

	for (int c = 0; c < 3; c++) {
		gi[c] = si * g->n1[c];		/* dphi/dx_i */
		gl[c] = sl * g->n2[c];		/* dphi/dx_l */
	}
	for (int c = 0; c < 3; c++) {
		fa[0][c] = -dudphi * gi[c];
		fa[1][c] = -dudphi * (-(1 + p) * gi[c] + q * gl[c]);
		fa[2][c] = -dudphi * (p * gi[c] - (1 + q) * gl[c]);
		fa[3][c] = -dudphi * gl[c];
		ra[0][c] = -g->b1[c];
		ra[1][c] = 0;
		ra[2][c] = g->b2[c];
		ra[3][c] = g->b2[c] + g->b3[c];
	}
	add_forces(f, vir, 4, at, (const double (*)[3])fa,
	    (const double (*)[3])ra);
}

/*
 * The energy of one dihedral of kind (PDIH, PIDIH, RB, IDIH) with
 * parameters p at phi, and dU/dphi into *dudphi.
 */
static double
dihedral_energy(int kind, const double *p, double phi, double *dudphi)
{
	double u, dp, c, s;

	switch (kind) {
	case FEK_MM_PDIH:
	case FEK_MM_PIDIH:
		/* k (1 + cos(n phi - phi0)): p = phi0, k, n */
		u = p[1] * (1 + cos(p[2] * phi - p[0]));
		*dudphi = -p[1] * p[2] * sin(p[2] * phi - p[0]);
		return u;
	case FEK_MM_RB:
		/* sum Cn cos^n(psi), psi = phi - pi: cos(psi) = -cos(phi),
		 * dU/dphi = -sin(psi) sum n Cn cos^(n-1)(psi) =
		 * sin(phi) sum n Cn cos^(n-1)(psi); Horner in cos(psi) */
		c = -cos(phi);
		s = sin(phi);
		u = p[5];
		*dudphi = 5 * p[5];
		for (int n = 4; n >= 0; n--) {
			u = u * c + p[n];
			if (n > 0)
				*dudphi = *dudphi * c + n * p[n];
		}
		*dudphi *= s;
		return u;
	case FEK_MM_IDIH:
		/* k/2 (xi - xi0)^2, the difference in (-pi, pi] */
		dp = fmod(phi - p[0], 2 * M_PI);
		if (dp > M_PI)
			dp -= 2 * M_PI;
		else if (dp <= -M_PI)
			dp += 2 * M_PI;
		*dudphi = p[1] * dp;
		return 0.5 * p[1] * dp * dp;
	}
	*dudphi = 0;
	return 0;
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
		struct dihedral g;
		double dudphi;
		int defined = dihedral_angle(b, x, at, &g) == 0;

		sum += dihedral_energy(kind, il->par + np * m, g.phi, &dudphi);
		if (defined)
			dihedral_forces(&g, at, dudphi, f, vir);
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
