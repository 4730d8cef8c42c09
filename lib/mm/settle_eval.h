/*
 * settle_eval.h - SETTLE, one rigid water's constraints, in arithmetic the
 * CPU reference (constr.c, whose header comment gives the steps and their
 * sources: Miyamoto and Kollman, J. Comput. Chem. 13, 952 (1992) for the
 * positions; an exact 3 x 3 solve for the velocities) and the GPU
 * (kernels/mm/run.cu) share, one text compiled by both (FEK_HD, as
 * lib/pmd/pmd_eval.h).  Nothing here reports errors: the functions return
 * a code and the callers say what went wrong.
 */
#ifndef FEK_MM_SETTLE_EVAL_H
#define FEK_MM_SETTLE_EVAL_H

#include <math.h>
#include <string.h>

#include "particles/box_eval.h"
#include "mm/vec3.h"

/* One water of SETTLE: atoms and its canonical geometry. */
struct fek_mm_settle {
	int at[3];			/* O, H1, H2 */
	double mo, mh;			/* masses (g/mol) */
	double doh, dhh;		/* nm */
	double ra, rb, rc;		/* canonical water (constr.c, step 3) */
};

FEK_HD void
fek_mm_normalise(double *a)
{
	double s = 1 / sqrt(fek_vdot(a, a));

	a[0] *= s;
	a[1] *= s;
	a[2] *= s;
}

/* vir -= s a (x) b (3 x 3, row-major). */
FEK_HD void
fek_mm_vir_outer_sub(double *vir, double s, const double *a, const double *b)
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			vir[3 * r + c] -= s * a[r] * b[c];
}

/*
 * One water's positions by the steps at the top of the file: xref the
 * old positions (the constraints hold there), x the unconstrained new
 * ones, moved in place to the constrained ones; with vir (dt > 0) the
 * constraint forces' virial subtracted into it.  -1
 * when the water moved too far for a solution, with sin phi and sin psi
 * in why[0..1] (why may be NULL).
 */
FEK_HD int
fek_mm_settle_x(const struct fek_mm_settle *w, const struct fek_box *b,
    const double *xref, double *x, double dt, double *vir, double *why)
{
	const int *at = w->at;
	const double m[3] = { w->mo, w->mh, w->mh }, mt = w->mo + 2 * w->mh;
	const double ra = w->ra, rb = w->rb, rc = w->rc;
	double p0[3][3], p1[3][3], com0[3], com1[3], q0[3][3], q1[3][3];
	double ax[3][3], e1[3], e2[3], l0[3][2], l1[3][3], l2[3][3];
	double sphi, cphi, spsi = 0, cpsi, alpha, beta, gamma, disc, sth, cth;

	/* 1: old and unconstrained positions relative to xref of O */
	memset(p0[0], 0, sizeof p0[0]);
	fek_vimage(b, xref, at[1], at[0], p0[1]);
	fek_vimage(b, xref, at[2], at[0], p0[2]);
	for (int c = 0; c < 3; c++)
		p1[0][c] = x[3 * at[0] + c] - xref[3 * at[0] + c];
	fek_box_minimage(b, p1[0]);
	fek_vimage(b, x, at[1], at[0], p1[1]);
	fek_vimage(b, x, at[2], at[0], p1[2]);
	for (int c = 0; c < 3; c++) {
		p1[1][c] += p1[0][c];
		p1[2][c] += p1[0][c];
	}
	for (int c = 0; c < 3; c++) {
		com0[c] = (m[0] * p0[0][c] + m[1] * p0[1][c] +
		    m[2] * p0[2][c]) / mt;
		com1[c] = (m[0] * p1[0][c] + m[1] * p1[1][c] +
		    m[2] * p1[2][c]) / mt;
		for (int i = 0; i < 3; i++) {
			q0[i][c] = p0[i][c] - com0[c];
			q1[i][c] = p1[i][c] - com1[c];
		}
	}

	/* 2: the frame ax[0] = X, ax[1] = Y, ax[2] = Z */
	for (int c = 0; c < 3; c++) {
		e1[c] = p0[1][c] - p0[0][c];
		e2[c] = p0[2][c] - p0[0][c];
	}
	fek_vcross(e1, e2, ax[2]);
	fek_mm_normalise(ax[2]);
	fek_vcross(q1[0], ax[2], ax[0]);
	fek_mm_normalise(ax[0]);
	fek_vcross(ax[2], ax[0], ax[1]);
	for (int i = 0; i < 3; i++) {
		l0[i][0] = fek_vdot(ax[0], q0[i]);
		l0[i][1] = fek_vdot(ax[1], q0[i]);
		for (int c = 0; c < 3; c++)
			l1[i][c] = fek_vdot(ax[c], q1[i]);
	}

	/* 3: the canonical water turned by psi about Y, phi about X */
	sphi = l1[0][2] / ra;
	if (!(fabs(sphi) < 1))
		goto toofar;
	cphi = sqrt(1 - sphi * sphi);
	spsi = (l1[1][2] - l1[2][2]) / (2 * rc * cphi);
	if (!(fabs(spsi) < 1))
		goto toofar;
	cpsi = sqrt(1 - spsi * spsi);
	l2[0][0] = 0;
	l2[0][1] = ra * cphi;
	l2[0][2] = ra * sphi;
	l2[1][0] = -rc * cpsi;
	l2[1][1] = -rb * cphi - rc * spsi * sphi;
	l2[1][2] = -rb * sphi + rc * spsi * cphi;
	l2[2][0] = rc * cpsi;
	l2[2][1] = -rb * cphi + rc * spsi * sphi;
	l2[2][2] = -rb * sphi - rc * spsi * cphi;

	/* 4: the turn theta about Z without torque about the old water */
	alpha = beta = gamma = 0;
	for (int i = 0; i < 3; i++) {
		alpha += m[i] * (l0[i][0] * l2[i][0] + l0[i][1] * l2[i][1]);
		beta += m[i] * (l0[i][0] * l2[i][1] - l0[i][1] * l2[i][0]);
		gamma += m[i] * (l0[i][0] * l1[i][1] - l0[i][1] * l1[i][0]);
	}
	disc = alpha * alpha + beta * beta - gamma * gamma;
	if (!(disc > 0))
		goto toofar;
	sth = (alpha * gamma - beta * sqrt(disc)) /
	    (alpha * alpha + beta * beta);
	if (!(fabs(sth) < 1))
		goto toofar;
	cth = sqrt(1 - sth * sth);

	/* 5: back to the cell's axes; each atom moved by final - x' */
	for (int i = 0; i < 3; i++) {
		double l3[3], dx[3];

		l3[0] = l2[i][0] * cth - l2[i][1] * sth;
		l3[1] = l2[i][0] * sth + l2[i][1] * cth;
		l3[2] = l2[i][2];
		for (int c = 0; c < 3; c++) {
			double p3 = com1[c] + ax[0][c] * l3[0] +
			    ax[1][c] * l3[1] + ax[2][c] * l3[2];

			dx[c] = p3 - p1[i][c];
			x[3 * at[i] + c] += dx[c];
		}
		if (vir != NULL && dt > 0 && i > 0)
			fek_mm_vir_outer_sub(vir, 0.5 * m[i] / (dt * dt), p0[i], dx);
	}
	return 0;
toofar:
	if (why != NULL) {
		why[0] = sphi;
		why[1] = fabs(sphi) < 1 ? spsi : 0;
	}
	return -1;
}

/*
 * The solution of the 3 x 3 system A y = r by Cramer's rule; -1 when A
 * is singular (a water whose atoms are on one line).
 */
FEK_HD int
fek_mm_solve3(double A[3][3], const double *r, double *y)
{
	double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
	    A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
	    A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);

	if (!(fabs(det) > 0))
		return -1;
	for (int k = 0; k < 3; k++) {
		double B[3][3];

		memcpy(B, A, sizeof B);
		for (int r2 = 0; r2 < 3; r2++)
			B[r2][k] = r[r2];
		y[k] = (B[0][0] * (B[1][1] * B[2][2] - B[1][2] * B[2][1]) -
		    B[0][1] * (B[1][0] * B[2][2] - B[1][2] * B[2][0]) +
		    B[0][2] * (B[1][0] * B[2][1] - B[1][1] * B[2][0])) / det;
	}
	return 0;
}

/*
 * One water's velocities: v (n x 3) changed so that none of its three
 * bonds at x has a relative velocity along itself, by the exact solution
 * of the linear system at the top of the file; with vir (dt > 0) the
 * virial of the forces m dv / dt subtracted into it.  -1 for a water on
 * one line.
 */
FEK_HD int
fek_mm_settle_v(const struct fek_mm_settle *w, const struct fek_box *b,
    const double *x, double *v, double dt, double *vir)
{
	/* the bonds O-H1, O-H2, H1-H2 as pairs of the water's atoms */
	static const int pair[3][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
	const double im[3] = { 1 / w->mo, 1 / w->mh, 1 / w->mh };
	double r[3][3], len[3], e[3][3], A[3][3], rhs[3], h[3];
	double s[3][3] = { { 0 } };	/* s[k][i]: bond k's sign on atom i */

	for (int k = 0; k < 3; k++) {
		int i = pair[k][0], j = pair[k][1];
		double vij[3];

		s[k][i] = 1;
		s[k][j] = -1;
		fek_vimage(b, x, w->at[i], w->at[j], r[k]);
		len[k] = sqrt(fek_vdot(r[k], r[k]));
		for (int c = 0; c < 3; c++) {
			e[k][c] = r[k][c] / len[k];
			vij[c] = v[3 * w->at[i] + c] - v[3 * w->at[j] + c];
		}
		rhs[k] = -fek_vdot(e[k], vij);
	}
	for (int k = 0; k < 3; k++)
		for (int l = 0; l < 3; l++) {
			double a = 0;

			for (int i = 0; i < 3; i++)
				a += s[k][i] * s[l][i] * im[i];
			A[k][l] = a * fek_vdot(e[k], e[l]);
		}
	if (fek_mm_solve3(A, rhs, h) < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		for (int c = 0; c < 3; c++) {
			double dv = 0;

			for (int k = 0; k < 3; k++)
				dv += s[k][i] * h[k] * e[k][c];
			v[3 * w->at[i] + c] += im[i] * dv;
		}
	if (vir != NULL && dt > 0)
		for (int k = 0; k < 3; k++)
			fek_mm_vir_outer_sub(vir, 0.5 * h[k] * len[k] / dt, e[k], e[k]);
	return 0;
}

#endif
