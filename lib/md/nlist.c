/*
 * nlist.c - Verlet neighbour lists (Verlet 1967) built through cell lists
 * (Allen and Tildesley, 2nd ed., section 5.3), on the CPU with OpenMP.
 *
 * A box's list holds, for each particle i, every j > i of the same box
 * closer than rlist = rc + skin in the positions xref at the build (half
 * rows: each pair once, for Newton's third law).  The rows are ordered by
 * the cell stencil (dz, dy, dx increasing), then by j within a cell.
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

#include "fek.h"
#include "md/pmd.h"

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
}

void
fek_nlist_free(struct fek_nlist *nl)
{
	free(nl->nb);
	free(nl->cnt);
	free(nl->cstart);
	free(nl->cidx);
	free(nl->cof);
	memset(nl, 0, sizeof *nl);
}

/* The cell grid of a box: the stencil's reach (2: cells of rl / 2, 1:
 * cells of rl) and nc[], or 0 when a dimension has fewer than 3 cells of
 * rl. */
static int
cell_grid(const struct fek_box *bx, double rl, long *nc)
{
	double w[3];
	int reach;

	fek_box_widths(bx, w);
	for (reach = 2; reach >= 1; reach--) {
		int d;

		for (d = 0; d < 3; d++) {
			nc[d] = (long)floor(w[d] * reach / rl);
			if (nc[d] < 2 * reach + 1)
				break;
			if (nc[d] > 1024)
				nc[d] = 1024;
		}
		if (d == 3)
			return reach;
	}
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

/* Whether j belongs in i's row; counts it (storing it while it fits). */
static inline void
consider(const double *xr, const struct fek_box *bx, double rl2, long i,
    long j, int *row, long maxnb, long *cnt)
{
	double d[3];

	for (int k = 0; k < 3; k++)
		d[k] = xr[3 * i + k] - xr[3 * j + k];
	fek_box_minimage(bx, d);
	if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < rl2) {
		if (*cnt < maxnb)
			row[*cnt] = (int)j;
		(*cnt)++;
	}
}

/* Fill box b's rows; returns the longest row wanted (rows longer than
 * maxnb are cut and must be built again). */
static long
fill_rows(struct fek_nlist *nl, const struct fek_psys *s, int b,
    const long *nc, int reach)
{
	const double *xr = s->xref + 3 * s->n * b;
	const struct fek_box *bx = &s->boxref[b];
	const int *cidx = nl->cidx, *cof = nl->cof;
	const int *cstart = nl->cstart;
	double rl2 = (nl->rc + nl->skin) * (nl->rc + nl->skin);
	long n = s->n, longest = 0, maxnb = nl->maxnb;
	int *nb = nl->nb, *cnts = nl->cnt;

#pragma omp parallel for schedule(dynamic, 256) reduction(max:longest)
	for (long i = 0; i < n; i++) {
		int *row = nb + (b * n + i) * maxnb;
		long cnt = 0;

		if (reach == 0) {
			for (long j = i + 1; j < n; j++)
				consider(xr, bx, rl2, i, j, row, maxnb, &cnt);
		} else {
			long c = cof[i], cx = c % nc[0], cy = c / nc[0] %
			    nc[1], cz = c / (nc[0] * nc[1]);

			for (int dz = -reach; dz <= reach; dz++)
			for (int dy = -reach; dy <= reach; dy++)
			for (int dx = -reach; dx <= reach; dx++) {
				long ex = (cx + dx + nc[0]) % nc[0];
				long ey = (cy + dy + nc[1]) % nc[1];
				long ez = (cz + dz + nc[2]) % nc[2];
				long e = (ez * nc[1] + ey) * nc[0] + ex;

				for (long k = cstart[e]; k < cstart[e + 1];
				    k++)
					if (cidx[k] > i)
						consider(xr, bx, rl2, i,
						    cidx[k], row, maxnb, &cnt);
			}
		}
		cnts[b * n + i] = (int)(cnt < maxnb ? cnt : maxnb);
		if (cnt > longest)
			longest = cnt;
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
	reach = cell_grid(bx, nl->rc + nl->skin, nc);
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

int
fek_nlist_stale(const struct fek_nlist *nl, const struct fek_psys *s, int b)
{
	const double *x = s->x + 3 * s->n * b, *xr = s->xref + 3 * s->n * b;
	double lim = 0.25 * nl->skin * nl->skin;
	int stale = 0;

#pragma omp parallel for schedule(static) reduction(|:stale)
	for (long i = 0; i < s->n; i++) {
		double d[3];

		for (int k = 0; k < 3; k++)
			d[k] = x[3 * i + k] - xr[3 * i + k];
		fek_box_minimage(&s->box[b], d);
		if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > lim)
			stale = 1;
	}
	return stale;
}
