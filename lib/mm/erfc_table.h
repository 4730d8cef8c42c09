/*
 * erfc_table.h - erfc(x) on [0, xmax] by cubic Hermite interpolation of a
 * table of erfc and its derivative -2/sqrt(pi) exp(-x^2) at nodes h
 * apart, for the real-space Ewald sums where libm's erfc is most of the
 * time (tpi-gpu --top's test insertions, lib/tpi/mol.c).  One text for
 * the CPU and the GPU (FEK_HD).
 *
 * The error of cubic Hermite interpolation on a step h is at most
 * h^4 / 384 max|f''''| (de Boor, A Practical Guide to Splines, 2001,
 * ch. II); for erfc, max|f''''| = 2/sqrt(pi) max|(12x - 8x^3) e^(-x^2)|
 * < 4.4, so with h = 1/1024 the error is below 1.1e-14, a few units of
 * the last place of erfc near 0.  tests/erfc-table-check measures it
 * against libm's erfc.
 */
#ifndef FEK_ERFC_TABLE_H
#define FEK_ERFC_TABLE_H

#include "core/hd.h"

#define FEK_ERFC_TABLE_STEPS 1024	/* nodes a unit of x */

/* v[2 i] = erfc(x_i), v[2 i + 1] = h erfc'(x_i), x_i = i h, i = 0 .. n */
struct fek_erfc_table {
	double ih;			/* 1 / h */
	double xmax;			/* n h */
	int n;
	double *v;
};

#ifdef __cplusplus
extern "C" {
#endif
/* The table for x in [0, xmax] (allocates; fek_alloc's exit on failure). */
void	fek_erfc_table_new(struct fek_erfc_table *t, double xmax);
void	fek_erfc_table_free(struct fek_erfc_table *t);
#ifdef __cplusplus
}
#endif

/* erfc(x) for 0 <= x <= t->xmax (outside: the end intervals' cubics). */
FEK_HD double
fek_erfc_table_eval(const struct fek_erfc_table *t, double x)
{
	double s = x * t->ih;
	int i = (int)s;

	if (i >= t->n)
		i = t->n - 1;
	if (i < 0)
		i = 0;
	s -= i;
	{
		/* indexed from t->v, so that a vectorised loop gathers */
		double p0 = t->v[2 * i], m0 = t->v[2 * i + 1];
		double p1 = t->v[2 * i + 2], m1 = t->v[2 * i + 3];

		return p0 + s * (m0 + s * (3 * (p1 - p0) - 2 * m0 - m1 +
		    s * (2 * (p0 - p1) + m0 + m1)));
	}
}

#endif
