/*
 * wham-gpu - the weighted histogram analysis method (Potgieter 2014,
 * Eqs. 3.1-3.4; Kumar et al. 1992) on histogram + logbias streams, to the
 * normalised unbiased distribution p_b and the window free energies F_h,
 * with bootstrap errors (-B).  Solvers: lib/wham/wham.c (self-consistent
 * iteration, and Newton or L-BFGS on the likelihood of Zhu & Hummer 2012);
 * the sweeps on the CPU (lib/wham/backend.c) or the GPU
 * (kernels/wham/backend.cu).  Histograms without a logbias section get their
 * bias built here (lib/wham/bias.c), with -w from the window means read with
 * the histograms, with -S from p's own shape inside each bin, solved
 * self-consistently (lib/wham/binshape.c).
 */
#include <sys/mman.h>

#include <getopt.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wham/bias.h"
#include "wham/binshape.h"
#include "core/fek.h"
#include "wham/hist.h"
#include "stream/stream.h"
#include "wham/wham.h"

static void
usage(void)
{
	fprintf(stderr, "usage: wham-gpu [-acSTqvw] [-B trials] [-d cpu|gpu|auto] "
	    "[-s seed] [--maxiter count]\n"
	    "                [--solver auto|iterate|newton|lbfgs] [--tol kT] "
	    "[file ...]\n");
	exit(FEK_EX_USAGE);
}

#define CHUNK_ROWS 65536	/* histogram rows read at a time */

struct input {
	struct fek_wham_problem p;
	long cap, nbias;
	long long nnz, nnzcap;
	struct fek_header first;	/* keys carried to the output */
	int have_first;
	enum fek_unit energy;
	enum fek_bias_eval how;		/* the bias built here (-a, -c, -S,
					 * -w) */
	unsigned char *tobuild;		/* per window: its bias built here */
	int keep;			/* keep the histograms (-B) */
	struct fek_wham_overlap ov;
	long built;			/* windows whose bias was built here */
	long lnc_cap;			/* windows the lnc table holds */
	/* i32 histograms read whole and summed afterwards, in parallel
	 * (ingest_packed); the others are summed as they are read */
	struct slab *slabs;		/* where their (bin, count) pairs lie */
	long long pk_n;			/* pairs held */
	int32_t **pk_at;		/* per window: its pairs, NULL if summed */
	long long *pk_len;
	long *section;			/* per window: section, for messages */
	char **sname;			/* per window: its stream's name */
	char *name;			/* the stream being read (kept) */
	long pool_sec;			/* a pooled section's number, or 0 */
	long pool_win;			/* its WINDOWS */
	double pool_total;		/* its counts, summed */
};

/* Memory for whole histograms: slabs of at least 64 MiB that only grow
 * in number (no copies), on huge pages where the kernel has them (a page
 * fault per 4 KiB cost as much as reading the pairs). */
struct slab {
	struct slab *next;
	size_t cap, used;		/* in pairs */
	int32_t *pairs;
};

#define SLAB_BYTES ((size_t)64 << 20)

/* At least *bytes (rounded up to 2 MiB, the size returned) on huge pages
 * where the kernel has them. */
static void *
huge_alloc(size_t *bytes)
{
	void *p;

	*bytes = (*bytes + (2 << 20) - 1) / (2 << 20) * (2 << 20);
	if (posix_memalign(&p, 2 << 20, *bytes) != 0)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
#ifdef MADV_HUGEPAGE
	(void)madvise(p, *bytes, MADV_HUGEPAGE);
#endif
	return p;
}

static int32_t *
slab_take(struct input *in, long long npairs)
{
	struct slab *sl = in->slabs;
	size_t bytes;

	if (sl == NULL || sl->used + npairs > sl->cap) {
		sl = fek_alloc(1, sizeof *sl);
		bytes = (size_t)npairs * 8 > SLAB_BYTES ? (size_t)npairs * 8 :
		    SLAB_BYTES;
		sl->pairs = huge_alloc(&bytes);
		sl->cap = bytes / 8;
		sl->next = in->slabs;
		in->slabs = sl;
	}
	sl->used += npairs;
	return sl->pairs + 2 * (sl->used - npairs);
}

/* Room for got more kept rows (-B only). */
static void
reserve(struct input *in, long got, long long declared)
{
	struct fek_wham_problem *p = &in->p;

	if (!in->keep || in->nnz + got <= in->nnzcap)
		return;
	in->nnzcap = 2 * (in->nnz + got) + (declared > 0 ? declared : 0) +
	    1024;
	p->hist_bin = realloc(p->hist_bin, in->nnzcap * sizeof *p->hist_bin);
	p->hist_count = realloc(p->hist_count, in->nnzcap *
	    sizeof *p->hist_count);
	if (!p->hist_bin || !p->hist_count)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
}

/* The grid, TEMP and ENERGY of section h: the first section's, or the
 * same as the first's. */
static void
same_grid(struct input *in, struct fek_reader *r, struct fek_header *h,
    const struct fek_grid *gp)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g = *gp;
	enum fek_unit eu;
	double temp;

	if (fek_temp_read(r, h, &temp) < 0 || fek_energy_read(r, h, &eu) < 0)
		fek_die();
	if (!in->have_first) {
		p->grid = g;
		p->temp = temp;
		in->energy = eu;
		fek_hdr_copy(&in->first, h);
		in->have_first = 1;
		p->counts = fek_alloc((size_t)g.nbins, sizeof(double));
		fek_wham_overlap_init(&in->ov, g.nbins);
	} else {
		if (!fek_grid_same(&g, &p->grid))
			fek_errx(FEK_EX_DATA, "%s: section %ld: AXIS/BINS "
			    "differ from the first histogram's", r->name,
			    r->section);
		if (temp != p->temp)
			fek_errx(FEK_EX_DATA, "%s: section %ld: TEMP %g differs "
			    "from the first histogram's %g (one temperature "
			    "only)", r->name, r->section, temp, p->temp);
		if (eu != in->energy)
			fek_errx(FEK_EX_DATA, "%s: section %ld: ENERGY differs "
			    "from the first histogram's", r->name, r->section);
	}
}

/* Room in the per-window arrays for want windows (at least twice as many
 * as before when they grow). */
static void
room_for_windows(struct input *in, long want)
{
	struct fek_wham_problem *p = &in->p;

	if (want > in->cap) {
		in->cap = in->cap ? 2 * in->cap : 64;
		if (in->cap < want)
			in->cap = want;
		p->win = realloc(p->win, in->cap * sizeof *p->win);
		p->n = realloc(p->n, in->cap * sizeof *p->n);
		if (in->keep)
			p->hist_start = realloc(p->hist_start, (in->cap +
			    1) * sizeof *p->hist_start);
		p->ineff = realloc(p->ineff, in->cap * sizeof *p->ineff);
		in->pk_at = realloc(in->pk_at, in->cap * sizeof *in->pk_at);
		in->pk_len = realloc(in->pk_len, in->cap * sizeof *in->pk_len);
		in->section = realloc(in->section, in->cap *
		    sizeof *in->section);
		in->sname = realloc(in->sname, in->cap * sizeof *in->sname);
		in->tobuild = realloc(in->tobuild, in->cap);
		/* means: for -w, and from a pooled input's windows table;
		 * the boundary terms only from histograms (-w) */
		if (in->how == FEK_BIAS_WEIGHTED || in->pool_sec)
			p->mean = realloc(p->mean, in->cap * p->grid.ndim *
			    sizeof *p->mean);
		if (in->how == FEK_BIAS_WEIGHTED && !in->pool_sec)
			p->edge = realloc(p->edge, in->cap * p->grid.ndim *
			    sizeof *p->edge);
		if (!p->win || !p->n || !p->ineff || !in->tobuild ||
		    ((in->how == FEK_BIAS_WEIGHTED || in->pool_sec) &&
		    !p->mean) || (in->how == FEK_BIAS_WEIGHTED &&
		    !in->pool_sec && !p->edge) || (in->keep &&
		    !p->hist_start) || !in->pk_at || !in->pk_len ||
		    !in->section || !in->sname)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
}

static void
add_histogram(struct input *in, struct fek_reader *r, struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	struct fek_window win;
	static double rows[2 * CHUNK_ROWS];
	int32_t extra[2];		/* a row past ROWS, if any */
	double n = 0, ineff = 1, tau;
	double acc[FEK_BIAS_ACC(FEK_MAXDIM)] = { 0 };
	long long k, row = 0;
	long got;
	int packed;

	if (in->pool_sec)
		fek_errx(FEK_EX_DATA, "%s: section %ld: a histogram after the "
		    "pooled histogram of section %ld (pooled input comes "
		    "alone: its windows' overlap with others is unknown)",
		    r->name, r->section, in->pool_sec);
	if (fek_grid_read(r, h, &g, 1) < 0 ||
	    fek_window_read(r, h, g.ndim, &win) < 0)
		fek_die();
	same_grid(in, r, h, &g);
	/* statistical inefficiency: INEFFICIENCY g, or CORRTIME tau (in
	 * samples, Grossfield's correl time) as g = 1 + 2 tau */
	if (fek_hdr_get(h, "INEFFICIENCY", 0) != NULL) {
		if (fek_key_double(r, h, "INEFFICIENCY", &ineff) < 0)
			fek_die();
	} else if (fek_hdr_get(h, "CORRTIME", 0) != NULL) {
		if (fek_key_double(r, h, "CORRTIME", &tau) < 0)
			fek_die();
		ineff = 1 + 2 * tau;
	}
	if (!(ineff >= 1) || !isfinite(ineff))
		fek_errx(FEK_EX_DATA, "%s: section %ld: statistical inefficiency "
		    "%g (from INEFFICIENCY or CORRTIME) is not a finite value "
		    ">= 1", r->name, r->section, ineff);
	if (fek_hdr_col(h, "bin") != 0 || fek_hdr_col(h, "count") != 1 ||
	    h->ncols != 2)
		fek_errx(FEK_EX_DATA, "%s: section %ld: histogram columns must "
		    "be bin, count", r->name, r->section);
	room_for_windows(in, p->nwin + 1);
	in->section[p->nwin] = r->section;
	in->sname[p->nwin] = in->name;
	in->pk_at[p->nwin] = NULL;
	in->tobuild[p->nwin] = 0;
	if (in->keep)
		p->hist_start[p->nwin] = in->nnz;
	/* i32 pairs (what histogram and sample-gen write), whole sections as
	 * they lie, for ingest_packed */
	packed = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    h->cols[0].type == FEK_I32 && h->cols[1].type == FEK_I32;
	if (packed && !in->keep && h->rows >= 0) {	/* for ingest_packed */
		int32_t *q = slab_take(in, h->rows);

		in->pk_at[p->nwin] = q;
		for (got = 0, row = 0; row < h->rows; row += got)
			if ((got = fek_read_packed(r, q + 2 * row, h->rows -
			    row)) <= 0)
				break;
		if (got < 0 || (got = fek_read_packed(r, extra, 1)) < 0)
			fek_die();
		if (row != h->rows || got != 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: rows differ "
			    "from ROWS %lld", r->name, r->section, h->rows);
		in->pk_n += h->rows;
		in->pk_len[p->nwin] = h->rows;
		p->win[p->nwin] = win;
		p->n[p->nwin] = 0;	/* ingest_packed sums it */
		p->ineff[p->nwin] = ineff;
		p->nwin++;
		return;
	}
	/* the others (and all with -B), a chunk at a time, summed as read */
	while ((got = fek_read_rows(r, rows, CHUNK_ROWS)) > 0) {
		reserve(in, got, h->rows);
		for (k = 0; k < got; k++) {
			double c = rows[2 * k + 1];
			long long b;

			if (!fek_hist_row_ok(rows[2 * k], c, g.nbins))
				fek_hist_bad_row(r->name, r->section, row + k + 1,
				    rows[2 * k], c, g.nbins);
			b = (long long)rows[2 * k];
			if (in->keep) {
				p->hist_bin[in->nnz] = b;
				p->hist_count[in->nnz] = c;
				in->nnz++;
			}
			if (c > 0)
				fek_wham_overlap_add(&in->ov, p->nwin, b);
			p->counts[b] += c;
			n += c;
			if (p->mean != NULL)
				fek_bias_mean_add(&g, &win, b, c, acc);
		}
		row += got;
	}
	if (got < 0)
		fek_die();
	if (!(n > 0))
		fek_errx(FEK_EX_DATA, "%s: section %ld: window has no samples",
		    r->name, r->section);
	if (in->keep)
		p->hist_start[p->nwin + 1] = in->nnz;
	p->win[p->nwin] = win;
	p->n[p->nwin] = n;
	p->ineff[p->nwin] = ineff;
	if (p->mean != NULL)
		fek_bias_mean_end(&g, &win, acc, n, p->mean + p->nwin * g.ndim,
		    p->edge + p->nwin * g.ndim);
	p->nwin++;
}

/* Row h of the ln c_d table (sum_d n_d values), allocated as windows come. */
static double *
lnc_row(struct input *in, long h)
{
	struct fek_wham_problem *p = &in->p;
	int d;

	if (p->lnc == NULL) {
		p->lnc_stride = 0;
		for (d = 0; d < p->grid.ndim; d++) {
			p->lnc_off[d] = p->lnc_stride;
			p->lnc_stride += p->grid.ax[d].nbins;
		}
	}
	if (in->lnc_cap < in->cap) {	/* on huge pages, as the slabs */
		size_t bytes = (size_t)in->cap * p->lnc_stride * sizeof(double);
		double *t = huge_alloc(&bytes);

		if (p->lnc != NULL)
			memcpy(t, p->lnc, (size_t)in->lnc_cap * p->lnc_stride *
			    sizeof(double));
		free(p->lnc);
		p->lnc = t;
		in->lnc_cap = in->cap;
	}
	return p->lnc + h * p->lnc_stride;
}

/* The last histogram came without a logbias section: its harmonic bias
 * will be built from its WINDOW key (build_biases), as bias-build would
 * write it. */
static void
build_bias(struct input *in)
{
	(void)lnc_row(in, in->nbias);
	in->tobuild[in->nbias] = 1;
	in->nbias++;
	in->built++;
}

/* The bias rows build_bias put aside, once every window's mean is known
 * (-w; ingest_packed sums the means of the windows read whole). */
static void
build_biases(struct input *in)
{
	struct fek_wham_problem *p = &in->p;
	double beta = 1.0 / (fek_kb(in->energy) * p->temp);
	long h;

	if (in->built == 0)
		return;
#pragma omp parallel for schedule(dynamic, 16)
	for (h = 0; h < p->nwin; h++)
		if (in->tobuild[h])
			fek_bias_log_factors(&p->grid, &p->win[h], beta,
			    in->how, p->mean ? p->mean + h * p->grid.ndim :
			    NULL, p->edge ? p->edge + h * p->grid.ndim : NULL,
			    p->lnc + h * p->lnc_stride);
}

static void
add_bias(struct input *in, struct fek_reader *r, struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	struct fek_window win;
	double *rows, *lnc;
	long long n;
	long h_idx = in->nbias;
	int d;

	if (h_idx >= p->nwin)
		fek_errx(FEK_EX_DATA, "%s: section %ld: logbias without a "
		    "histogram before it", r->name, r->section);
	if (fek_grid_read(r, h, &g, 1) < 0)
		fek_die();
	if (!fek_grid_same(&g, &p->grid))
		fek_errx(FEK_EX_DATA, "%s: section %ld: AXIS/BINS differ from "
		    "the histograms'", r->name, r->section);
	if (fek_window_read(r, h, g.ndim, &win) < 0)
		fek_die();
	for (d = 0; d < g.ndim; d++)
		if (win.centre[d] != p->win[h_idx].centre[d] ||
		    win.spring[d] != p->win[h_idx].spring[d])
			fek_errx(FEK_EX_DATA, "%s: section %ld: WINDOW differs "
			    "from its histogram's (the section before)",
			    r->name, r->section);
	lnc = lnc_row(in, h_idx);
	if (h->ncols != 1)
		fek_errx(FEK_EX_DATA, "%s: section %ld: logbias has %d columns, "
		    "expected 1", r->name, r->section, h->ncols);
	if ((n = fek_read_all(r, h, &rows)) < 0)
		fek_die();
	if (n != p->lnc_stride)
		fek_errx(FEK_EX_DATA, "%s: section %ld: %lld logbias rows, "
		    "expected %ld", r->name, r->section, n, p->lnc_stride);
	for (n = 0; n < p->lnc_stride; n++) {
		if (!(rows[n] <= 0) && !(rows[n] > 0))
			fek_errx(FEK_EX_DATA, "%s: section %ld: row %lld: NaN",
			    r->name, r->section, n + 1);
		if (rows[n] == HUGE_VAL)
			fek_errx(FEK_EX_DATA, "%s: section %ld: row %lld: "
			    "ln c = +inf", r->name, r->section, n + 1);
		lnc[n] = rows[n];
	}
	in->nbias++;
	free(rows);
}

/* A pooled histogram (fek(5) kind pooled): B_b of all its windows at
 * once; the windows follow in a windows section (add_windows).  Pooled
 * input comes alone: no per-window histogram, so no bootstrap. */
static void
add_pooled(struct input *in, struct fek_reader *r, struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	static double rows[2 * CHUNK_ROWS];
	double nw;
	long long k, row = 0;
	long got;

	if (in->pool_sec || p->nwin > 0)
		fek_errx(FEK_EX_DATA, "%s: section %ld: a pooled histogram "
		    "after other histograms (pooled input comes alone: its "
		    "windows' overlap with others is unknown)", r->name,
		    r->section);
	if (in->keep)
		fek_errx(FEK_EX_DATA, "%s: section %ld: -B: a pooled histogram "
		    "holds no window's own counts to redraw (write per-window "
		    "histograms: sample-gen -b without -P)", r->name,
		    r->section);
	if (fek_grid_read(r, h, &g, 1) < 0 ||
	    fek_key_double(r, h, "WINDOWS", &nw) < 0)
		fek_die();
	if (!(nw >= 1 && nw <= 1e12 && nw == floor(nw)))
		fek_errx(FEK_EX_DATA, "%s: section %ld: WINDOWS %g is not a "
		    "count >= 1", r->name, r->section, nw);
	in->pool_win = (long)nw;
	same_grid(in, r, h, &g);
	if (fek_hdr_col(h, "bin") != 0 || fek_hdr_col(h, "count") != 1 ||
	    h->ncols != 2)
		fek_errx(FEK_EX_DATA, "%s: section %ld: pooled columns must "
		    "be bin, count", r->name, r->section);
	while ((got = fek_read_rows(r, rows, CHUNK_ROWS)) > 0) {
		for (k = 0; k < got; k++) {
			double c = rows[2 * k + 1];
			long long b;

			if (!fek_hist_row_ok(rows[2 * k], c, g.nbins))
				fek_hist_bad_row(r->name, r->section, row + k + 1,
				    rows[2 * k], c, g.nbins);
			b = (long long)rows[2 * k];
			p->counts[b] += c;
			in->pool_total += c;
		}
		row += got;
	}
	if (got < 0)
		fek_die();
	in->pool_sec = r->section;
}

/* The windows of the pooled histogram before: centres, springs, samples
 * counted, means and overlap groups (fek(5) kind windows); the bias of
 * each is built from its centre and springs. */
static void
add_windows(struct input *in, struct fek_reader *r, struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	double *rows, total = 0;
	long long n, w;
	int D, d, cc[FEK_MAXDIM], ck[FEK_MAXDIM], cm[FEK_MAXDIM], cn, cg;
	char name[FEK_NAMELEN + 8];

	if (!in->pool_sec || p->nwin > 0)
		fek_errx(FEK_EX_DATA, "%s: section %ld: a windows section "
		    "belongs right after its pooled histogram", r->name,
		    r->section);
	if (fek_grid_read(r, h, &g, 1) < 0)
		fek_die();
	same_grid(in, r, h, &g);
	D = g.ndim;
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "c_%s", g.ax[d].name);
		cc[d] = fek_hdr_col(h, name);
		snprintf(name, sizeof name, "k_%s", g.ax[d].name);
		ck[d] = fek_hdr_col(h, name);
		snprintf(name, sizeof name, "mean_%s", g.ax[d].name);
		cm[d] = fek_hdr_col(h, name);
		if (cc[d] < 0 || ck[d] < 0 || cm[d] < 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: no column "
			    "c_%s, k_%s or mean_%s", r->name, r->section,
			    g.ax[d].name, g.ax[d].name, g.ax[d].name);
	}
	if ((cn = fek_hdr_col(h, "n")) < 0 || (cg = fek_hdr_col(h, "group")) <
	    0)
		fek_errx(FEK_EX_DATA, "%s: section %ld: no column n or group",
		    r->name, r->section);
	if ((n = fek_read_all(r, h, &rows)) < 0)
		fek_die();
	if (n != in->pool_win)
		fek_errx(FEK_EX_DATA, "%s: section %ld: %lld windows, but the "
		    "pooled histogram says WINDOWS %ld", r->name, r->section, n,
		    in->pool_win);
	room_for_windows(in, n);	/* all at once: one lnc table */
	for (w = 0; w < n; w++) {
		const double *row = rows + w * h->ncols;
		struct fek_window *win;

		win = &p->win[p->nwin];
		memset(win, 0, sizeof *win);
		for (d = 0; d < D; d++) {
			win->centre[d] = row[cc[d]];
			win->spring[d] = row[ck[d]];
			p->mean[w * D + d] = row[cm[d]];
			if (!isfinite(win->centre[d]) || !(win->spring[d] >=
			    0) || !isfinite(win->spring[d]) ||
			    !isfinite(row[cm[d]]))
				fek_errx(FEK_EX_DATA, "%s: section %ld: row %lld: "
				    "centre, spring or mean not finite (or a "
				    "spring < 0)", r->name, r->section, w + 1);
		}
		if (!(row[cn] > 0) || !isfinite(row[cn]))
			fek_errx(FEK_EX_DATA, "%s: section %ld: row %lld: n %g: "
			    "a window needs samples", r->name, r->section,
			    w + 1, row[cn]);
		if (row[cg] != 1)
			fek_errx(FEK_EX_NUMERIC, "%s: section %ld: row %lld: "
			    "group %g: the window shares no sampled bin with "
			    "window 1, directly or through others: their "
			    "relative free energy is undefined (add windows "
			    "between them or soften the springs)", r->name,
			    r->section, w + 1, row[cg]);
		p->n[p->nwin] = row[cn];
		p->ineff[p->nwin] = 1;
		in->section[p->nwin] = r->section;
		in->sname[p->nwin] = in->name;
		in->pk_at[p->nwin] = NULL;
		total += row[cn];
		p->nwin++;
		build_bias(in);		/* built later, in build_biases */
	}
	free(rows);
	if (fabs(total - in->pool_total) > 1e-9 * total)
		fek_errx(FEK_EX_DATA, "%s: section %ld: the windows' n add up "
		    "to %.0f, the pooled counts to %.0f", r->name, r->section,
		    total, in->pool_total);
}

/* The windows read whole (i32 pairs): check every row, sum N_h and B_b,
 * and join the windows that share a bin, window-parallel (OpenMP); the
 * first bad row in input order is the one reported. */
static void
ingest_packed(struct input *in)
{
	struct fek_wham_problem *p = &in->p;
	long H = p->nwin, h, bad_h = -1;
	long long B = p->grid.nbins, b, *bad;
	long *owner = in->ov.owner, *first;
	int nt = 1;

	if (in->pk_n == 0)
		return;
	bad = fek_alloc(H, sizeof *bad);
	first = fek_alloc((size_t)B, sizeof *first);
	for (b = 0; b < B; b++)
		first[b] = H;
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	/* pass 1: checks, N_h, per-thread B_b and first windows of bins */
#pragma omp parallel num_threads(nt)
	{
		double *cnt = fek_alloc((size_t)B, sizeof(double));
		long *fst = fek_alloc((size_t)B, sizeof(long)), hh;
		long long k, bb;

		for (bb = 0; bb < B; bb++)
			fst[bb] = H;
#pragma omp for schedule(dynamic, 8)
		for (hh = 0; hh < H; hh++) {
			const int32_t *q = in->pk_at[hh];
			double n = 0, acc[FEK_BIAS_ACC(FEK_MAXDIM)] = { 0 };

			bad[hh] = -1;
			if (q == NULL)
				continue;
			for (k = 0; k < in->pk_len[hh]; k++) {
				int32_t bi = q[2 * k], c = q[2 * k + 1];

				if (bi < 0 || bi >= B || c < 0) {
					bad[hh] = k;
					break;
				}
				n += c;
				cnt[bi] += c;
				if (c > 0 && fst[bi] > hh)
					fst[bi] = hh;
			}
			p->n[hh] = n;
			if (p->mean == NULL || bad[hh] >= 0 || !(n > 0))
				continue;
			/* its mean, for -w: a second pass over pairs in
			 * cache, off the first's critical path */
			for (k = 0; k < in->pk_len[hh]; k++)
				fek_bias_mean_add(&p->grid, &p->win[hh],
				    q[2 * k], q[2 * k + 1], acc);
			fek_bias_mean_end(&p->grid, &p->win[hh], acc, n,
			    p->mean + hh * p->grid.ndim, p->edge + hh *
			    p->grid.ndim);
		}
#pragma omp critical
		for (bb = 0; bb < B; bb++) {
			p->counts[bb] += cnt[bb];
			if (fst[bb] < first[bb])
				first[bb] = fst[bb];
		}
		free(cnt);
		free(fst);
	}
	for (h = 0; h < H && bad_h < 0; h++)
		if (bad[h] >= 0 || (in->pk_at[h] != NULL && !(p->n[h] > 0)))
			bad_h = h;
	if (bad_h >= 0) {
		const int32_t *q = in->pk_at[bad_h] + 2 * (bad[bad_h] < 0 ?
		    0 : bad[bad_h]);

		if (bad[bad_h] < 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: window has no "
			    "samples", in->sname[bad_h], in->section[bad_h]);
		fek_hist_bad_row(in->sname[bad_h], in->section[bad_h], bad[bad_h] + 1,
		    q[0], q[1], B);
	}
	/* bins no summed window owns get their first packed window */
	for (b = 0; b < B; b++)
		if (owner[b] < 0 && first[b] < H)
			owner[b] = first[b];
	/* pass 2: each window joined to the owners of its bins, once */
#pragma omp parallel num_threads(nt)
	{
		long *seen = fek_alloc(H, sizeof(long)), hh, o, ne = 0,
		    cap = 0, *edge = NULL, i;
		long long k;

		for (hh = 0; hh < H; hh++)
			seen[hh] = -1;
#pragma omp for schedule(dynamic, 8)
		for (hh = 0; hh < H; hh++) {
			const int32_t *q = in->pk_at[hh];

			if (q == NULL)
				continue;
			for (k = 0; k < in->pk_len[hh]; k++) {
				if (q[2 * k + 1] == 0)
					continue;
				o = owner[q[2 * k]];
				if (o == hh || seen[o] == hh)
					continue;
				seen[o] = hh;
				if (ne + 2 > cap) {
					cap = 2 * cap + 64;
					edge = realloc(edge, cap *
					    sizeof(long));
					if (edge == NULL)
						fek_errx(FEK_EX_SOFTWARE,
						    "out of memory");
				}
				edge[ne++] = hh;
				edge[ne++] = o;
			}
		}
#pragma omp critical
		for (i = 0; i < ne; i += 2)
			fek_wham_overlap_join(&in->ov, edge[i], edge[i + 1]);
		free(edge);
		free(seen);
	}
	free(bad);
	free(first);
	while (in->slabs != NULL) {
		struct slab *next = in->slabs->next;

		free(in->slabs->pairs);
		free(in->slabs);
		in->slabs = next;
	}
}

static void
read_input(struct input *in, const char *path)
{
	struct fek_reader r;
	struct fek_header h;
	int rc;

	if (fek_reader_open(&r, path) < 0)
		fek_die();
	if ((in->name = strdup(r.name)) == NULL)	/* for ingest_packed */
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (strcmp(h.kind, "histogram") == 0) {
			if (in->nbias != in->p.nwin)
				build_bias(in);
			add_histogram(in, &r, &h);
		} else if (strcmp(h.kind, "logbias") == 0) {
			if (in->pool_sec)
				fek_errx(FEK_EX_DATA, "%s: section %ld: a "
				    "logbias with pooled input (the bias is "
				    "built from the windows' columns)", r.name,
				    r.section);
			add_bias(in, &r, &h);
		} else if (strcmp(h.kind, "pooled") == 0)
			add_pooled(in, &r, &h);
		else if (strcmp(h.kind, "windows") == 0)
			add_windows(in, &r, &h);
		else
			fek_errx(FEK_EX_DATA, "%s: section %ld: KIND %s, "
			    "expected histogram, logbias, or pooled and "
			    "windows", r.name, r.section, h.kind);
		fek_hdr_free(&h);
	}
	if (rc < 0)
		fek_die();
	fek_reader_close(&r);
}

/* -v: each -S round's change of ln p */
static void
report_round(long round, double change)
{
	fprintf(stderr, "wham-gpu: -S round %ld: ln p moved %.3e kT\n", round,
	    change);
}

/* Progress at 100, 200, ... 1000, 2000, ... 10000, 20000, ... sweeps. */
static void
progress(long it, double delta)
{
	long step = 100;

	while (it >= 10 * step)
		step *= 10;
	if (it % step == 0)
		fprintf(stderr, "wham-gpu: iteration %ld: max |d ln f| = "
		    "%.3e kT\n", it, delta);
}

static void
write_output(const struct input *in, const struct fek_wham_result *res,
    const struct fek_wham_options *o, int text, int argc, char **argv)
{
	int sd = res->sd_lnp != NULL;
	const struct fek_wham_problem *p = &in->p;
	struct fek_writer w;
	struct fek_header h;
	const char *v;
	double *row;
	long i;
	int d, k, D = p->grid.ndim;

	fek_writer_init(&w, stdout, text);
	fek_hdr_init(&h, "prob");
	h.rows = p->grid.nbins;
	fek_hdr_addcol(&h, "lnp", FEK_F64, "1");
	if (sd)
		fek_hdr_addcol(&h, "sd_lnp", FEK_F64, "1");
	fek_grid_write(&h, &p->grid);
	fek_hdr_add(&h, "TEMP", "%.17g", p->temp);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(in->energy));
	if ((v = fek_hdr_get(&in->first, "PMF", 0)) != NULL)
		fek_hdr_add(&h, "PMF", "%s", v);
	for (k = 0; (v = fek_hdr_get(&in->first, "PROV", k)) != NULL; k++)
		fek_hdr_add(&h, "PROV", "%s", v);
	fek_hdr_add(&h, "WINDOWS", "%ld", p->nwin);
	fek_hdr_add(&h, "SOLVER", "%s%s", fek_wham_solver_name(res->solver),
	    res->handover ? "-lbfgs" : "");
	fek_hdr_add(&h, "ITERATIONS", "%ld", res->iterations);
	fek_hdr_add(&h, "SWEEPS", "%ld", res->sweeps);
	fek_hdr_add(&h, "MAXDELTA", "%.3e", res->maxdelta);
	fek_hdr_add(&h, "TOL", "%.3e", o->tol);
	fek_hdr_add(&h, "DEVICE", "%s", res->gpu ? "gpu" : "cpu");
	if (in->built)
		fek_hdr_add(&h, "BIASEVAL", "%s", fek_bias_eval_name(in->how));
	if (sd)
		fek_hdr_add(&h, "BOOTSTRAP", "%ld", res->trials);
	fek_hdr_prov(&h, argc, argv);
	if (fek_begin_section(&w, &h) < 0)
		fek_die();
	if (!sd) {
		if (fek_write_rows(&w, res->lnp, (long)p->grid.nbins) < 0)
			fek_die();
	} else {
		long long b;

		for (b = 0; b < p->grid.nbins; b++) {
			double two[2] = { res->lnp[b], res->sd_lnp[b] };

			if (fek_write_rows(&w, two, 1) < 0)
				fek_die();
		}
	}
	if (fek_end_section(&w) < 0)
		fek_die();
	fek_hdr_free(&h);

	fek_hdr_init(&h, "winfree");
	h.rows = p->nwin;
	for (d = 0; d < D; d++) {
		char name[FEK_NAMELEN + 8];

		snprintf(name, sizeof name, "c_%s", p->grid.ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, p->grid.ax[d].unit);
	}
	for (d = 0; d < D; d++) {
		char name[FEK_NAMELEN + 8];

		char unit[FEK_NAMELEN];

		snprintf(name, sizeof name, "k_%s", p->grid.ax[d].name);
		if (strcmp(p->grid.ax[d].unit, "1") == 0)
			snprintf(unit, sizeof unit, "%s",
			    fek_unit_name(in->energy));
		else if (snprintf(unit, sizeof unit, "%s/%s^2",
		    fek_unit_name(in->energy), p->grid.ax[d].unit) >=
		    (int)sizeof unit)
			snprintf(unit, sizeof unit, "energy/unit^2");
		fek_hdr_addcol(&h, name, FEK_F64, unit);
	}
	fek_hdr_addcol(&h, "F", FEK_F64, "kT");
	fek_hdr_addcol(&h, "n", FEK_F64, "1");
	if (sd)
		fek_hdr_addcol(&h, "sd_F", FEK_F64, "kT");
	fek_grid_write(&h, &p->grid);
	fek_hdr_add(&h, "TEMP", "%.17g", p->temp);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(in->energy));
	fek_hdr_prov(&h, argc, argv);
	if (fek_begin_section(&w, &h) < 0)
		fek_die();
	row = fek_alloc(2 * D + 3, sizeof(double));
	for (i = 0; i < p->nwin; i++) {
		for (d = 0; d < D; d++) {
			row[d] = p->win[i].centre[d];
			row[D + d] = p->win[i].spring[d];
		}
		row[2 * D] = res->lnf[i];	/* f_h = exp(F_h/kT) */
		row[2 * D + 1] = p->n[i];
		if (sd)
			row[2 * D + 2] = res->sd_lnf[i];
		if (fek_write_rows(&w, row, 1) < 0)
			fek_die();
	}
	if (fek_end_section(&w) < 0)
		fek_die();
	fek_hdr_free(&h);
	free(row);
	fek_writer_free(&w);
}

/* The default bias: -S where some axis's bins are wider than COARSE_BIN
 * window widths sigma = sqrt(kT/k) of its stiffest spring, else -c.  The
 * centre bias's error grows about as the square of the bin width
 * (noise-free, the 1-D quartic of scripts/bench-sampler-drift: 4e-4 kJ/mol
 * at bins of sigma/5, 0.0062 at 0.8 sigma, 0.9 at 2 sigma): at half a
 * sigma about 1e-3 kT, below a sampled PMF's noise, and -c costs one
 * solve where -S costs 3 to 12. */
#define COARSE_BIN 0.5

static double
bins_per_width(const struct fek_wham_problem *p, double kT)
{
	double worst = 0, r;
	long h;
	int d;

	for (d = 0; d < p->grid.ndim; d++) {
		double kmax = 0;

		for (h = 0; h < p->nwin; h++)
			if (p->win[h].spring[d] > kmax)
				kmax = p->win[h].spring[d];
		r = kmax > 0 ? fek_grid_width(&p->grid, d) / sqrt(kT / kmax) :
		    0;
		if (r > worst)
			worst = r;
	}
	return worst;
}

int
main(int argc, char **argv)
{
	enum { OPT_TOL = 256, OPT_MAXITER, OPT_SOLVER };
	static const struct option longopts[] = {
		{ "maxiter", required_argument, NULL, OPT_MAXITER },
		{ "solver", required_argument, NULL, OPT_SOLVER },
		{ "tol", required_argument, NULL, OPT_TOL },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct fek_wham_options o = { 1e-7, 1000000, FEK_WHAM_AUTO, 0, 0, NULL,
	    NULL };
	struct fek_wham_spline_options so = { 0, 100, NULL };
	struct fek_wham_result res;
	struct input in;
	double t_start, t_dev, t_in, t_solve0, t_solve, t_boot, last_s = 0;
	enum fek_device dev = FEK_DEV_AUTO, use;
	long trials = 0, seed = 1, rounds = 1;
	int c, nerr = 0, text = 0, verbose = 0, quiet = 0, i, seed_given = 0;
	int spline_asked = 0;

	fek_setprogname(argv[0]);
	fek_trace("start");
	memset(&in, 0, sizeof in);
	in.how = FEK_BIAS_SPLINE;	/* the default (-S) */
	while ((c = getopt_long(argc, argv, "aB:cd:qSs:Tvw", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'a':
			in.how = FEK_BIAS_AVERAGE;
			break;
		case 'c':
			in.how = FEK_BIAS_CENTRE;
			break;
		case 'B':
			nerr += fek_opt_long(optarg, 2, 100000000L, "-B",
			    &trials);
			break;
		case 'S':
			in.how = FEK_BIAS_SPLINE;
			spline_asked = 1;
			break;
		case 's':
			nerr += fek_opt_long(optarg, 0, 0x7fffffffffffffffL,
			    "-s", &seed);
			seed_given = 1;
			break;
		case 'd':
			nerr += fek_opt_device(optarg, &dev);
			break;
		case 'q':
			fek_set_quiet(1);
			quiet = 1;
			break;
		case 'T':
			text = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'w':
			in.how = FEK_BIAS_WEIGHTED;
			break;
		case OPT_MAXITER:
			nerr += fek_opt_long(optarg, 1, 1000000000L,
			    "--maxiter", &o.maxiter);
			break;
		case OPT_SOLVER:
			if (fek_wham_solver_parse(optarg, &o.solver) < 0) {
				fek_warnx("--solver: '%s' is not auto, iterate, "
				    "newton or lbfgs", optarg);
				nerr++;
			}
			break;
		case OPT_TOL:
			nerr += fek_opt_double(optarg, 1e-15, 1e3, "--tol",
			    &o.tol);
			break;
		case 'V':
			fek_version_exit();
		default:
			usage();
		}
	}
	if (nerr)
		usage();
	t_start = fek_seconds();
	/* auto: decided by fek_wham_solve once the problem is known (a CUDA
	 * context costs more than most solves); cpu and gpu: now, so that
	 * the context is made while the input is read */
	if (fek_device_request(dev, &use) < 0)
		fek_die();
	if (use != FEK_DEV_AUTO && fek_device_resolve(use, 1, &use) < 0)
		fek_die();
	t_dev = fek_seconds();
	fek_trace("device ready");
	o.gpu = use == FEK_DEV_GPU ? 1 : use == FEK_DEV_CPU ? 0 : -1;
	in.keep = trials > 0;
	if (seed_given && trials == 0)
		fek_warnx("-s: a seed is for the bootstrap; without -B it has "
		    "no effect");
	if (optind == argc)
		read_input(&in, "-");
	for (i = optind; i < argc; i++)
		read_input(&in, argv[i]);
	if (in.pool_sec && in.p.nwin == 0)
		fek_errx(FEK_EX_DATA, "a pooled histogram without its windows "
		    "section");
	if (in.p.nwin == 0)
		fek_errx(FEK_EX_DATA, "no histogram sections in the input");
	if (in.nbias != in.p.nwin)
		build_bias(&in);
	/* the default: the bin shape where bins are coarse, the centre
	 * values (one solve) where they are fine */
	if (in.how == FEK_BIAS_SPLINE && !spline_asked &&
	    in.built == in.p.nwin) {
		double r = bins_per_width(&in.p, fek_kb(in.energy) *
		    in.p.temp);

		if (r <= COARSE_BIN)
			in.how = FEK_BIAS_CENTRE;
		if (verbose)
			fprintf(stderr, "wham-gpu: bins of up to %.3g window "
			    "widths sqrt(kT/k): %s\n", r, r <= COARSE_BIN ?
			    "the centre bias (-c)" : "the bin shape (-S)");
	}
	/* the bin shape needs every window's factors: with logbias sections
	 * in the input, those are used and the windows without one get the
	 * centre values (bias-build's default); -S asked for is refused */
	if (in.how == FEK_BIAS_SPLINE && in.built != in.p.nwin) {
		if (spline_asked)
			fek_errx(FEK_EX_DATA, "-S: the input holds logbias "
			    "sections (-S builds every window's bias itself, "
			    "from its WINDOW: leave out bias-build)");
		in.how = FEK_BIAS_CENTRE;
	}
	ingest_packed(&in);
	build_biases(&in);
	/* pooled input: its writer joined the windows (column group) */
	if (in.pool_sec)
		fek_wham_overlap_free(&in.ov);
	else if (fek_wham_overlap_check(&in.ov, &in.p) < 0)
		fek_die();
	t_in = fek_seconds();
	fek_trace("input read");
	if (verbose || (!quiet && isatty(STDERR_FILENO))) {
		o.progress = progress;
		o.progress_every = 100;
	}
	if (verbose)
		fprintf(stderr, "wham-gpu: %ld windows, %lld bins, device "
		    "%s\n", in.p.nwin, in.p.grid.nbins, o.gpu > 0 ? "gpu" :
		    o.gpu == 0 ? "cpu" : "auto");
	if (verbose && in.built)
		fprintf(stderr, "wham-gpu: the bias of %ld windows built from "
		    "WINDOW (BIASEVAL %s)\n", in.built,
		    fek_bias_eval_name(in.how));
	t_solve0 = fek_seconds();
	if (in.how == FEK_BIAS_SPLINE) {
		/* rounds until ln p moves by less than 1000 --tol */
		so.tol = 1e3 * o.tol;
		if (verbose)
			so.report = report_round;
		if (fek_wham_solve_spline(&in.p, 1.0 / (fek_kb(in.energy) *
		    in.p.temp), &o, &so, &res, &rounds, &last_s) < 0)
			fek_die();
	} else if (fek_wham_solve(&in.p, &o, &res) < 0)
		fek_die();
	t_solve = fek_seconds();
	fek_trace("solved");
	if (verbose && o.gpu < 0)
		fprintf(stderr, "wham-gpu: -d auto: the %s (a CPU solve "
		    "estimated at %.2g s, %s)\n", res.gpu ? "GPU" : "CPU",
		    res.cpu_est_s, res.gpu ? "more than a CUDA context costs" :
		    res.cpu_est_s <= FEK_WHAM_AUTO_GPU_ABOVE_S ?
		    "less than a CUDA context costs" : "but no usable GPU");
	if (verbose) {
		double s = t_solve - t_solve0;

		if (rounds > 1) {
			fprintf(stderr, "wham-gpu: -S: %ld solves in %.3f s; "
			    "the last:\n", rounds, s);
			s = last_s;
		}
		fprintf(stderr, "wham-gpu: converged in %ld iterations, max "
		    "|d ln f| = %.3e kT, %.3f s, %.3f ms per iteration "
		    "(solver %s, %ld sweeps of %.3f ms, %s)%s\n",
		    res.iterations, res.maxdelta, s, 1e3 * s /
		    (res.iterations + 1), res.handover ? "newton, then "
		    "lbfgs" : fek_wham_solver_name(res.solver),
		    res.sweeps, 1e3 * s / res.sweeps, res.tensor ?
		    "window grid" : "general windows", res.logspace_bins ?
		    " (some sums in log space)" : "");
	}
	if (trials > 0) {
		o.progress = NULL;
		if (fek_wham_bootstrap(&in.p, &o, trials, (unsigned long)seed,
		    &res) < 0)
			fek_die();
		if (verbose)
			fprintf(stderr, "wham-gpu: bootstrap: %ld trials, "
			    "%.3f s\n", trials, fek_seconds() - t_solve);
	}
	t_boot = fek_seconds();
	write_output(&in, &res, &o, text, argc, argv);
	fek_fshut(stdout, "stdout");
	fek_trace("output closed");
	if (verbose)
		fprintf(stderr, "wham-gpu: stages: device %.3f s, read %.3f s, "
		    "setup %.3f s, sweeps %.3f s, bootstrap %.3f s, write "
		    "%.3f s\n", t_dev - t_start, t_in - t_dev, res.setup_s,
		    t_solve - t_solve0 - res.setup_s, t_boot - t_solve,
		    fek_seconds() - t_boot);
	fek_hdr_free(&in.first);
	fek_wham_result_free(&res);
	fek_wham_problem_free(&in.p);
	fek_trace("exit");
	return 0;
}
