/*
 * nlist.c - Verlet neighbour lists (Verlet 1967) built through cell lists
 * (Allen and Tildesley, 2nd ed., section 5.3), on the CPU with OpenMP.
 *
 * A box's list holds each pair of particles closer than rlist = rc + skin
 * in the positions xref at the build once (half rows, for Newton's third
 * law): in i's row when j's cell is i's or comes after it in the forward
 * half of the cell stencil (Allen and Tildesley, section 5.3), each j
 * with the lattice translation that brings it next to i (so the forces
 * need no minimum image as long as the positions are not wrapped between
 * builds).  The rows are ordered by the stencil, then by j within a cell.
 * Cells are cut in fractional coordinates, at least rlist / 2 wide
 * between faces (a stencil of 5 x 5 x 5 cells; Allen and Tildesley's
 * smaller cells cut the pairs looked at from 27 x 1 to 125 x 1/8 of a
 * cell of side rlist), or rlist wide (3 x 3 x 3) where the box is under 5
 * such cells wide, so the stencil holds every neighbour of a triclinic box
 * too.  A box narrower than 3 cells of rlist is searched by all pairs.
 *
 * The list is rebuilt when a particle has moved more than skin/2 since
 * the build (no pair can then have come closer than rc unseen).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "pmd/pmd.h"

void
fek_nlist_init(struct fek_nlist *nl, const struct fek_psys *s, double rc,
    double skin)
{
	double rl = rc + skin, rho = 0;

	memset(nl, 0, sizeof *nl);
	nl->rc = rc;
	nl->skin = skin;
	for (int b = 0; b < s->nbox; b++)
		if (s->n / fek_box_volume(&s->box[b]) > rho)
			rho = s->n / fek_box_volume(&s->box[b]);
	/* half the mean count and a margin; rows grow when a build needs
	 * more */
	nl->maxnb = (long)(1.3 * 2.0 / 3 * M_PI * rl * rl * rl * rho) + 16;
	if (nl->maxnb > s->n)
		nl->maxnb = s->n;
	nl->maxnb = (nl->maxnb + 7) / 8 * 8;
	nl->nb = fek_alloc(s->n * s->nbox * nl->maxnb, sizeof *nl->nb);
	nl->cnt = fek_alloc(s->n * s->nbox, sizeof *nl->cnt);
	nl->shift = fek_alloc(3 * FEK_NL_NCODE * s->nbox, sizeof *nl->shift);
}

void
fek_nlist_free(struct fek_nlist *nl)
{
	free(nl->nb);
	free(nl->cnt);
	free(nl->shift);
	free(nl->cstart);
	free(nl->cidx);
	free(nl->cof);
	memset(nl, 0, sizeof *nl);
}

int
fek_cell_counts(const double *w, double cw, long n, int minc, long *nc)
{
	double want[3], cells = 1, cap = 2.0 * (n > 0 ? n : 1);

	if (cap < (double)minc * minc * minc)
		cap = (double)minc * minc * minc;
	for (int d = 0; d < 3; d++) {
		want[d] = floor(w[d] / cw);
		if (!(want[d] >= minc))
			return 0;
		if (want[d] > 1024)
			want[d] = 1024;
		cells *= want[d];
	}
	/* fewer, wider cells where there would be more than two an atom
	 * (a dilute or huge box): the edges' counts shrunk together, none
	 * below minc, the longest first until the product fits */
	while (cells > cap) {
		int dm = 0;

		for (int d = 1; d < 3; d++)
			if (want[d] > want[dm])
				dm = d;
		if (want[dm] <= minc)
			break;
		/* cells is now the product of the other two */
		cells /= want[dm];
		want[dm] = fmax(minc, fmax(floor(cap / cells),
		    floor(want[dm] / 2)));
		cells *= want[dm];
	}
	for (int d = 0; d < 3; d++)
		nc[d] = (long)want[d];
	return 1;
}

int
fek_cell_grid(const struct fek_box *bx, double rl, long n, long *nc)
{
	double w[3];

	fek_box_widths(bx, w);
	for (int reach = 2; reach >= 1; reach--)
		if (fek_cell_counts(w, rl / reach, n, 2 * reach + 1, nc))
			return reach;
	return 0;
}

/* The cell of a point from its fractional coordinates. */
static long
cell_of(const struct fek_box *bx, const double *r, const long *nc)
{
	double f[3];
	long c[3];

	fek_box_frac(bx, r, f);
	for (int d = 0; d < 3; d++) {
		f[d] -= floor(f[d]);
		c[d] = (long)(f[d] * nc[d]);
		if (c[d] >= nc[d])
			c[d] = nc[d] - 1;
	}
	return (c[2] * nc[1] + c[1]) * nc[0] + c[0];
}

/* The code of the image n_x a + n_y b + n_z c, in a row entry's upper
 * 7 bits (the entry read as unsigned). */
static inline int
image_code(int nx, int ny, int nz)
{
	return (int)((unsigned)((nx + 2) + 5 * (ny + 2) + 25 * (nz + 2)) <<
	    FEK_NL_JBITS);
}

/* Whether j belongs in i's row (its minimum image, the all-pairs search);
 * counts it (storing it while it fits). */
static inline void
consider(const double *xr, const struct fek_box *bx, double rl2, long i,
    long j, int *row, long maxnb, long *cnt)
{
	double d[3], n[3];

	for (int k = 0; k < 3; k++)
		d[k] = xr[3 * i + k] - xr[3 * j + k];
	/* fek_box_minimage, keeping the counts: d = r_i - (r_j + shift) */
	n[2] = fek_rint(d[2] * bx->ilz);
	d[2] -= n[2] * bx->lz;
	d[1] -= n[2] * bx->yz;
	d[0] -= n[2] * bx->xz;
	n[1] = fek_rint(d[1] * bx->ily);
	d[1] -= n[1] * bx->ly;
	d[0] -= n[1] * bx->xy;
	n[0] = fek_rint(d[0] * bx->ilx);
	d[0] -= n[0] * bx->lx;
	if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < rl2) {
		if (*cnt < maxnb)
			row[*cnt] = (int)j | image_code((int)n[0], (int)n[1],
			    (int)n[2]);
		(*cnt)++;
	}
}

/* Fill box b's rows; returns the longest row wanted (rows longer than
 * maxnb are cut and must be built again).  Through the cells, a home cell
 * at a time: its stencil (cell indices, and the lattice vectors that move
 * a cell across the box's faces next to it, so that no pair needs the
 * minimum image) is worked out once for all of its particles. */
static long
fill_rows(struct fek_nlist *nl, const struct fek_psys *s, int b,
    const long *nc, int reach)
{
	const double *xr = s->xref + 3 * s->n * b;
	const struct fek_box *bx = &s->boxref[b];
	const int *cidx = nl->cidx, *cstart = nl->cstart;
	double rl2 = (nl->rc + nl->skin) * (nl->rc + nl->skin);
	long n = s->n, longest = 0, maxnb = nl->maxnb;
	long ncell = nc[0] * nc[1] * nc[2];
	int *nb = nl->nb, *cnts = nl->cnt;

	if (reach == 0) {
#pragma omp parallel for schedule(dynamic, 64) reduction(max:longest)
		for (long i = 0; i < n; i++) {
			int *row = nb + (b * n + i) * maxnb;
			long cnt = 0;

			for (long j = i + 1; j < n; j++)
				consider(xr, bx, rl2, i, j, row, maxnb, &cnt);
			cnts[b * n + i] = (int)(cnt < maxnb ? cnt : maxnb);
			if (cnt > longest)
				longest = cnt;
		}
		return longest;
	}
#pragma omp parallel for schedule(dynamic, 16) reduction(max:longest)
	for (long c = 0; c < ncell; c++) {
		long cx = c % nc[0], cy = c / nc[0] % nc[1];
		long cz = c / (nc[0] * nc[1]), ns = 0;
		long sc[125];
		int code[125];
		double sh[125][3];

		/* the forward half of the stencil: the home cell, then
		 * offsets after (0, 0, 0) in (dz, dy, dx) order; each pair of
		 * cells is met once (the offsets are distinct modulo the cell
		 * counts, which are at least 2 reach + 1) */
		for (int dz = 0; dz <= reach; dz++)
		for (int dy = dz ? -reach : 0; dy <= reach; dy++)
		for (int dx = dz || dy ? -reach : 0; dx <= reach; dx++) {
			long ux = cx + dx, uy = cy + dy, uz = cz + dz;
			int wx = ux < 0 ? -1 : ux >= nc[0];
			int wy = uy < 0 ? -1 : uy >= nc[1];
			int wz = uz < 0 ? -1 : uz >= nc[2];

			sc[ns] = ((uz - wz * nc[2]) * nc[1] + uy - wy * nc[1]) *
			    nc[0] + ux - wx * nc[0];
			sh[ns][0] = wx * bx->lx + wy * bx->xy + wz * bx->xz;
			sh[ns][1] = wy * bx->ly + wz * bx->yz;
			sh[ns][2] = wz * bx->lz;
			code[ns] = image_code(wx, wy, wz);
			ns++;
		}
		for (long a = cstart[c]; a < cstart[c + 1]; a++) {
			long i = cidx[a], cnt = 0;
			int *row = nb + (b * n + i) * maxnb;
			double xi = xr[3 * i], yi = xr[3 * i + 1];
			double zi = xr[3 * i + 2];

			for (long q = 0; q < ns; q++) {
				long e = sc[q];
				double sx = sh[q][0], sy = sh[q][1], sz = sh[q][2];

				/* in the home cell, the particles after i */
				for (long k = q == 0 ? a + 1 : cstart[e]; k <
				    cstart[e + 1]; k++) {
					long j = cidx[k];
					double dx, dy, dz;

					dx = xi - (xr[3 * j] + sx);
					dy = yi - (xr[3 * j + 1] + sy);
					dz = zi - (xr[3 * j + 2] + sz);
					if (dx * dx + dy * dy + dz * dz < rl2) {
						if (cnt < maxnb)
							row[cnt] = (int)j |
							    code[q];
						cnt++;
					}
				}
			}
			cnts[b * n + i] = (int)(cnt < maxnb ? cnt : maxnb);
			if (cnt > longest)
				longest = cnt;
		}
	}
	return longest;
}

int
fek_nlist_build(struct fek_nlist *nl, const struct fek_psys *s, int b)
{
	const struct fek_box *bx = &s->boxref[b];
	const double *xr = s->xref + 3 * s->n * b;
	long nc[3], longest, n = s->n;
	int reach;

	if (fek_box_check(bx, nl->rc + nl->skin, "box") < 0)
		return -1;
	if (n > FEK_NL_JMASK)
		return fek_seterr(FEK_EX_DATA, "%ld particles in a box: at most "
		    "%d", n, FEK_NL_JMASK);
	for (int c = 0; c < FEK_NL_NCODE; c++) {
		/* r_j + n_x a + n_y b + n_z c */
		double *v = nl->shift + 3 * (FEK_NL_NCODE * b + c);
		int kx = c % 5 - 2, ky = c / 5 % 5 - 2, kz = c / 25 - 2;

		v[0] = kx * bx->lx + ky * bx->xy + kz * bx->xz;
		v[1] = ky * bx->ly + kz * bx->yz;
		v[2] = kz * bx->lz;
	}
	reach = fek_cell_grid(bx, nl->rc + nl->skin, n, nc);
	nl->allpairs = reach == 0;
	if (reach > 0) {
		long ncell = nc[0] * nc[1] * nc[2];

		if (ncell + 1 > nl->cellcap) {
			free(nl->cstart);
			nl->cellcap = ncell + 1;
			nl->cstart = fek_alloc(nl->cellcap, sizeof *nl->cstart);
		}
		if (nl->cidx == NULL) {
			nl->cidx = fek_alloc(n, sizeof *nl->cidx);
			nl->cof = fek_alloc(n, sizeof *nl->cof);
		}
		nl->ncell = ncell;
		/* a counting sort by cell: within a cell, by index */
		memset(nl->cstart, 0, (ncell + 1) * sizeof *nl->cstart);
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++)
			nl->cof[i] = (int)cell_of(bx, xr + 3 * i, nc);
		for (long i = 0; i < n; i++)
			nl->cstart[nl->cof[i] + 1]++;
		for (long c = 0; c < ncell; c++)
			nl->cstart[c + 1] += nl->cstart[c];
		{
			int *fill = fek_alloc(ncell, sizeof *fill);

			for (long i = 0; i < n; i++) {
				long c = nl->cof[i];

				nl->cidx[nl->cstart[c] + fill[c]++] = (int)i;
			}
			free(fill);
		}
	}
	longest = fill_rows(nl, s, b, nc, reach);
	if (longest > nl->maxnb) {
		/* longer rows for every box: rebuild the others from their
		 * own xref, which gives the same lists */
		nl->maxnb = (long)(1.2 * longest + 8) / 8 * 8;
		if (nl->maxnb > n)
			nl->maxnb = n;
		free(nl->nb);
		nl->nb = fek_alloc(n * s->nbox * nl->maxnb, sizeof *nl->nb);
		for (int o = 0; o < s->nbox; o++)
			if (o != b && fek_nlist_build(nl, s, o) < 0)
				return -1;
		return fek_nlist_build(nl, s, b);
	}
	nl->nbuild++;
	return 0;
}
