/*
 * box_eval.h - the periodic cell that every particle engine (lib/pmd,
 * lib/mm, lib/tpi, lib/bd) shares, one text for the CPU and the GPU
 * (FEK_HD).  The cell (LAMMPS's convention): edge vectors a = (lx, 0, 0),
 * b = (xy, ly, 0), c = (xz, yz, lz) from the origin lo; orthorhombic when
 * the tilts xy, xz, yz are 0.  Minimum image by c, then b, then a, which
 * is the nearest image for separations below half of every perpendicular
 * width when each tilt is at most half the edge it leans along (the
 * callers check both: fek_box_check, lib/particles/particles.h).
 */
#ifndef FEK_BOX_EVAL_H
#define FEK_BOX_EVAL_H

#include <math.h>

#include "core/hd.h"

/* ---- the periodic cell -------------------------------------------------- */

struct fek_box {
	double lo[3];			/* origin */
	double lx, ly, lz;		/* edges along the axes */
	double xy, xz, yz;		/* tilts */
	double ilx, ily, ilz;		/* 1 / lx, 1 / ly, 1 / lz */
};

/* rint for |x| < 2^51: on the host by the FPU's own rounding of x +
 * 1.5 2^52 (no call, and it vectorises where rint does not). */
FEK_HD double
fek_rint(double x)
{
#ifdef __CUDA_ARCH__
	return rint(x);
#else
	const double m = 6755399441055744.0;

	return (x + m) - m;
#endif
}

/* d = r_i - r_j -> its minimum image. */
FEK_HD void
fek_box_minimage(const struct fek_box *b, double *d)
{
	double n;

	n = fek_rint(d[2] * b->ilz);
	d[2] -= n * b->lz;
	d[1] -= n * b->yz;
	d[0] -= n * b->xz;
	n = fek_rint(d[1] * b->ily);
	d[1] -= n * b->ly;
	d[0] -= n * b->xy;
	n = fek_rint(d[0] * b->ilx);
	d[0] -= n * b->lx;
}

/* Fractional coordinates s (each in [0, 1) for a point in the cell). */
FEK_HD void
fek_box_frac(const struct fek_box *b, const double *r, double *s)
{
	double x = r[0] - b->lo[0], y = r[1] - b->lo[1], z = r[2] - b->lo[2];

	s[2] = z * b->ilz;
	s[1] = (y - s[2] * b->yz) * b->ily;
	s[0] = (x - s[1] * b->xy - s[2] * b->xz) * b->ilx;
}

/* r -> its image in the cell (fractional coordinates in [0, 1), up to
 * rounding at the faces). */
FEK_HD void
fek_box_wrap(const struct fek_box *b, double *r)
{
	double x = r[0] - b->lo[0], y = r[1] - b->lo[1], z = r[2] - b->lo[2];
	double n, sz, sy;

	n = floor(z * b->ilz);
	z -= n * b->lz;
	y -= n * b->yz;
	x -= n * b->xz;
	sz = z * b->ilz;
	n = floor((y - sz * b->yz) * b->ily);
	y -= n * b->ly;
	x -= n * b->xy;
	sy = (y - sz * b->yz) * b->ily;
	n = floor((x - sy * b->xy - sz * b->xz) * b->ilx);
	x -= n * b->lx;
	r[0] = b->lo[0] + x;
	r[1] = b->lo[1] + y;
	r[2] = b->lo[2] + z;
}

#endif
