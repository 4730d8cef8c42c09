/*
 * vec3.h - the 3-vector arithmetic of lib/mm's geometry (bonded.c,
 * constr.c and their tests): dot and cross products, and the minimum-image
 * difference of two atoms' positions.  FEK_HD, so that kernels can share
 * it.
 */
#ifndef FEK_MM_VEC3_H
#define FEK_MM_VEC3_H

#include "particles/box_eval.h"

FEK_HD double
fek_vdot(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* c = a x b (c must not be a or b). */
FEK_HD void
fek_vcross(const double *a, const double *b, double *c)
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

/* d = x[ia] - x[ib] (rows of 3), its minimum image in box b. */
FEK_HD void
fek_vimage(const struct fek_box *b, const double *x, long ia, long ib,
    double *d)
{
	for (int c = 0; c < 3; c++)
		d[c] = x[3 * ia + c] - x[3 * ib + c];
	fek_box_minimage(b, d);
}

#endif
