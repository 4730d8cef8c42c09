/*
 * pool.h - the pooled histogram of many umbrella windows: what WHAM needs
 * when no bootstrap is wanted.  The WHAM equations (Potgieter 2014, Eqs.
 * 3.1-3.4; Kumar et al. 1992) and the likelihood of Zhu & Hummer 2012 see
 * the data only through B_b = sum_h n_hb and H_h = sum_b n_hb, so the
 * per-window histograms can be summed where they are made.  Kept beside
 * the sums: each window's mean position (umbrella integration's mean
 * force, Kastner & Thiel 2005, from it) and its overlap group (the windows
 * it shares a sampled bin with, directly or through others), which the
 * per-window histograms would otherwise have given the reader.
 */
#ifndef FEK_POOL_H
#define FEK_POOL_H

#include "stream/grid.h"
#include "wham/wham.h"

struct fek_pool {
	const struct fek_grid *grid;
	long nwin;		/* windows 0 .. nwin-1 of this pool */
	double *count;		/* nbins: B_b */
	double *n;		/* nwin: H_h, samples counted */
	double *dropped;	/* nwin: samples outside an open axis */
	double *mean;		/* nwin * ndim: sums of count * (x - c), then
				   the means (fek_pool_finish) */
	const struct fek_window *win;	/* nwin: for the minimum image */
	long *group;		/* nwin: after fek_pool_finish */
	long ngroups;
	struct fek_wham_overlap ov;
};

void	fek_pool_init(struct fek_pool *p, const struct fek_grid *g,
	    const struct fek_window *win, long nwin);
/* Window h's histogram: nnz (bin, count) rows, total counted, dropped. */
void	fek_pool_add(struct fek_pool *p, long h, const double *rows,
	    long long nnz, double total, double dropped);
/* The window means from the sums, and the overlap groups. */
void	fek_pool_finish(struct fek_pool *p);
void	fek_pool_free(struct fek_pool *p);

#endif
