/*
 * bonded_eval.h - the arithmetic of one bonded interaction or 1-4 pair of
 * lib/mm (mm.h's FEK_MM_BOND .. FEK_MM_PAIR) that the CPU reference
 * (bonded.c) and the GPU (kernels/mm/bonded.cu) share, one text compiled
 * by both (FEK_HD, as lib/pmd/pmd_eval.h): from an interaction's difference
 * vectors (minimum images, which the caller takes with fek_vimage of
 * vec3.h) and its parameters, its energy, the forces on its atoms and its
 * virial.  Nothing here reads the system or adds into its arrays; the
 * callers do (in double precision on the CPU, in fixed point on the GPU).
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
 * j, k, l are collinear (n1 or n2 zero), where the term gets the energy
 * of phi = 0 and no force.  Angle forces likewise: dth/dx_i = -(n x
 * r_ij) / (|n| |r_ij|^2) and dth/dx_k = (n x r_kj) / (|n| |r_kj|^2) with
 * n = r_ij x r_kj, the unit vectors in the plane, perpendicular to each
 * arm, divided by the arm's length; th is not differentiable at 0 and pi
 * (n = 0), where the angle gets its energy but no force (as the exact
 * gradient there is either a cusp's or zero).  A two-body term of atoms
 * at the same place (r = 0) gets no force either (a pair's energy is then
 * infinite or NaN).
 *
 * Virial.  Xi = -1/2 sum_a r_a (x) f_a over the interaction's atoms, r_a
 * the atom's position relative to the atom the difference vectors start
 * from (j for angles and dihedrals, the second atom of a bond or pair):
 * i = j + r_ij, k = j + r_kj for angles; i = j - b1, k = j + b2, l = j +
 * b2 + b3 for dihedrals.  Since an interaction's forces add to zero it
 * does not depend on that choice of origin.  Xi[3 a + b] = -1/2 sum r_a
 * f_b (row-major, GROMACS's convention).
 *
 * Every fek_mm_*_eval returns the energy (kJ/mol) and overwrites fa (a row
 * of 3 a atom, kJ/mol/nm, in the interaction's atom order) and vir (9,
 * kJ/mol); lengths are in nm, angles in radians, parameters as mm.h lists
 * them for the kind.
 */
#ifndef FEK_MM_BONDED_EVAL_H
#define FEK_MM_BONDED_EVAL_H

#include <math.h>

#include "mm/mm.h"
#include "mm/vec3.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- helpers ---------------------------------------------------------- */

/* n rows of 3 (forces) and a 3 x 3 virial set to 0. */
FEK_HD void
fek_mm_bonded_zero(int n, double (*fa)[3], double *vir)
{
	for (int a = 0; a < n; a++)
		for (int c = 0; c < 3; c++)
			fa[a][c] = 0;
	for (int c = 0; c < 9; c++)
		vir[c] = 0;
}

/* vir -= 1/2 r (x) f: one atom's share of the virial, r its position
 * relative to the interaction's origin. */
FEK_HD void
fek_mm_vir_sub(double *vir, const double *r, const double *f)
{
	for (int a = 0; a < 3; a++)
		for (int c = 0; c < 3; c++)
			vir[3 * a + c] -= 0.5 * r[a] * f[c];
}

/*
 * A central two-body term of atoms i, j at d = x_i - x_j, r = |d|,
 * dudr = dU/dr: the force -dudr d / r added to fi and +dudr d / r to fj,
 * and its virial (r_i = d, r_j = 0) subtracted into vir.  r = 0 adds
 * nothing.
 */
FEK_HD void
fek_mm_central_add(const double *d, double r, double dudr, double *fi,
    double *fj, double *vir)
{
	double g[3];

	if (r == 0)
		return;
	for (int c = 0; c < 3; c++) {
		g[c] = -dudr * d[c] / r;
		fi[c] += g[c];
		fj[c] -= g[c];
	}
	fek_mm_vir_sub(vir, d, g);
}

/* ---- two-body terms: bonds and pairs ---------------------------------- */

/*
 * FEK_MM_BOND: U = kb/2 (r - b0)^2 of atoms i, j at d = x_i - x_j, p =
 * b0, kb; forces on i, j into fa[0], fa[1]; the energy.
 */
FEK_HD double
fek_mm_bond_eval(const double *d, const double *p, double (*fa)[3],
    double *vir)
{
	double b0 = p[0], kb = p[1], r = sqrt(fek_vdot(d, d));

	fek_mm_bonded_zero(2, fa, vir);
	fek_mm_central_add(d, r, kb * (r - b0), fa[0], fa[1], vir);
	return 0.5 * kb * (r - b0) * (r - b0);
}

/*
 * FEK_MM_PAIR: the 1-4 pair of atoms i, j at d = x_i - x_j, p = c6, c12,
 * qq, in a dielectric eps_r: U_LJ14 = c12 / r^12 - c6 / r^6 returned and
 * U_C14 = ONE_4PI_EPS0 qq / (eps_r r) into *ucoul; the forces of both on
 * i, j into fa[0], fa[1].
 */
FEK_HD double
fek_mm_pair_eval(const double *d, const double *p, double eps_r,
    double *ucoul, double (*fa)[3], double *vir)
{
	double c6 = p[0], c12 = p[1], qq = p[2];
	double r = sqrt(fek_vdot(d, d)), ir, ir6, ulj, uc;

	ir = 1 / r;		/* r = 0: an infinite or NaN energy, no
				   force (fek_mm_central_add) */
	ir6 = ir * ir * ir * ir * ir * ir;
	ulj = c12 * ir6 * ir6 - c6 * ir6;
	uc = FEK_MM_ONE_4PI_EPS0 * qq / eps_r * ir;
	fek_mm_bonded_zero(2, fa, vir);
	/* dU/dr = -12 c12 / r^13 + 6 c6 / r^7 - uc / r */
	fek_mm_central_add(d, r, (-12 * c12 * ir6 * ir6 + 6 * c6 * ir6 - uc) *
	    ir, fa[0], fa[1], vir);
	*ucoul = uc;
	return ulj;
}

/* ---- angles ----------------------------------------------------------- */

/*
 * FEK_MM_ANGLE: the angle th at j of atoms i, j, k, rij = x_i - x_j,
 * rkj = x_k - x_j, p = th0, k; U = k/2 (th - th0)^2; forces on i, j, k
 * into fa[0..2]; the energy.
 */
FEK_HD double
fek_mm_angle_eval(const double *rij, const double *rkj, const double *p,
    double (*fa)[3], double *vir)
{
	double n[3], t[3], nn, th, dudth, lij2, lkj2;

	fek_vcross(rij, rkj, n);
	nn = sqrt(fek_vdot(n, n));
	th = atan2(nn, fek_vdot(rij, rkj));
	dudth = p[1] * (th - p[0]);
	lij2 = fek_vdot(rij, rij);
	lkj2 = fek_vdot(rkj, rkj);
	fek_mm_bonded_zero(3, fa, vir);
	if (nn > 0 && lij2 > 0 && lkj2 > 0) {
		/* f_i = -dU/dth dth/dx_i, dth/dx_i = -(n x r_ij) /
		 * (|n| |r_ij|^2); f_k likewise with +(n x r_kj) */
		fek_vcross(n, rij, t);
		for (int c = 0; c < 3; c++)
			fa[0][c] = dudth * t[c] / (nn * lij2);
		fek_vcross(n, rkj, t);
		for (int c = 0; c < 3; c++)
			fa[2][c] = -dudth * t[c] / (nn * lkj2);
		for (int c = 0; c < 3; c++)
			fa[1][c] = -fa[0][c] - fa[2][c];
		fek_mm_vir_sub(vir, rij, fa[0]);
		fek_mm_vir_sub(vir, rkj, fa[2]);
	}
	return 0.5 * p[1] * (th - p[0]) * (th - p[0]);
}

/*
 * FEK_MM_UB: the angle of fek_mm_angle_eval (p = th0, kth, r13, kub) and
 * kub/2 (r_ik - r13)^2 between i and k at x_i - x_k = rij - rkj; forces
 * on i, j, k into fa[0..2]; the energy of both.
 */
FEK_HD double
fek_mm_ub_eval(const double *rij, const double *rkj, const double *p,
    double (*fa)[3], double *vir)
{
	double u, d[3], r, r13 = p[2], kub = p[3];

	u = fek_mm_angle_eval(rij, rkj, p, fa, vir);
	for (int c = 0; c < 3; c++)
		d[c] = rij[c] - rkj[c];		/* x_i - x_k */
	r = sqrt(fek_vdot(d, d));
	fek_mm_central_add(d, r, kub * (r - r13), fa[0], fa[2], vir);
	return u + 0.5 * kub * (r - r13) * (r - r13);
}

/* ---- dihedrals -------------------------------------------------------- */

/*
 * The energies of the dihedral kinds at phi (radians, IUPAC) with their
 * parameters p (mm.h), and dU/dphi into *dudphi.
 */

/* FEK_MM_PDIH, FEK_MM_PIDIH: k (1 + cos(n phi - phi0)), p = phi0, k, n. */
FEK_HD double
fek_mm_pdih_energy(const double *p, double phi, double *dudphi)
{
	*dudphi = -p[1] * p[2] * sin(p[2] * phi - p[0]);
	return p[1] * (1 + cos(p[2] * phi - p[0]));
}

/*
 * FEK_MM_RB: sum Cn cos^n(psi), psi = phi - pi, p = C0 .. C5: cos(psi) =
 * -cos(phi), dU/dphi = -sin(psi) sum n Cn cos^(n-1)(psi) = sin(phi) sum n
 * Cn cos^(n-1)(psi); Horner in cos(psi).
 */
FEK_HD double
fek_mm_rb_energy(const double *p, double phi, double *dudphi)
{
	double c = -cos(phi), s = sin(phi), u = p[5], du = 5 * p[5];

	for (int n = 4; n >= 0; n--) {
		u = u * c + p[n];
		if (n > 0)
			du = du * c + n * p[n];
	}
	*dudphi = du * s;
	return u;
}

/* FEK_MM_IDIH: k/2 (xi - xi0)^2, p = xi0, k, the difference taken in
 * (-pi, pi]. */
FEK_HD double
fek_mm_idih_energy(const double *p, double phi, double *dudphi)
{
	double dp = fmod(phi - p[0], 2 * M_PI);

	if (dp > M_PI)
		dp -= 2 * M_PI;
	else if (dp <= -M_PI)
		dp += 2 * M_PI;
	*dudphi = p[1] * dp;
	return 0.5 * p[1] * dp * dp;
}

/* The energy of kind (PDIH, PIDIH, RB, IDIH; another: 0) at phi. */
FEK_HD double
fek_mm_dih_energy(int kind, const double *p, double phi, double *dudphi)
{
	switch (kind) {
	case FEK_MM_PDIH:
	case FEK_MM_PIDIH:
		return fek_mm_pdih_energy(p, phi, dudphi);
	case FEK_MM_RB:
		return fek_mm_rb_energy(p, phi, dudphi);
	case FEK_MM_IDIH:
		return fek_mm_idih_energy(p, phi, dudphi);
	}
	*dudphi = 0;
	return 0;
}

/* The dihedral angle phi (radians, (-pi, pi]) at b1 = x_j - x_i, b2 =
 * x_k - x_j, b3 = x_l - x_k, as fek_mm_dih_eval takes it (0 when
 * undefined). */
FEK_HD double
fek_mm_dih_angle(const double *b1, const double *b2, const double *b3)
{
	double n1[3], n2[3];

	fek_vcross(b1, b2, n1);
	fek_vcross(b2, b3, n2);
	if (fek_vdot(n1, n1) == 0 || fek_vdot(n2, n2) == 0)
		return 0;
	return atan2(sqrt(fek_vdot(b2, b2)) * fek_vdot(b1, n2),
	    fek_vdot(n1, n2));
}

/*
 * The dihedral of i, j, k, l of kind FEK_MM_PDIH, FEK_MM_PIDIH, FEK_MM_RB
 * or FEK_MM_IDIH with parameters p, at b1 = x_j - x_i, b2 = x_k - x_j,
 * b3 = x_l - x_k: forces on i, j, k, l into fa[0..3] (Bekker; Blondel
 * and Karplus: see the top of the file); the energy.  When phi is
 * undefined (n1 or n2 zero) the energy of phi = 0 and no force.
 */
FEK_HD double
fek_mm_dih_eval(int kind, const double *b1, const double *b2,
    const double *b3, const double *p, double (*fa)[3], double *vir)
{
	double n1[3], n2[3], ra[3], gi[3], gl[3];
	double l22, l2, n11, n22, phi, u, dudphi, pp, q, si, sl;

	fek_vcross(b1, b2, n1);
	fek_vcross(b2, b3, n2);
	l22 = fek_vdot(b2, b2);
	l2 = sqrt(l22);
	n11 = fek_vdot(n1, n1);
	n22 = fek_vdot(n2, n2);
	phi = atan2(l2 * fek_vdot(b1, n2), fek_vdot(n1, n2));
	if (n11 == 0 || n22 == 0)
		phi = 0;
	u = fek_mm_dih_energy(kind, p, phi, &dudphi);
	fek_mm_bonded_zero(4, fa, vir);
	if (n11 == 0 || n22 == 0)
		return u;
	pp = fek_vdot(b1, b2) / l22;
	q = fek_vdot(b3, b2) / l22;
	si = -l2 / n11;
	sl = l2 / n22;
	for (int c = 0; c < 3; c++) {
		gi[c] = si * n1[c];		/* dphi/dx_i */
		gl[c] = sl * n2[c];		/* dphi/dx_l */
	}
	for (int c = 0; c < 3; c++) {
		fa[0][c] = -dudphi * gi[c];
		fa[1][c] = -dudphi * (-(1 + pp) * gi[c] + q * gl[c]);
		fa[2][c] = -dudphi * (pp * gi[c] - (1 + q) * gl[c]);
		fa[3][c] = -dudphi * gl[c];
	}
	/* positions relative to j: i = -b1, k = b2, l = b2 + b3 */
	for (int c = 0; c < 3; c++)
		ra[c] = -b1[c];
	fek_mm_vir_sub(vir, ra, fa[0]);
	fek_mm_vir_sub(vir, b2, fa[2]);
	for (int c = 0; c < 3; c++)
		ra[c] = b2[c] + b3[c];
	fek_mm_vir_sub(vir, ra, fa[3]);
	return u;
}

#endif
