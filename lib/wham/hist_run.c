/*
 * hist_run.c - histogram(1)'s samples sections binned on the device the
 * run chose, behind one entry point (hist_run.h's fek_hist_run): the CPU
 * reference (fek_hist_add, Potgieter 2014, Eqs. 3.3-3.4) section after
 * section, or its GPU twin fek_gpu_bin (kernels/wham/hist.cu, hist_gpu.h)
 * on batches of sections that share a grid.  Both write the same
 * histogram sections (hist_write.c); a metadata file goes to hist_meta.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "wham/hist_gpu.h"
#include "wham/hist_run.h"

#define BLOCK 65536		/* rows read at a time */
#define GPU_BATCH (1LL << 24)	/* points binned per flush */

/* fek_seterr(code, "%s: %s", where, the error now recorded). */
static int
prefix_err(int code, const char *where)
{
	char msg[1024];

	snprintf(msg, sizeof msg, "%s", fek_errmsg());
	return fek_seterr(code, "%s: %s", where, msg);
}

/* The next samples section of r and its grid: its AXIS lines, with -b
 * applied.  1, 0 at the end of the stream, or -1 with fek_seterr. */
static int
next_samples(struct fek_reader *r, const struct fek_hist_job *job,
    struct fek_header *h, struct fek_grid *g)
{
	int rc;

	if ((rc = fek_next_section(r, h)) <= 0)
		return rc;
	if (strcmp(h->kind, "samples") != 0)
		rc = fek_seterr(FEK_EX_DATA, "%s: section %ld: KIND %s, "
		    "expected samples", r->name, r->section, h->kind);
	else if (fek_grid_read(r, h, g, 0) < 0)
		rc = -1;
	else if (fek_binspec_apply(job->bs, job->nb, g) < 0)
		rc = fek_rerr(r, FEK_EX_USAGE, "%s", fek_errmsg());
	else if (h->ncols != g->ndim)
		rc = fek_seterr(FEK_EX_DATA, "%s: section %ld: %d columns "
		    "for %d AXIS lines", r->name, r->section, h->ncols,
		    g->ndim);
	if (rc < 0)
		fek_hdr_free(h);
	return rc;
}

/* The CPU: each section of path binned and written as it is read. */
static int
from_stream(const char *path, const struct fek_hist_job *job)
{
	struct fek_reader r;
	struct fek_header h;
	struct fek_grid g, prev;
	struct fek_hist hist = { 0 };
	double *buf, *ser = NULL;
	long got, nser = 0, sercap = 0;
	long long row;
	int rc, have = 0;
	char where[512];

	if (fek_reader_open(&r, path) < 0)
		return -1;
	buf = fek_alloc(BLOCK * FEK_MAXCOLS, sizeof(double));
	while ((rc = next_samples(&r, job, &h, &g)) > 0) {
		if (!have || !fek_grid_same(&g, &prev)) {
			if (have)
				fek_hist_free(&hist);
			prev = g;
			fek_hist_init(&hist, &prev);
			have = 1;
		}
		fek_hist_reset(&hist);
		snprintf(where, sizeof where, "%s: section %ld", r.name,
		    r.section);
		row = 1;
		nser = 0;
		while ((got = fek_read_rows(&r, buf, BLOCK)) > 0) {
			if (fek_hist_add(&hist, buf, got, row) < 0) {
				rc = prefix_err(FEK_EX_DATA, where);
				break;
			}
			if (job->ineff) {	/* the series, for g */
				if ((nser + got) * g.ndim > sercap) {
					sercap = 2 * (nser + got) * g.ndim;
					ser = realloc(ser, sercap *
					    sizeof(double));
					if (ser == NULL)
						fek_errx(FEK_EX_SOFTWARE,
						    "out of memory");
				}
				memcpy(ser + nser * g.ndim, buf, got *
				    g.ndim * sizeof(double));
				nser += got;
			}
			row += got;
		}
		if (rc < 0 || got < 0) {
			rc = -1;
			fek_hdr_free(&h);
			break;
		}
		fek_hist_set_ineff(job, &h, ser, nser, &g);
		rc = fek_hist_write(job, &h, &hist, where);
		fek_hdr_free(&h);
		if (rc < 0)
			break;
	}
	if (have)
		fek_hist_free(&hist);
	free(buf);
	free(ser);
	fek_reader_close(&r);
	return rc < 0 ? -1 : 0;
}

/* The GPU: sections waiting to be binned, which share one grid. */
struct pending {
	const struct fek_hist_job *job;
	struct fek_gpu_binner *binner;
	struct fek_grid grid;
	struct fek_header *hdr;	/* copies of the samples headers */
	char **where;
	long long *rows;	/* points per section */
	long n, cap;
	double *x;		/* the points, section after section */
	long long nx, xcap;	/* points held, and room in doubles */
};

static int
pending_sink(void *ctx, long sec, const double *rows, long long nnz,
    double total, double dropped)
{
	struct pending *p = ctx;

	return fek_hist_write_rows(p->job, &p->hdr[sec], &p->grid, rows, nnz,
	    total, dropped, p->where[sec]);
}

/* Bin and write the pending sections. */
static int
flush(struct pending *p)
{
	long i;

	if (p->n == 0)
		return 0;
	if (fek_gpu_bin(p->binner, &p->grid, p->x, 0, p->rows, p->n,
	    pending_sink, p) < 0)
		return -1;
	for (i = 0; i < p->n; i++) {
		fek_hdr_free(&p->hdr[i]);
		free(p->where[i]);
	}
	p->n = 0;
	p->nx = 0;
	return 0;
}

/* An error in the input: the sections before it are written (and their
 * errors reported) first, as the CPU path would. */
static int
fail_after(struct pending *p)
{
	char msg[1024];
	int code = fek_errcode();

	snprintf(msg, sizeof msg, "%s", fek_errmsg());
	if (flush(p) < 0)
		return -1;
	return fek_seterr(code, "%s", msg);
}

/* Room for one more section and BLOCK more points of ndim doubles. */
static void
pending_grow(struct pending *p, int ndim)
{
	if (p->n == p->cap) {
		p->cap = 2 * p->cap + 16;
		p->hdr = realloc(p->hdr, p->cap * sizeof *p->hdr);
		p->where = realloc(p->where, p->cap * sizeof *p->where);
		p->rows = realloc(p->rows, p->cap * sizeof *p->rows);
		if (!p->hdr || !p->where || !p->rows)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
	if (p->xcap < (p->nx + BLOCK) * ndim) {
		p->xcap = 2 * p->xcap + BLOCK * ndim;
		p->x = realloc(p->x, (size_t)p->xcap * sizeof(double));
		if (p->x == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
}

/* Read the points of r's current section (grid g) after the pending
 * ones, and their count into *nrows; -1 with fek_seterr for a short or
 * non-finite input. */
static int
read_points(struct fek_reader *r, const struct fek_grid *g,
    struct pending *p, const char *where, long long *nrows)
{
	long long row = 1;
	long got, k;
	double *x;

	for (;;) {
		pending_grow(p, g->ndim);
		x = p->x + p->nx * g->ndim;
		if ((got = fek_read_rows(r, x, BLOCK)) <= 0)
			break;
		for (k = 0; k < got * g->ndim; k++)
			if (!isfinite(x[k]))
				return fek_seterr(FEK_EX_DATA, "%s: row %lld: "
				    "column %d: not a finite coordinate",
				    where, row + k / g->ndim,
				    (int)(k % g->ndim) + 1);
		p->nx += got;
		row += got;
	}
	*nrows = row - 1;
	return got < 0 ? -1 : 0;
}

/* The GPU: the sections of path after the pending ones, binned a batch
 * at a time. */
static int
from_stream_gpu(const char *path, struct pending *p)
{
	struct fek_reader r;
	struct fek_header h;
	struct fek_grid g;
	long long n = 0;
	int rc, bad_flush = 0;
	char where[512];

	if (fek_reader_open(&r, path) < 0)
		return fail_after(p);
	while ((rc = next_samples(&r, p->job, &h, &g)) > 0) {
		if (p->n > 0 && !fek_grid_same(&g, &p->grid) && flush(p) < 0) {
			fek_hdr_free(&h);
			bad_flush = 1;
			break;
		}
		p->grid = g;
		snprintf(where, sizeof where, "%s: section %ld", r.name,
		    r.section);
		if (read_points(&r, &g, p, where, &n) < 0) {
			fek_hdr_free(&h);
			rc = -1;
			break;
		}
		fek_hdr_copy(&p->hdr[p->n], &h);
		fek_hist_set_ineff(p->job, &p->hdr[p->n], p->x + (p->nx - n) *
		    g.ndim, (long)n, &g);
		p->where[p->n] = strdup(where);
		if (p->where[p->n] == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
		p->rows[p->n++] = n;
		fek_hdr_free(&h);
		if (p->nx >= GPU_BATCH && flush(p) < 0) {
			bad_flush = 1;
			break;
		}
	}
	/* a failed flush has its own error; the input's comes after the
	 * sections before it */
	if (bad_flush)
		rc = -1;
	else if (rc < 0)
		rc = fail_after(p);
	fek_reader_close(&r);
	return rc;
}

static int
run_gpu(const struct fek_hist_job *job)
{
	struct pending p;
	int i, rc = 0;

	memset(&p, 0, sizeof p);
	p.job = job;
	if ((p.binner = fek_gpu_binner_new()) == NULL)
		return -1;
	if (job->npaths == 0)
		rc = from_stream_gpu("-", &p);
	for (i = 0; rc == 0 && i < job->npaths; i++)
		rc = from_stream_gpu(job->paths[i], &p);
	if (rc == 0)
		rc = flush(&p);
	fek_gpu_binner_free(p.binner);
	free(p.hdr);
	free(p.where);
	free(p.rows);
	free(p.x);
	return rc;
}

int
fek_hist_run(const struct fek_hist_job *job, enum fek_device dev)
{
	int i;

	if (job->meta != NULL)
		return fek_hist_metadata(job);
	if (dev == FEK_DEV_GPU)
		return run_gpu(job);
	if (job->npaths == 0)
		return from_stream("-", job);
	for (i = 0; i < job->npaths; i++)
		if (from_stream(job->paths[i], job) < 0)
			return -1;
	return 0;
}
