/*
 * tpi_eval.h - the arithmetic of tpi-gpu that the CPU reference
 * (lib/tpi/insert.c) and the GPU (kernels/tpi.cu) share, one text compiled
 * by both (FEK_HD, as lib/md/pmd_eval.h): where an insertion goes, the
 * energy of a test particle with a stored configuration over a cell list,
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
 * slice triple (x fastest).  A point's neighbours within rc lie in the
 * image cells at offsets (dx, dy, dz) with |d| <= m_d = ceil(rc n_d /
 * w_d) (w_d the cell's perpendicular widths); the offsets are visited as
 * rows of fixed (dy, dz) and a range of dx, which are contiguous runs of
 * the sorted particles between the wraps of x.  Every image cell is
 * visited once, so the energy sums over all periodic images within rc:
 * the minimum-image energy whenever each width is at least 2 rc.  In an
 * orthogonal cell, rows and ends of rows that lie wholly beyond rc of
 * the home cell are left out (the seed's "shaving" of the
 * neighbourhood).
 */
#ifndef FEK_TPI_EVAL_H
#define FEK_TPI_EVAL_H

#include <math.h>
#include <stdint.h>

#include "md/pmd_eval.h"

#define FEK_RNG_INSERT 4	/* Philox purpose: insertion positions */
#define FEK_TPI_GROUP 1024	/* moves per group of the fixed-order sums */

/* A particle of the sorted frame. */
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
	double rc2max;			/* the largest cutoff, squared */
	float rcf2;			/* the single-precision screen */
};

/* Insertion k of frame f: fractional s and Cartesian r. */
FEK_HD void
fek_tpi_point(uint64_t key, uint64_t frame, uint64_t k,
    const struct fek_box *b, double *s, double *r)
{
	philox4x32_ctr_t c = fek_pmd_philox(key, (uint32_t)k,
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

/*
 * The energy of a test particle at r (Cartesian, in the cell), home cell
 * h, with the sorted atoms: coef[t] are its coefficients with type t.
 * skip: the sorted index of the particle itself (a deletion; its own
 * zero-offset image is left out), or -1.  single: every atom has type 0
 * and the pair is plain LJ (the loop skips the type lookup).  Returns
 * the energy (+inf for an overlap with a table's core).
 *
 * Candidates are screened first in single precision, from af (the
 * atoms' float copies), against rcf2, a radius wider than the cutoff by
 * more than single precision's error (frame.c); only those that pass are
 * tested again and summed in double precision from atom.  A candidate
 * within the cutoff always passes, so the sum is the double-precision
 * one, term for term; the screen halves the double-precision work and
 * the bytes read per candidate on the GPU.
 */
FEK_HD double
fek_tpi_energy(const struct fek_tpi_grid *g, const struct fek_tpi_row *rows,
    const struct fek_tpi_atomf *af, const struct fek_tpi_atom *atom,
    const int *cstart, const struct fek_pair_coef *coef, int style,
    const double *tab, int single, const double *r, int h, int skip)
{
	const struct fek_box *b = &g->box;
	const int nx = g->nc[0], ny = g->nc[1], nz = g->nc[2];
	const int hx = h % nx, hy = (h / nx) % ny, hz = h / (nx * ny);
	const float rcf2 = g->rcf2;
	double u = 0;

	for (int q = 0; q < g->nrow; q++) {
		int cy = hy + rows[q].dy, cz = hz + rows[q].dz;
		int wy = fek_tpi_wrap(&cy, ny), wz = fek_tpi_wrap(&cz, nz);
		int xend = hx + rows[q].dx1;
		/* r minus the image's lattice shift wy b + wz c */
		double py = r[1] - (wy * b->ly + wz * b->yz);
		double pz = r[2] - wz * b->lz;
		double pxb = r[0] - (wy * b->xy + wz * b->xz);
		int base = nx * (cy + ny * cz);

		for (int cx = hx + rows[q].dx0; cx <= xend;) {
			int c0 = cx, wx = fek_tpi_wrap(&c0, nx);
			int run = nx - c0;	/* cells to the wrap */
			int j0, j1, self;
			double px = pxb - wx * b->lx;
			float pxf = (float)px, pyf = (float)py, pzf = (float)pz;

			if (run > xend - cx + 1)
				run = xend - cx + 1;
			j0 = cstart[base + c0];
			j1 = cstart[base + c0 + run];
			self = (wx == 0 && wy == 0 && wz == 0) ? skip : -1;
			for (int j = j0; j < j1; j++) {
				struct fek_tpi_atomf a = af[j];
				float dxf = pxf - a.x, dyf = pyf - a.y;
				float dzf = pzf - a.z;
				double dx, dy, dz, r2;
				const struct fek_pair_coef *c;

				if (!(dxf * dxf + dyf * dyf + dzf * dzf < rcf2))
					continue;
				dx = px - atom[j].x;
				dy = py - atom[j].y;
				dz = pz - atom[j].z;
				r2 = dx * dx + dy * dy + dz * dz;
				c = single ? coef : &coef[a.type];
				if (!(r2 < c->rc2) || j == self)
					continue;
				if (single) {
					double ir2 = 1.0 / r2;
					double ir6 = ir2 * ir2 * ir2;

					u += (c->c12 * ir6 - c->c6) * ir6 -
					    c->ushift;
				} else {
					u += fek_tpi_pair_u(style, c, tab, r2);
				}
			}
			cx += run;
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
