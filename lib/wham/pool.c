/*
 * pool.c - the pooled histogram of many windows (wham/pool.h): B_b and H_h of
 * Potgieter 2014, Eqs. 3.3-3.4, each window's mean position and its
 * overlap group.  The CPU path of sample-gen -P, and the oracle of the
 * device's pooling in kernels/wham/sample.cu.
 */
#include <stdlib.h>
#include <string.h>

#include "wham/pool.h"

void
fek_pool_init(struct fek_pool *p, const struct fek_grid *g,
    const struct fek_window *win, long nwin)
{
	memset(p, 0, sizeof *p);
	p->grid = g;
	p->win = win;
	p->nwin = nwin;
	p->count = fek_alloc((size_t)g->nbins, sizeof(double));
	p->n = fek_alloc((size_t)nwin, sizeof(double));
	p->dropped = fek_alloc((size_t)nwin, sizeof(double));
	p->mean = fek_alloc((size_t)nwin * g->ndim, sizeof(double));
	p->group = fek_alloc((size_t)nwin, sizeof(long));
	fek_wham_overlap_init(&p->ov, g->nbins);
}

void
fek_pool_add(struct fek_pool *p, long h, const double *rows, long long nnz,
    double total, double dropped)
{
	const struct fek_grid *g = p->grid;
	double *m = p->mean + h * g->ndim;
	long idx[FEK_MAXDIM];
	long long k;
	int d;

	for (k = 0; k < nnz; k++) {
		long long b = (long long)rows[2 * k];
		double c = rows[2 * k + 1];

		if (c == 0)
			continue;
		p->count[b] += c;
		fek_grid_unflatten(g, b, idx);
		for (d = 0; d < g->ndim; d++)
			m[d] += c * fek_axis_delta(&g->ax[d],
			    fek_grid_centre(g, d, idx[d]), p->win[h].centre[d]);
		fek_wham_overlap_add(&p->ov, h, b);
	}
	p->n[h] = total;
	p->dropped[h] = dropped;
}

void
fek_pool_finish(struct fek_pool *p)
{
	const struct fek_grid *g = p->grid;
	long h;
	int d;

	for (h = 0; h < p->nwin; h++)
		for (d = 0; d < g->ndim; d++)
			p->mean[h * g->ndim + d] = p->n[h] > 0 ?
			    p->win[h].centre[d] + p->mean[h * g->ndim + d] /
			    p->n[h] : p->win[h].centre[d];
	p->ngroups = fek_wham_overlap_groups(&p->ov, p->nwin, p->group);
}

void
fek_pool_free(struct fek_pool *p)
{
	free(p->count);
	free(p->n);
	free(p->dropped);
	free(p->mean);
	free(p->group);
	fek_wham_overlap_free(&p->ov);
	memset(p, 0, sizeof *p);
}
