/*
 * sample_out.c - sample-gen's output sections (fek(5)), the sinks of
 * fek_sample_run: each window's samples (kind samples), or its histogram
 * n_hb (Potgieter 2014, Eqs. 3.3-3.4) as histogram(1) would make it of
 * those samples (kind histogram, the same keys and rows), or with -P the
 * windows pooled (lib/wham/pool.c) into one histogram B_b = sum_h n_hb
 * (kind pooled) and a table of the windows (kind windows): what WHAM
 * needs when no bootstrap is wanted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "wham/hist.h"
#include "wham/sample_out.h"

/* The keys a window's section shares in both modes, in the order of a
 * samples section (AXIS lines first); window from 1. */
static void
window_keys(struct fek_header *h, const struct fek_sample_out *o,
    long window)
{
	fek_grid_write(h, o->dom);
	fek_window_write(h, o->dom->ndim, &o->win[window - 1]);
	fek_hdr_add(h, "TEMP", "%.17g", o->temp);
	fek_hdr_add(h, "ENERGY", "%s", fek_unit_name(o->eunit));
	if (o->corr > 0)
		fek_hdr_add(h, "CORRTIME", "%.17g", o->corr);
	fek_hdr_add(h, "PMF", "%s", o->formula);
	fek_hdr_add(h, "PROV", "%s", o->cmd);
}

/* Section h with n rows (packed: 32-bit pairs as they are) to o's writer,
 * h freed, and the window's progress told.  0, or -1 (fek_seterr). */
static int
put_window(struct fek_sample_out *o, struct fek_header *h, const void *rows,
    long n, int packed, long window, double props)
{
	int rc = 0;

	if (fek_begin_section(&o->wr, h) < 0 ||
	    (packed ? fek_write_packed(&o->wr, rows, n) :
	    fek_write_rows(&o->wr, rows, n)) < 0 ||
	    fek_end_section(&o->wr) < 0)
		rc = -1;
	fek_hdr_free(h);
	if (rc == 0 && o->progress != NULL)
		o->progress(o->ctx, window, props);
	return rc;
}

/* Window's samples, n x ndim. */
static int
write_samples(void *ctx, long window, const double *x, long n,
    double props)
{
	struct fek_sample_out *o = ctx;
	struct fek_header h;
	int d;

	fek_hdr_init(&h, "samples");
	h.rows = n;
	for (d = 0; d < o->dom->ndim; d++)
		fek_hdr_addcol(&h, o->dom->ax[d].name, FEK_F64, o->unit);
	window_keys(&h, o, window);
	return put_window(o, &h, x, n, 0, window, props);
}

/* A window none of whose samples fell inside the histogram grid. */
static int
empty_window(long window, double dropped)
{
	return fek_seterr(FEK_EX_DATA, "window %ld: no sample inside the "
	    "histogram range (%.0f outside)", window, dropped);
}

/* Window's histogram section header, as histogram(1) writes it (the keys
 * of the samples section, AXIS and BINS of the grid, NSAMPLES, DROPPED),
 * columns aside; -1 for a window with nothing in range. */
static int
hist_header(struct fek_header *h, long window, long long nnz, double total,
    double dropped)
{
	if (total == 0)
		return empty_window(window, dropped);
	if (dropped > 0)
		fek_warnx("window %ld: %.0f of %.0f samples outside the "
		    "histogram range, dropped", window, dropped,
		    dropped + total);
	fek_hdr_init(h, "histogram");
	h->rows = nnz;
	return 0;
}

static void
hist_keys(const struct fek_sample_out *o, struct fek_header *h, long window,
    double total, double dropped)
{
	window_keys(h, o, window);
	fek_grid_write(h, o->hgrid);
	fek_hdr_set(h, "NSAMPLES", "%.0f", total);
	fek_hdr_set(h, "DROPPED", "%.0f", dropped);
}

static int
write_hist(void *ctx, long window, const double *rows, long long nnz,
    double total, double dropped, double props)
{
	struct fek_sample_out *o = ctx;
	struct fek_header h;

	if (hist_header(&h, window, nnz, total, dropped) < 0)
		return -1;
	fek_hist_columns(&h, o->hgrid->nbins, rows, nnz);
	hist_keys(o, &h, window, total, dropped);
	return put_window(o, &h, rows, nnz, 0, window, props);
}

/* The GPU's (bin, count) pairs of 32-bit integers: on a little-endian
 * host with bins and counts below 2^31 they are the payload of i32
 * columns byte for byte (fek_hist_columns would choose i32 for them). */
static int
write_hist_pairs(void *ctx, long window, const unsigned int *pairs,
    long long nnz, double total, double dropped, double props)
{
	struct fek_sample_out *o = ctx;
	struct fek_header h;
	double *rows;
	long long k;
	int rc;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ ||
	    o->hgrid->nbins - 1 > INT32_MAX || total > INT32_MAX) {
		rows = fek_alloc((size_t)(nnz ? 2 * nnz : 1), sizeof(double));
		for (k = 0; k < 2 * nnz; k++)
			rows[k] = pairs[k];
		rc = write_hist(ctx, window, rows, nnz, total, dropped, props);
		free(rows);
		return rc;
	}
	if (hist_header(&h, window, nnz, total, dropped) < 0)
		return -1;
	fek_hdr_addcol(&h, "bin", FEK_I32, "1");
	fek_hdr_addcol(&h, "count", FEK_I32, "1");
	hist_keys(o, &h, window, total, dropped);
	return put_window(o, &h, pairs, (long)nnz, 1, window, props);
}

/* -P: window's histogram into the pool instead of the output. */
static int
pool_hist(void *ctx, long window, const double *rows, long long nnz,
    double total, double dropped, double props)
{
	struct fek_sample_out *o = ctx;

	if (total == 0)
		return empty_window(window, dropped);
	fek_pool_add(o->pool, window - o->first, rows, nnz, total, dropped);
	if (o->progress != NULL)
		o->progress(o->ctx, window, props);
	return 0;
}

/* -P on the device: the sums kernels/wham/sample.cu pooled there. */
static int
pool_device(void *ctx, const unsigned long long *count, const double *msum,
    const double *total, const double *dropped, const long *group)
{
	struct fek_sample_out *o = ctx;
	struct fek_pool *p = o->pool;
	long h;
	long long b;

	for (h = 0; h < p->nwin; h++)
		if (total[h] == 0)
			return empty_window(h + o->first, dropped[h]);
	for (b = 0; b < p->grid->nbins; b++)
		p->count[b] = (double)count[b];
	memcpy(p->n, total, p->nwin * sizeof(double));
	memcpy(p->dropped, dropped, p->nwin * sizeof(double));
	memcpy(p->mean, msum, p->nwin * p->grid->ndim * sizeof(double));
	/* the device joined the groups; the tracker has nothing */
	for (h = 0; h < p->nwin; h++)
		if (group[h] != h)
			fek_wham_overlap_join(&p->ov, h, group[h]);
	return 0;
}

void
fek_sample_out_sink(struct fek_sample_out *o,
    struct fek_gpu_sample_sink *sink)
{
	memset(sink, 0, sizeof *sink);
	sink->ctx = o;
	sink->samples = write_samples;
	/* pooled: the GPU's pairs come as rows (no hist_pairs) */
	sink->hist = o->pool != NULL ? pool_hist : write_hist;
	sink->hist_pairs = o->pool != NULL ? NULL : write_hist_pairs;
	if (o->pool != NULL)
		sink->pooled = pool_device;
}

/* The pooled histogram's section (kind pooled). */
static int
write_pooled(struct fek_sample_out *o)
{
	struct fek_pool *p = o->pool;
	const struct fek_grid *g = o->hgrid;
	struct fek_header h;
	double *rows, tot = 0, drop = 0;
	long long b, k = 0;
	long w;
	int rc = 0;

	for (w = 0; w < p->nwin; w++) {
		tot += p->n[w];
		drop += p->dropped[w];
	}
	for (b = 0; b < g->nbins; b++)
		k += p->count[b] != 0;
	rows = fek_alloc((size_t)(k ? 2 * k : 1), sizeof(double));
	for (b = 0, k = 0; b < g->nbins; b++)
		if (p->count[b] != 0) {
			rows[2 * k] = (double)b;
			rows[2 * k + 1] = p->count[b];
			k++;
		}
	fek_hdr_init(&h, "pooled");
	h.rows = k;
	fek_hist_columns(&h, g->nbins, rows, k);
	fek_grid_write(&h, g);
	fek_hdr_add(&h, "TEMP", "%.17g", o->temp);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(o->eunit));
	fek_hdr_add(&h, "WINDOWS", "%ld", p->nwin);
	fek_hdr_add(&h, "NSAMPLES", "%.0f", tot);
	fek_hdr_add(&h, "DROPPED", "%.0f", drop);
	if (o->corr > 0)
		fek_hdr_add(&h, "CORRTIME", "%.17g", o->corr);
	fek_hdr_add(&h, "PMF", "%s", o->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_rows(&o->wr, rows, k) < 0 ||
	    fek_end_section(&o->wr) < 0)
		rc = -1;
	fek_hdr_free(&h);
	free(rows);
	return rc;
}

/* The pool's windows (kind windows): c_*, k_*, n, mean_*, group. */
static int
write_windows(struct fek_sample_out *o)
{
	struct fek_pool *p = o->pool;
	const struct fek_grid *g = o->hgrid;
	struct fek_header h;
	double *rows;
	long w;
	int d, D = g->ndim, nc = 3 * D + 2, rc = 0;
	char name[FEK_NAMELEN + 8];

	fek_hdr_init(&h, "windows");
	h.rows = p->nwin;
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "c_%s", g->ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, g->ax[d].unit);
	}
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "k_%s", g->ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, "1");
	}
	fek_hdr_addcol(&h, "n", FEK_F64, "1");
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "mean_%s", g->ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, g->ax[d].unit);
	}
	fek_hdr_addcol(&h, "group", FEK_F64, "1");
	fek_grid_write(&h, g);
	fek_hdr_add(&h, "TEMP", "%.17g", o->temp);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(o->eunit));
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	rows = fek_alloc((size_t)p->nwin * nc, sizeof(double));
	for (w = 0; w < p->nwin; w++) {
		double *r = rows + w * nc;
		const struct fek_window *win = &o->win[o->first - 1 + w];

		for (d = 0; d < D; d++) {
			r[d] = win->centre[d];
			r[D + d] = win->spring[d];
			r[2 * D + 1 + d] = p->mean[w * D + d];
		}
		r[2 * D] = p->n[w];
		r[3 * D + 1] = (double)(p->group[w] + 1);
	}
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_rows(&o->wr, rows, p->nwin) < 0 ||
	    fek_end_section(&o->wr) < 0)
		rc = -1;
	fek_hdr_free(&h);
	free(rows);
	return rc;
}

int
fek_sample_out_pool(struct fek_sample_out *o)
{
	struct fek_pool *p = o->pool;

	fek_pool_finish(p);
	if (write_pooled(o) < 0 || write_windows(o) < 0)
		return -1;
	if (p->ngroups > 1)
		fek_warnx("the %ld windows fall into %ld groups that share no "
		    "sampled bin (column group): WHAM cannot join them",
		    p->nwin, p->ngroups);
	return 0;
}
