/*
 * pair_eval.h - pair potentials of particle types, one text for the CPU
 * and the GPU (FEK_HD); their tables and parameters are set up by
 * lib/particles/pair.c.  One type pair's coefficients, r^2 = |r_i - r_j|^2:
 *   LJ 12-6:  u = c12 / r^12 - c6 / r^6 - ushift inside rc (c12 = 4 eps
 *             sigma^12, c6 = 4 eps sigma^6; ushift = u_LJ(rc) when
 *             shifted, else 0); WCA is LJ cut at 2^(1/6) sigma and shifted;
 *             force-shifted, u + (r - rc) fc with fc = -u_LJ'(rc) (the
 *             force goes to 0 at rc too: Toxvaerd and Dyre 2011).
 *   table:    piecewise cubic Hermite in r on a uniform grid of (u, du/dr)
 *             nodes, so that the force is exactly minus the derivative of
 *             the energy that is reported (energy is conserved as for an
 *             analytic potential).
 * Each returns u and sets fr = -(du/dr) / r, so that the force on i is
 * fr (r_i - r_j).
 */
#ifndef FEK_PAIR_EVAL_H
#define FEK_PAIR_EVAL_H

#include <math.h>

#include "core/hd.h"

#define FEK_PMD_MAXTYPES 16	/* particle types */

/* ---- pair potentials ---------------------------------------------------- */

#define FEK_PAIR_LJ 0
#define FEK_PAIR_TABLE 1

/* One type pair.  rc2 = 0: the pair does not interact. */
struct fek_pair_coef {
	double c12, c6;			/* LJ */
	double rc2;			/* cutoff squared */
	double ushift;			/* LJ: subtracted inside rc */
	double fc, rc;			/* LJ force-shifted: -u'(rc), rc */
	double r0, h, ih;		/* table: first node, spacing, 1 / h */
	long off;			/* table: first node's (u, du/dr) pair */
	long nnode;			/* table: nodes */
};

FEK_HD double
fek_pair_lj(const struct fek_pair_coef *c, double r2, double *fr)
{
	double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;

	double u = (c->c12 * ir6 - c->c6) * ir6 - c->ushift;

	*fr = (12.0 * c->c12 * ir6 - 6.0 * c->c6) * ir6 * ir2;
	if (c->fc != 0) {
		double r = sqrt(r2);

		*fr -= c->fc / r;
		u += (r - c->rc) * c->fc;
	}
	return u;
}

/* The table: r below the first node is reported by *low = 1 (the caller
 * stops the run; LAMMPS does the same), and evaluated at the first node. */
FEK_HD double
fek_pair_table(const struct fek_pair_coef *c, const double *tab, double r2,
    double *fr, int *low)
{
	double r = sqrt(r2), t = (r - c->r0) * c->ih, t2, t3, u, du;
	long k;
	const double *p;

	if (t < 0) {
		*low = 1;
		t = 0;
	}
	k = (long)t;
	if (k > c->nnode - 2)
		k = c->nnode - 2;
	t -= (double)k;
	p = tab + 2 * (c->off + k);
	t2 = t * t;
	t3 = t2 * t;
	/* Hermite basis: h00 = 2t^3 - 3t^2 + 1, h10 = t^3 - 2t^2 + t,
	 * h01 = -2t^3 + 3t^2, h11 = t^3 - t^2 (h10, h11 times h) */
	u = (2 * t3 - 3 * t2 + 1) * p[0] + (t3 - 2 * t2 + t) * c->h * p[1] +
	    (-2 * t3 + 3 * t2) * p[2] + (t3 - t2) * c->h * p[3];
	du = (6 * t2 - 6 * t) * c->ih * p[0] + (3 * t2 - 4 * t + 1) * p[1] +
	    (-6 * t2 + 6 * t) * c->ih * p[2] + (3 * t2 - 2 * t) * p[3];
	*fr = -du / r;
	return u;
}

FEK_HD double
fek_pair_eval(int style, const struct fek_pair_coef *c, const double *tab,
    double r2, double *fr, int *low)
{
	if (style == FEK_PAIR_TABLE)
		return fek_pair_table(c, tab, r2, fr, low);
	return fek_pair_lj(c, r2, fr);
}

#endif
