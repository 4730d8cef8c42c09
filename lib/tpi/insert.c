/*
 * insert.c - test-particle insertions and test deletions on one frame, on
 * the CPU (OpenMP): the double-precision reference of kernels/tpi/insert.cu.
 * Daly et al. (2012), Algorithm 1 (with its Algorithms 2 and 3 for the
 * deletion and insertion energies, here for pair potentials), Eqs. 1-2.
 *
 * Insertions go in chunks of FEK_TPI_CHUNK: their positions (tpi_eval.h)
 * and cells, a counting sort by cell (so that consecutive insertions share
 * a neighbourhood, and the cache), the energies by insertion index, then
 * the fixed-order group sums (sums.c) and the histogram.  Deletions: every
 * particle of the inserted type, in the frame's order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "tpi/tpi.h"

#define FEK_TPI_CHUNK (1L << 20)	/* insertions sorted at a time */

/* The energy of a test particle at r over the n runs sg of its home
 * cell's neighbourhood (fek_tpi_segs): fek_tpi_energy's sum, in its
 * order, compiled apart for each case of single and mixed (constants
 * there, so that the loop tests neither). */
static double
energy_segs(const struct fek_tpi_frame *tf, const struct fek_tpi_view *v,
    const struct fek_tpi_seg *sg, int n, const double *r)
{
	float rcf2 = tf->g.rcf2;
	double u = 0;

	for (int i = 0; i < n; i++) {
		double p[3] = { r[0] - sg[i].s[0], r[1] - sg[i].s[1],
		    r[2] - sg[i].s[2] };

		switch ((tf->single ? 2 : 0) | (tf->mixed ? 1 : 0)) {
		case 3:
			u += fek_tpi_run(v, rcf2, 1, 1, p, sg[i].j0, sg[i].j1,
			    -1);
			break;
		case 2:
			u += fek_tpi_run(v, rcf2, 1, 0, p, sg[i].j0, sg[i].j1,
			    -1);
			break;
		case 1:
			u += fek_tpi_run(v, rcf2, 0, 1, p, sg[i].j0, sg[i].j1,
			    -1);
			break;
		default:
			u += fek_tpi_run(v, rcf2, 0, 0, p, sg[i].j0, sg[i].j1,
			    -1);
		}
	}
	return u;
}

int
fek_tpi_cpu(const struct fek_tpi_frame *tf, const struct fek_tpi_par *par,
    uint64_t fid, struct fek_tpi_result *res)
{
	const struct fek_tpi_grid *g = &tf->g;
	long chunk = par->nins < FEK_TPI_CHUNK ? (long)par->nins : FEK_TPI_CHUNK;
	long ng = (long)((par->nins + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP);
	struct fek_tpi_part *part;
	struct fek_tpi_view v;
	double *bu, *pos;
	int *cell, *order;
	long *cnt;

	memset(res->hins, 0, (res->nbins + 2) * sizeof *res->hins);
	memset(res->hdel, 0, (res->nbins + 2) * sizeof *res->hdel);
	part = fek_alloc(ng > 0 ? ng : 1, sizeof *part);
	bu = fek_alloc(chunk > 0 ? chunk : 1, sizeof *bu);
	pos = fek_alloc(3 * (chunk > 0 ? chunk : 1), sizeof *pos);
	cell = fek_alloc(chunk > 0 ? chunk : 1, sizeof *cell);
	order = fek_alloc(chunk > 0 ? chunk : 1, sizeof *order);
	cnt = fek_alloc(g->ncell + 1, sizeof *cnt);
	fek_tpi_frame_view(tf, par, &v);

	for (long long base = 0; base < par->nins; base += chunk) {
		long n = par->nins - base < chunk ? (long)(par->nins - base) :
		    chunk;

#pragma omp parallel for schedule(static)
		for (long k = 0; k < n; k++) {
			double s[3];

			fek_tpi_point(par->key, fid, (uint64_t)(base + k),
			    &g->box, s, pos + 3 * k);
			cell[k] = fek_tpi_cell(g, s);
		}
		memset(cnt, 0, (g->ncell + 1) * sizeof *cnt);
		for (long k = 0; k < n; k++)
			cnt[cell[k] + 1]++;
		for (int c = 0; c < g->ncell; c++)
			cnt[c + 1] += cnt[c];
		for (long k = 0; k < n; k++)
			order[cnt[cell[k]]++] = (int)k;
		/* insertions in cell order: the runs of a home cell's
		 * neighbourhood found once for all its insertions */
#pragma omp parallel
		{
			struct fek_tpi_seg *sg = fek_alloc((size_t)g->nrow *
			    g->maxrun, sizeof *sg);
			int h = -1, nsg = 0;

#pragma omp for schedule(static, 256)
			for (long q = 0; q < n; q++) {
				long k = order[q];

				if (cell[k] != h) {
					h = cell[k];
					nsg = fek_tpi_segs(g, tf->rows, tf->orig,
					    tf->cstart, h, sg);
				}
				bu[k] = par->beta * (energy_segs(tf, &v, sg,
				    nsg, pos + 3 * k) + tf->du_ins);
			}
			free(sg);
		}
		fek_tpi_groups(bu, n, 0, part + base / FEK_TPI_GROUP);
		fek_tpi_histogram(par, bu, n, res->hins);
		if (par->raw)
			fek_tpi_keep_raw(&res->u_ins, &res->capins, base, bu, n);
	}
	fek_tpi_merge(part, ng, 0, par->nins, res);
	free(bu);
	free(pos);
	free(cell);
	free(order);
	free(cnt);
	free(part);

	/* deletions */
	{
		long n = par->del ? tf->ndel : 0;
		long ngd = (n + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP;

		bu = fek_alloc(n > 0 ? n : 1, sizeof *bu);
		part = fek_alloc(ngd > 0 ? ngd : 1, sizeof *part);
#pragma omp parallel for schedule(static, 16)
		for (long q = 0; q < n; q++) {
			const double *r = tf->delr + 3 * q;
			double s[3];

			fek_box_frac(&g->box, r, s);
			bu[q] = par->beta * (fek_tpi_energy(g, tf->rows,
			    tf->orig, tf->cstart, &v, tf->single, 0, r,
			    fek_tpi_cell(g, s), tf->delidx[q]) + tf->du_del);
		}
		fek_tpi_groups(bu, n, 1, part);
		fek_tpi_merge(part, ngd, 1, n, res);
		fek_tpi_histogram(par, bu, n, res->hdel);
		if (par->raw)
			fek_tpi_keep_raw(&res->u_del, &res->capdel, 0, bu, n);
		free(bu);
		free(part);
	}
	return 0;
}
