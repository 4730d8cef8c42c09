/*
 * tpi_eval.h - the arithmetic of tpi-gpu that the CPU reference
 * (lib/tpi/insert.c) and the GPU (kernels/tpi/insert.cu) share, one text
 * compiled by both (FEK_HD, as lib/pmd/pmd_eval.h): where an insertion goes,
 * the energy of a test particle with a stored configuration over a cell list,
 * and one group's share of the Boltzmann sums.
 *
 * Daly, Benziger, Debenedetti and Panagiotopoulos, Comput. Phys. Commun.
 * 183, 2054 (2012): Eq. 1 (Widom), Eq. 2 (overlap sampling) and the sums
 * of their Algorithm 1 (I_T, I_O over insertions; D_O over deletions).
 *
 * Insertion k into the frame whose id is f goes to the fractional
 * coordinates s_d = (w_d + 1/2) 2^-32, w_0..w_2 the first three words of
 * Philox4x32-10 (Random123) with counter (k mod 2^32, k / 2^32, f mod
 * 2^32, f / 2^32 | purpose) and the run's key: uniform in the cell,
 * independent of threads, launch geometry, devices, and of which other
 * frames a run reads.
 *
 * The cell list: the cell (a parallelepiped, LAMMPS's convention, see
 * pmd_eval.h) is cut into nc_d slices along each fractional axis, each
 * at least rc / sub wide between its faces; particles are sorted by
 * slice triple (x fastest) and stored relative to the origin of their
 * row of cells (fek_tpi_origin).  A point's neighbours within rc lie in
 * the image cells at offsets (dx, dy, dz) with |d| <= m_d = ceil(rc n_d
 * / w_d) (w_d the cell's perpendicular widths); the offsets are visited
 * as rows of fixed (dy, dz) and a range of dx, which are contiguous runs
 * of the sorted particles between the wraps of x.  Every image cell is
 * visited once, so the energy sums over all periodic images within rc:
 * the minimum-image energy whenever each width is at least 2 rc.  In an
 * orthogonal cell, rows and ends of rows that lie wholly beyond rc of
 * the home cell are left out (the seed's "shaving" of the
 * neighbourhood).
 *
 * Arithmetic: candidates are screened in single precision and summed in
 * double precision; with "mixed", pairs of plain LJ that are neither
 * close (where the energy is steep) nor near the cutoff are summed in
 * single precision instead (fek_tpi_run), where they match double precision
 * to 1e-5 kT (frame.c chooses the close radius so; tests/gpu-tpi.sh
 * checks it).
 */
#ifndef FEK_TPI_EVAL_H
#define FEK_TPI_EVAL_H

#include <math.h>
#include <stdint.h>

#include "particles/box_eval.h"
#include "particles/pair_eval.h"
#include "particles/rng_eval.h"

#define FEK_RNG_INSERT 4	/* Philox purpose: insertion positions */
#define FEK_TPI_GROUP 1024	/* moves per group of the fixed-order sums */

/* A particle of the sorted frame: its position relative to the origin
 * of its row of cells (fek_tpi_origin), in double precision. */
struct fek_tpi_atom {
	double x, y, z;
	int type;
	int orig;			/* its row in the frame as read */
};

/* A row of the neighbourhood: image cells (dx, dy, dz), dx0 <= dx <= dx1. */
struct fek_tpi_row {
	int dy, dz, dx0, dx1;
};

/* The cell list of one frame (what the energy loop needs besides the
 * particles, the rows and the cell starts). */
struct fek_tpi_grid {
	struct fek_box box;
	int nc[3];			/* slices along a, b, c */
	int ncell;			/* nc[0] nc[1] nc[2] */
	int nrow;
	int maxrun;			/* the most runs a row breaks into */
	double rc2max;			/* the largest cutoff, squared */
	float rcf2;			/* the single-precision screen */
};

/* A run of the neighbourhood: the sorted particles j0 <= j < j1 (cells
 * of one row between wraps of x), all seen through one lattice image;
 * a test position r is r - s relative to their stored coordinates. */
struct fek_tpi_seg {
	double s[3];
	int j0, j1;
};

/* A pair's single-precision LJ coefficients (the mixed arithmetic):
 * pairs with near2 <= r^2 < band2 are summed in single precision, the
 * rest (close pairs, whose energy is steep, and a band about the cutoff,
 * where single precision could decide the truncation otherwise) in
 * double precision. */
struct fek_tpi_coeff {
	float c12, c6, ushift, near2, band2;
};

/* Insertion k of frame f: fractional s and Cartesian r. */
FEK_HD void
fek_tpi_point(uint64_t key, uint64_t frame, uint64_t k,
    const struct fek_box *b, double *s, double *r)
{
	philox4x32_ctr_t c = fek_rng_philox(key, (uint32_t)k,
	    (uint32_t)(k >> 32), frame, FEK_RNG_INSERT, 0);
	const double two32 = 2.3283064365386963e-10;	/* 2^-32 */

	s[0] = ((double)c.v[0] + 0.5) * two32;
	s[1] = ((double)c.v[1] + 0.5) * two32;
	s[2] = ((double)c.v[2] + 0.5) * two32;
	r[0] = b->lo[0] + s[0] * b->lx + s[1] * b->xy + s[2] * b->xz;
	r[1] = b->lo[1] + s[1] * b->ly + s[2] * b->yz;
	r[2] = b->lo[2] + s[2] * b->lz;
}

/* The slice of fractional coordinate s in n slices (s in [0, 1]). */
FEK_HD int
fek_tpi_slice(double s, int n)
{
	int i = (int)floor(s * n);

	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* The cell of fractional coordinates s. */
FEK_HD int
fek_tpi_cell(const struct fek_tpi_grid *g, const double *s)
{
	return fek_tpi_slice(s[0], g->nc[0]) + g->nc[0] *
	    (fek_tpi_slice(s[1], g->nc[1]) + g->nc[1] *
	    fek_tpi_slice(s[2], g->nc[2]));
}

/* *c -> *c mod n (in 0 .. n - 1), returning floor(c / n): the image
 * of a slice index (a loop: no division where |c| < n, the usual case). */
FEK_HD int
fek_tpi_wrap(int *c, int n)
{
	int w = 0;

	while (*c < 0) {
		*c += n;
		w--;
	}
	while (*c >= n) {
		*c -= n;
		w++;
	}
	return w;
}

/* The origin of the row of cells (cy, cz) (slices along b and c): the
 * point at fractions (1/2, cy / ny, cz / nz) of the cell.  Particles are
 * stored relative to it, so that their single-precision copies keep
 * about seven digits of a distance of a few cutoffs (rather than of the
 * box) along b and c, and along a of half the box. */
FEK_HD void
fek_tpi_origin(const struct fek_tpi_grid *g, int cy, int cz, double *o)
{
	const struct fek_box *b = &g->box;
	double fy = (double)cy / g->nc[1], fz = (double)cz / g->nc[2];

	o[0] = b->lo[0] + 0.5 * b->lx + fy * b->xy + fz * b->xz;
	o[1] = b->lo[1] + fy * b->ly + fz * b->yz;
	o[2] = b->lo[2] + fz * b->lz;
}

/*
 * The next run of row rw of home cell (hx, hy, hz), from slice *cx on
 * (start at hx + rw->dx0): fills *sg (orig: the row origins, 3 a row of
 * cells, cy + ny cz) and advances *cx; returns 0, filling nothing, past
 * the row's end.  *zero: the run is seen through the zero image.
 */
FEK_HD int
fek_tpi_seg_next(const struct fek_tpi_grid *g, const double *orig,
    const int *cstart, const struct fek_tpi_row *rw, int hx, int hy,
    int hz, int *cx, struct fek_tpi_seg *sg, int *zero)
{
	const struct fek_box *b = &g->box;
	const int nx = g->nc[0], ny = g->nc[1], nz = g->nc[2];
	int cy = hy + rw->dy, cz = hz + rw->dz, xend = hx + rw->dx1;
	int wy, wz, wx, c0 = *cx, run, base;
	const double *o;

	if (*cx > xend)
		return 0;
	wy = fek_tpi_wrap(&cy, ny);
	wz = fek_tpi_wrap(&cz, nz);
	wx = fek_tpi_wrap(&c0, nx);
	run = nx - c0;			/* cells to the wrap */
	if (run > xend - *cx + 1)
		run = xend - *cx + 1;
	base = nx * (cy + ny * cz);
	o = orig + 3 * (cy + ny * cz);
	/* the row's origin moved by the lattice image wx a + wy b + wz c */
	sg->s[0] = o[0] + (wx * b->lx + wy * b->xy + wz * b->xz);
	sg->s[1] = o[1] + (wy * b->ly + wz * b->yz);
	sg->s[2] = o[2] + wz * b->lz;
	sg->j0 = cstart[base + c0];
	sg->j1 = cstart[base + c0 + run];
	*zero = wx == 0 && wy == 0 && wz == 0;
	*cx += run;
	return 1;
}

/* Every run of home cell h's neighbourhood, rows and runs in order, into
 * sg (room for g->nrow g->maxrun); returns their number. */
FEK_HD int
fek_tpi_segs(const struct fek_tpi_grid *g, const struct fek_tpi_row *rows,
    const double *orig, const int *cstart, int h, struct fek_tpi_seg *sg)
{
	const int nx = g->nc[0], ny = g->nc[1];
	const int hx = h % nx, hy = (h / nx) % ny, hz = h / (nx * ny);
	int n = 0;

	for (int q = 0; q < g->nrow; q++) {
		int cx = hx + rows[q].dx0, zero;

		while (fek_tpi_seg_next(g, orig, cstart, &rows[q], hx, hy, hz,
		    &cx, &sg[n], &zero))
			n++;
	}
	return n;
}

/* LJ (or table) energy of one pair at r2 < rc2 of its coefficients. */
FEK_HD double
fek_tpi_pair_u(int style, const struct fek_pair_coef *c, const double *tab,
    double r2)
{
	double fr;
	int low = 0;

	if (style == FEK_PAIR_LJ && c->fc == 0) {
		double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;

		return (c->c12 * ir6 - c->c6) * ir6 - c->ushift;
	}
	if (style == FEK_PAIR_TABLE) {
		double u = fek_pair_table(c, tab, r2, &fr, &low);

		return low ? INFINITY : u;
	}
	return fek_pair_lj(c, r2, &fr);
}

/* A particle's position in single precision and its type: what the
 * energy loop screens candidates with (16 bytes, one load on the GPU). */
#ifdef __cplusplus
#define FEK_ALIGN16 alignas(16)
#else
#define FEK_ALIGN16 _Alignas(16)
#endif
struct fek_tpi_atomf {
	FEK_ALIGN16 float x;
	float y, z;
	int type;
};

/* 1 / x in single precision: on the GPU its approximate reciprocal (one
 * ulp; x is a squared distance, never subnormal). */
#ifdef __CUDA_ARCH__
FEK_HD float
fek_tpi_rcpf(float x)
{
	float y;

	asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
	return y;
}
/* Keep x in a register from here on: the compiler would otherwise
 * recompute a loop's invariants inside it. */
#define FEK_TPI_PIN(x) asm volatile("" : "+f"(x))
#else
FEK_HD float
fek_tpi_rcpf(float x)
{
	return 1.0f / x;
}
#define FEK_TPI_PIN(x) ((void)0)
#endif

/* What the energy loop reads of a frame and its potential. */
struct fek_tpi_view {
	const struct fek_tpi_atomf *af;	/* single-precision copies */
	const struct fek_tpi_atom *atom;
	const struct fek_pair_coef *coef;	/* [t]: the inserted type's
						   with type t */
	const struct fek_tpi_coeff *cf;	/* the same for mixed arithmetic */
	const double *tab;
	int style;
};

/*
 * The energy of a test particle at p (relative to the stored positions
 * of sg, p = r - sg->s) with the particles j0 <= j < j1 of a run; self:
 * a sorted index to leave out (a deletion's own zero-image copy), or -1.
 * single: every particle has type 0 and the pair is plain LJ (no type
 * lookup).  mixed: plain LJ pairs that are neither close nor near the
 * cutoff (struct fek_tpi_coeff) in single precision, summed in single
 * precision over the run and added to the double-precision sum of the
 * others; otherwise every pair in double precision.
 *
 * Candidates are screened first in single precision against rcf2, a
 * radius wider than the cutoff by more than single precision's error
 * (frame.c); only those that pass are tested again and summed in double
 * precision.  A candidate within the cutoff always passes, so without
 * mixed the sum is the double-precision one, term for term.
 */
FEK_HD double
fek_tpi_run(const struct fek_tpi_view *v, float rcf2, int single, int mixed,
    const double *p, int j0, int j1, int self)
{
	float pxf = (float)p[0], pyf = (float)p[1], pzf = (float)p[2];
	float c12 = 0, c6 = 0, ush = 0, near2 = 0, band2 = 0;
	double u = 0;
	float uf = 0;

	FEK_TPI_PIN(pxf);
	FEK_TPI_PIN(pyf);
	FEK_TPI_PIN(pzf);
	if (mixed && single) {
		/* one type: its coefficients, loaded once */
		c12 = v->cf->c12;
		c6 = v->cf->c6;
		ush = v->cf->ushift;
		near2 = v->cf->near2;
		band2 = v->cf->band2;
		FEK_TPI_PIN(c12);
		FEK_TPI_PIN(c6);
		FEK_TPI_PIN(ush);
		FEK_TPI_PIN(near2);
		FEK_TPI_PIN(band2);
	}
	for (int j = j0; j < j1; j++) {
		struct fek_tpi_atomf a = v->af[j];
		float dxf = pxf - a.x, dyf = pyf - a.y, dzf = pzf - a.z;
		float r2f = dxf * dxf + dyf * dyf + dzf * dzf;
		double dx, dy, dz, r2;
		const struct fek_pair_coef *c;

		if (!(r2f < rcf2))
			continue;
		if (mixed) {
			if (!single) {
				const struct fek_tpi_coeff *cf = &v->cf[a.type];

				c12 = cf->c12;
				c6 = cf->c6;
				ush = cf->ushift;
				near2 = cf->near2;
				band2 = cf->band2;
			}
			if (r2f >= near2 && r2f < band2) {
				float ir2 = fek_tpi_rcpf(r2f);
				float ir6 = ir2 * ir2 * ir2;

				uf += (c12 * ir6 - c6) * ir6 - ush;
				continue;
			}
		}
		dx = p[0] - v->atom[j].x;
		dy = p[1] - v->atom[j].y;
		dz = p[2] - v->atom[j].z;
		r2 = dx * dx + dy * dy + dz * dz;
		c = single ? v->coef : &v->coef[a.type];
		if (!(r2 < c->rc2) || j == self)
			continue;
		if (single) {
			double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;

			u += (c->c12 * ir6 - c->c6) * ir6 - c->ushift;
		} else {
			u += fek_tpi_pair_u(v->style, c, v->tab, r2);
		}
	}
	return u + (double)uf;
}

/*
 * The energy of a test particle at r (Cartesian, in the cell), home cell
 * h: the runs of every row of the neighbourhood (fek_tpi_seg_next), in
 * order.  skip: the sorted index of the particle itself (a deletion; its
 * own zero-image copy is left out), or -1.  Returns the energy (+inf for
 * an overlap with a table's core).
 */
FEK_HD double
fek_tpi_energy(const struct fek_tpi_grid *g, const struct fek_tpi_row *rows,
    const double *orig, const int *cstart, const struct fek_tpi_view *v,
    int single, int mixed, const double *r, int h, int skip)
{
	const int nx = g->nc[0], ny = g->nc[1];
	const int hx = h % nx, hy = (h / nx) % ny, hz = h / (nx * ny);
	double u = 0;

	for (int q = 0; q < g->nrow; q++) {
		struct fek_tpi_seg sg;
		int cx = hx + rows[q].dx0, zero;

		while (fek_tpi_seg_next(g, orig, cstart, &rows[q], hx, hy, hz,
		    &cx, &sg, &zero)) {
			double p[3] = { r[0] - sg.s[0], r[1] - sg.s[1],
			    r[2] - sg.s[2] };

			u += fek_tpi_run(v, g->rcf2, single, mixed, p, sg.j0,
			    sg.j1, zero ? skip : -1);
		}
	}
	return u;
}

/* One group's share of the sums (up to FEK_TPI_GROUP moves): with x =
 * -beta u (insertions) or +beta u (deletions) and m the group's largest
 * x, sT = sum e^(x - m), sO = sum e^((x - m)/2), and sU = sum beta u
 * e^(x - m) (insertions: the Boltzmann-weighted energy) or sum beta u
 * (deletions). */
struct fek_tpi_part {
	double m, sT, sO, sU;
};

/* The value of move i for sum kind w (0 T, 1 O, 2 U) of a group whose
 * largest x is m; 0 for a move whose weight is 0. */
FEK_HD double
fek_tpi_term(double bu, int del, double m, int w)
{
	double x = del ? bu : -bu;

	if (w == 2 && del)
		return bu;
	if (x == -INFINITY)
		return 0;
	if (w == 0)
		return exp(x - m);
	if (w == 1)
		return exp(0.5 * (x - m));
	return bu * exp(x - m);
}

/* The histogram slot of beta u for nb bins of width w from lo: 0 below
 * the range, 1 + b for bin b, nb + 1 at or above its end (and +inf). */
FEK_HD long
fek_tpi_slot(double bu, double lo, double w, long nb)
{
	double b = floor((bu - lo) / w);

	if (bu < lo)
		return 0;
	if (!(b < (double)nb))
		return nb + 1;
	return (long)b + 1;
}

#endif
