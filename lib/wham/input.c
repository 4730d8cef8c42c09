/*
 * input.c - the input of the weighted histogram analysis method
 * (Potgieter 2014, Eqs. 3.1-3.4; Kumar et al. 1992), read from fek(5)
 * sections of four kinds:
 *
 *   histogram  a window's counts n_hb (bin, count), its WINDOW (centre
 *              and spring per axis) and statistical inefficiency
 *              (INEFFICIENCY g, or Grossfield's CORRTIME tau as
 *              g = 1 + 2 tau); H_h = sum_b n_hb (Eq. 3.4) and
 *              B_b = sum_h n_hb (Eq. 3.3) are summed as they come;
 *   logbias    the factors ln c_d of the histogram before (Eq. 3.5 and
 *              footnote 2, Eq. 5.2), as bias-build writes them;
 *   pooled     B_b of many windows at once (sample-gen -b -P), which the
 *              WHAM equations and the likelihood of Zhu & Hummer 2012 need
 *              no more of; it comes alone, with no bootstrap;
 *   windows    the pooled windows' centres, springs, samples H_h, means
 *              and overlap groups.
 *
 * Histograms without a logbias section get their harmonic bias built here
 * (wham/bias.c), as bias-build would write it: with FEK_BIAS_WEIGHTED from
 * the window means read with the histograms, with FEK_BIAS_SPLINE from the
 * centre values that wham/binshape.c then refines.  Histograms of i32
 * pairs are read whole and summed afterwards, window-parallel (OpenMP);
 * the windows must share sampled bins, directly or through others, for
 * their relative free energies to be defined.
 */
#include <sys/mman.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "wham/bias.h"
#include "wham/hist.h"
#include "wham/input.h"
#include "wham/wham.h"

#define CHUNK_ROWS 65536	/* histogram rows read at a time */

/* Memory for whole histograms: slabs of at least 64 MiB that only grow
 * in number (no copies), on huge pages where the kernel has them (a page
 * fault per 4 KiB cost as much as reading the pairs). */
struct fek_wham_slab {
	struct fek_wham_slab *next;
	size_t cap, used;		/* in pairs */
	int32_t *pairs;
};

#define SLAB_BYTES ((size_t)64 << 20)

/* The default bias: FEK_BIAS_SPLINE where some axis's bins are wider than
 * COARSE_BIN window widths sigma = sqrt(kT/k) of its stiffest spring;
 * with finer bins the centre values first, and the bin shape's rounds
 * only where its estimate of the centre's error is not small against the
 * data's noise (keep_centre of wham/binshape.h).  Past one sigma the
 * window's own bias varies across a bin enough that the centre error is
 * no longer the curvature term that estimate measures (noise-free, the 1-D
 * quartic of scripts/bench-binshape: 0.0062 kJ/mol at 0.8 sigma, 0.9 at 2
 * sigma). */
#define COARSE_BIN 1.0

/* At least *bytes (rounded up to 2 MiB, the size returned) on huge pages
 * where the kernel has them; NULL with fek_seterr(70). */
static void *
huge_alloc(size_t *bytes)
{
	void *p;

	*bytes = (*bytes + (2 << 20) - 1) / (2 << 20) * (2 << 20);
	if (posix_memalign(&p, 2 << 20, *bytes) != 0) {
		(void)fek_seterr(FEK_EX_SOFTWARE, "out of memory");
		return NULL;
	}
#ifdef MADV_HUGEPAGE
	(void)madvise(p, *bytes, MADV_HUGEPAGE);
#endif
	return p;
}

/* Room for npairs (bin, count) pairs in the slabs, or NULL (70). */
static int32_t *
slab_take(struct fek_wham_input *in, long long npairs)
{
	struct fek_wham_slab *sl = in->slabs;
	size_t bytes;

	if ((unsigned long long)npairs > SIZE_MAX / 8) {
		fek_seterr(FEK_EX_SOFTWARE, "out of memory: %lld histogram "
		    "rows", npairs);
		return NULL;
	}
	if (sl == NULL || sl->used + npairs > sl->cap) {
		/* 2 MiB first, doubling to SLAB_BYTES: a small input takes
		 * little (a 64 MiB first slab made each small run pay for
		 * it), a large one soon takes SLAB_BYTES at a time */
		size_t want = (size_t)2 << 20;

		for (sl = in->slabs; sl != NULL && want < SLAB_BYTES;
		    sl = sl->next)
			want *= 2;
		bytes = (size_t)npairs * 8 > want ? (size_t)npairs * 8 : want;
		sl = fek_alloc(1, sizeof *sl);
		if ((sl->pairs = huge_alloc(&bytes)) == NULL) {
			free(sl);
			return NULL;
		}
		sl->cap = bytes / 8;
		sl->next = in->slabs;
		in->slabs = sl;
	}
	sl->used += npairs;
	return sl->pairs + 2 * (sl->used - npairs);
}

static void
free_slabs(struct fek_wham_input *in)
{
	while (in->slabs != NULL) {
		struct fek_wham_slab *next = in->slabs->next;

		free(in->slabs->pairs);
		free(in->slabs);
		in->slabs = next;
	}
}

/* Room for got more kept rows (-B only); -1 (70). */
static int
reserve(struct fek_wham_input *in, long got, long long declared)
{
	struct fek_wham_problem *p = &in->p;

	if (!in->keep || in->nnz + got <= in->nnzcap)
		return 0;
	in->nnzcap = 2 * (in->nnz + got) + (declared > 0 ? declared : 0) +
	    1024;
	p->hist_bin = realloc(p->hist_bin, in->nnzcap * sizeof *p->hist_bin);
	p->hist_count = realloc(p->hist_count, in->nnzcap *
	    sizeof *p->hist_count);
	if (!p->hist_bin || !p->hist_count)
		return fek_seterr(FEK_EX_SOFTWARE, "out of memory");
	return 0;
}

/* The grid, TEMP and ENERGY of section h: the first section's, or the
 * same as the first's; -1 (65). */
static int
same_grid(struct fek_wham_input *in, struct fek_reader *r,
    struct fek_header *h, const struct fek_grid *gp)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g = *gp;
	enum fek_unit eu;
	double temp;

	if (fek_temp_read(r, h, &temp) < 0 || fek_energy_read(r, h, &eu) < 0)
		return -1;
	if (!in->have_first) {
		p->grid = g;
		p->temp = temp;
		in->energy = eu;
		fek_hdr_copy(&in->first, h);
		in->have_first = 1;
		p->counts = fek_alloc((size_t)g.nbins, sizeof(double));
		fek_wham_overlap_init(&in->ov, g.nbins);
		return 0;
	}
	if (!fek_grid_same(&g, &p->grid))
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: AXIS/BINS "
		    "differ from the first histogram's", r->name, r->section);
	if (temp != p->temp)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: TEMP %g "
		    "differs from the first histogram's %g (one temperature "
		    "only)", r->name, r->section, temp, p->temp);
	if (eu != in->energy)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: ENERGY differs "
		    "from the first histogram's", r->name, r->section);
	return 0;
}

/* Room in the per-window arrays for want windows (at least twice as many
 * as before when they grow); -1 (70). */
static int
room_for_windows(struct fek_wham_input *in, long want)
{
	struct fek_wham_problem *p = &in->p;

	if (want <= in->cap)
		return 0;
	in->cap = in->cap ? 2 * in->cap : 64;
	if (in->cap < want)
		in->cap = want;
	p->win = realloc(p->win, in->cap * sizeof *p->win);
	p->n = realloc(p->n, in->cap * sizeof *p->n);
	if (in->keep)
		p->hist_start = realloc(p->hist_start, (in->cap + 1) *
		    sizeof *p->hist_start);
	p->ineff = realloc(p->ineff, in->cap * sizeof *p->ineff);
	in->pk_at = realloc(in->pk_at, in->cap * sizeof *in->pk_at);
	in->pk_len = realloc(in->pk_len, in->cap * sizeof *in->pk_len);
	in->section = realloc(in->section, in->cap * sizeof *in->section);
	in->sname = realloc(in->sname, in->cap * sizeof *in->sname);
	in->tobuild = realloc(in->tobuild, in->cap);
	/* means: for -w, and from a pooled input's windows table; the
	 * boundary terms only from histograms (-w) */
	if (in->how == FEK_BIAS_WEIGHTED || in->pool_sec)
		p->mean = realloc(p->mean, in->cap * p->grid.ndim *
		    sizeof *p->mean);
	if (in->how == FEK_BIAS_WEIGHTED && !in->pool_sec)
		p->edge = realloc(p->edge, in->cap * p->grid.ndim *
		    sizeof *p->edge);
	if (!p->win || !p->n || !p->ineff || !in->tobuild ||
	    ((in->how == FEK_BIAS_WEIGHTED || in->pool_sec) && !p->mean) ||
	    (in->how == FEK_BIAS_WEIGHTED && !in->pool_sec && !p->edge) ||
	    (in->keep && !p->hist_start) || !in->pk_at || !in->pk_len ||
	    !in->section || !in->sname)
		return fek_seterr(FEK_EX_SOFTWARE, "out of memory");
	return 0;
}

/* Row k of a chunk of histogram rows (bin, count) whose first is row
 * first (from 1) of r's section: its bin *b and count *c, checked against
 * a grid of nbins bins; -1 (65). */
static int
chunk_row(struct fek_reader *r, const double *rows, long long k,
    long long first, long long nbins, long long *b, double *c)
{
	*c = rows[2 * k + 1];
	if (!fek_hist_row_ok(rows[2 * k], *c, nbins))
		return fek_hist_row_err(r->name, r->section, first + k,
		    rows[2 * k], *c, nbins);
	*b = (long long)rows[2 * k];
	return 0;
}

/* A histogram section: its counts summed into p (or, i32 pairs without
 * -B, held whole for fek_wham_input_finish); -1 (65, 70). */
static int
add_histogram(struct fek_wham_input *in, struct fek_reader *r,
    struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	struct fek_window win;
	double *rows = in->chunk;
	int32_t extra[2];		/* a row past ROWS, if any */
	double n = 0, ineff = 1, tau, c;
	double acc[FEK_BIAS_ACC(FEK_MAXDIM)] = { 0 };
	long long k, b, row = 0;
	long got;
	int packed;

	if (in->pool_sec)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: a histogram "
		    "after the pooled histogram of section %ld (pooled input "
		    "comes alone: its windows' overlap with others is "
		    "unknown)", r->name, r->section, in->pool_sec);
	if (fek_grid_read(r, h, &g, 1) < 0 ||
	    fek_window_read(r, h, g.ndim, &win) < 0)
		return -1;
	if (same_grid(in, r, h, &g) < 0)
		return -1;
	/* statistical inefficiency: INEFFICIENCY g, or CORRTIME tau (in
	 * samples, Grossfield's correl time) as g = 1 + 2 tau */
	if (fek_hdr_get(h, "INEFFICIENCY", 0) != NULL) {
		if (fek_key_double(r, h, "INEFFICIENCY", &ineff) < 0)
			return -1;
	} else if (fek_hdr_get(h, "CORRTIME", 0) != NULL) {
		if (fek_key_double(r, h, "CORRTIME", &tau) < 0)
			return -1;
		ineff = 1 + 2 * tau;
	}
	if (!(ineff >= 1) || !isfinite(ineff))
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: statistical "
		    "inefficiency %g (from INEFFICIENCY or CORRTIME) is not a "
		    "finite value >= 1", r->name, r->section, ineff);
	if (fek_hdr_col(h, "bin") != 0 || fek_hdr_col(h, "count") != 1 ||
	    h->ncols != 2)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: histogram "
		    "columns must be bin, count", r->name, r->section);
	/* fek(5): one row per non-empty bin, so ROWS is at most the bins;
	 * checked before anything is allocated for the rows */
	if (h->rows > g.nbins)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: ROWS %lld: "
		    "more rows than the grid's %lld bins (a histogram has one "
		    "row per non-empty bin)", r->name, r->section, h->rows,
		    (long long)g.nbins);
	if (room_for_windows(in, p->nwin + 1) < 0)
		return -1;
	in->section[p->nwin] = r->section;
	in->sname[p->nwin] = in->names[in->nnames - 1];
	in->pk_at[p->nwin] = NULL;
	in->tobuild[p->nwin] = 0;
	if (in->keep)
		p->hist_start[p->nwin] = in->nnz;
	/* i32 pairs (what histogram and sample-gen write), whole sections as
	 * they lie, for fek_wham_input_finish */
	packed = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    h->cols[0].type == FEK_I32 && h->cols[1].type == FEK_I32;
	if (packed && !in->keep && h->rows >= 0) {
		int32_t *q = slab_take(in, h->rows);

		if (q == NULL)
			return -1;
		in->pk_at[p->nwin] = q;
		for (got = 0, row = 0; row < h->rows; row += got)
			if ((got = fek_read_packed(r, q + 2 * row, h->rows -
			    row)) <= 0)
				break;
		if (got < 0 || (got = fek_read_packed(r, extra, 1)) < 0)
			return -1;
		if (row != h->rows || got != 0)
			return fek_seterr(FEK_EX_DATA, "%s: section %ld: rows "
			    "differ from ROWS %lld", r->name, r->section,
			    h->rows);
		in->pk_n += h->rows;
		in->pk_len[p->nwin] = h->rows;
		p->win[p->nwin] = win;
		p->n[p->nwin] = 0;	/* fek_wham_input_finish sums it */
		p->ineff[p->nwin] = ineff;
		p->nwin++;
		return 0;
	}
	/* the others (and all with -B), a chunk at a time, summed as read */
	while ((got = fek_read_rows(r, rows, CHUNK_ROWS)) > 0) {
		if (reserve(in, got, h->rows) < 0)
			return -1;
		for (k = 0; k < got; k++) {
			if (chunk_row(r, rows, k, row + 1, g.nbins, &b, &c) < 0)
				return -1;
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
		return -1;
	if (!(n > 0))
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: window has no "
		    "samples", r->name, r->section);
	if (in->keep)
		p->hist_start[p->nwin + 1] = in->nnz;
	p->win[p->nwin] = win;
	p->n[p->nwin] = n;
	p->ineff[p->nwin] = ineff;
	if (p->mean != NULL)
		fek_bias_mean_end(&g, &win, acc, n, p->mean + p->nwin * g.ndim,
		    p->edge + p->nwin * g.ndim);
	p->nwin++;
	return 0;
}

/* Row h of the ln c_d table (sum_d n_d values), allocated as windows come;
 * NULL (70). */
static double *
lnc_row(struct fek_wham_input *in, long h)
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

		if (t == NULL)
			return NULL;
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
 * write it; -1 (70). */
static int
build_bias(struct fek_wham_input *in)
{
	if (lnc_row(in, in->nbias) == NULL)
		return -1;
	in->tobuild[in->nbias] = 1;
	in->nbias++;
	in->built++;
	return 0;
}

/* The bias rows build_bias put aside, once every window's mean is known
 * (-w; fek_wham_input_finish sums the means of the windows read whole). */
static void
build_biases(struct fek_wham_input *in)
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

/* A logbias section: the factors of the histogram before it; -1 (65,
 * 70). */
static int
add_bias(struct fek_wham_input *in, struct fek_reader *r,
    struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	struct fek_window win;
	double *rows, *lnc;
	long long n;
	long h_idx = in->nbias;
	int d;

	if (h_idx >= p->nwin)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: logbias "
		    "without a histogram before it", r->name, r->section);
	if (fek_grid_read(r, h, &g, 1) < 0)
		return -1;
	if (!fek_grid_same(&g, &p->grid))
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: AXIS/BINS "
		    "differ from the histograms'", r->name, r->section);
	if (fek_window_read(r, h, g.ndim, &win) < 0)
		return -1;
	for (d = 0; d < g.ndim; d++)
		if (win.centre[d] != p->win[h_idx].centre[d] ||
		    win.spring[d] != p->win[h_idx].spring[d])
			return fek_seterr(FEK_EX_DATA, "%s: section %ld: WINDOW "
			    "differs from its histogram's (the section "
			    "before)", r->name, r->section);
	if ((lnc = lnc_row(in, h_idx)) == NULL)
		return -1;
	if (h->ncols != 1)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: logbias has "
		    "%d columns, expected 1", r->name, r->section, h->ncols);
	if ((n = fek_read_all(r, h, &rows)) < 0)
		return -1;
	if (n != p->lnc_stride) {
		free(rows);
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: %lld logbias "
		    "rows, expected %ld", r->name, r->section, n,
		    p->lnc_stride);
	}
	for (n = 0; n < p->lnc_stride; n++) {
		const char *bad = !(rows[n] <= 0) && !(rows[n] > 0) ? "NaN" :
		    rows[n] == HUGE_VAL ? "ln c = +inf" : NULL;

		if (bad != NULL) {
			free(rows);
			return fek_seterr(FEK_EX_DATA, "%s: section %ld: row "
			    "%lld: %s", r->name, r->section, n + 1, bad);
		}
		lnc[n] = rows[n];
	}
	in->nbias++;
	free(rows);
	return 0;
}

/* A pooled histogram (fek(5) kind pooled): B_b of all its windows at
 * once; the windows follow in a windows section (add_windows).  Pooled
 * input comes alone: no per-window histogram, so no bootstrap.  -1 (65). */
static int
add_pooled(struct fek_wham_input *in, struct fek_reader *r,
    struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	double *rows = in->chunk;
	double nw, c;
	long long k, b, row = 0;
	long got;

	if (in->pool_sec || p->nwin > 0)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: a pooled "
		    "histogram after other histograms (pooled input comes "
		    "alone: its windows' overlap with others is unknown)",
		    r->name, r->section);
	if (in->keep)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: -B: a pooled "
		    "histogram holds no window's own counts to redraw (write "
		    "per-window histograms: sample-gen -b without -P)",
		    r->name, r->section);
	if (fek_grid_read(r, h, &g, 1) < 0 ||
	    fek_key_double(r, h, "WINDOWS", &nw) < 0)
		return -1;
	if (!(nw >= 1 && nw <= 1e12 && nw == floor(nw)))
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: WINDOWS %g is "
		    "not a count >= 1", r->name, r->section, nw);
	in->pool_win = (long)nw;
	if (same_grid(in, r, h, &g) < 0)
		return -1;
	if (fek_hdr_col(h, "bin") != 0 || fek_hdr_col(h, "count") != 1 ||
	    h->ncols != 2)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: pooled "
		    "columns must be bin, count", r->name, r->section);
	while ((got = fek_read_rows(r, rows, CHUNK_ROWS)) > 0) {
		for (k = 0; k < got; k++) {
			if (chunk_row(r, rows, k, row + 1, g.nbins, &b, &c) < 0)
				return -1;
			p->counts[b] += c;
			in->pool_total += c;
		}
		row += got;
	}
	if (got < 0)
		return -1;
	in->pool_sec = r->section;
	return 0;
}

/* Row w (from 0) of a windows section (its columns cc, ck, cm per axis, cn
 * and cg) as the next window; -1 (65, 1). */
static int
add_window_row(struct fek_wham_input *in, struct fek_reader *r,
    const double *row, long long w, const int *cc, const int *ck,
    const int *cm, int cn, int cg)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_window *win = &p->win[p->nwin];
	int d, D = p->grid.ndim;

	memset(win, 0, sizeof *win);
	for (d = 0; d < D; d++) {
		win->centre[d] = row[cc[d]];
		win->spring[d] = row[ck[d]];
		p->mean[w * D + d] = row[cm[d]];
		if (!isfinite(win->centre[d]) || !(win->spring[d] >= 0) ||
		    !isfinite(win->spring[d]) || !isfinite(row[cm[d]]))
			return fek_seterr(FEK_EX_DATA, "%s: section %ld: row "
			    "%lld: centre, spring or mean not finite (or a "
			    "spring < 0)", r->name, r->section, w + 1);
	}
	if (!(row[cn] > 0) || !isfinite(row[cn]))
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: row %lld: n "
		    "%g: a window needs samples", r->name, r->section, w + 1,
		    row[cn]);
	if (row[cg] != 1)
		return fek_seterr(FEK_EX_NUMERIC, "%s: section %ld: row %lld: "
		    "group %g: the window shares no sampled bin with window 1, "
		    "directly or through others: their relative free energy "
		    "is undefined (add windows between them or soften the "
		    "springs)", r->name, r->section, w + 1, row[cg]);
	p->n[p->nwin] = row[cn];
	p->ineff[p->nwin] = 1;
	in->section[p->nwin] = r->section;
	in->sname[p->nwin] = in->names[in->nnames - 1];
	in->pk_at[p->nwin] = NULL;
	p->nwin++;
	return build_bias(in);		/* built later, in build_biases */
}

/* The windows of the pooled histogram before: centres, springs, samples
 * counted, means and overlap groups (fek(5) kind windows); the bias of
 * each is built from its centre and springs.  -1 (65, 1, 70). */
static int
add_windows(struct fek_wham_input *in, struct fek_reader *r,
    struct fek_header *h)
{
	struct fek_wham_problem *p = &in->p;
	struct fek_grid g;
	double *rows, total = 0;
	long long n, w;
	int d, cc[FEK_MAXDIM], ck[FEK_MAXDIM], cm[FEK_MAXDIM], cn, cg;
	char name[FEK_NAMELEN + 8];

	if (!in->pool_sec || p->nwin > 0)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: a windows "
		    "section belongs right after its pooled histogram",
		    r->name, r->section);
	if (fek_grid_read(r, h, &g, 1) < 0)
		return -1;
	if (same_grid(in, r, h, &g) < 0)
		return -1;
	for (d = 0; d < g.ndim; d++) {
		snprintf(name, sizeof name, "c_%s", g.ax[d].name);
		cc[d] = fek_hdr_col(h, name);
		snprintf(name, sizeof name, "k_%s", g.ax[d].name);
		ck[d] = fek_hdr_col(h, name);
		snprintf(name, sizeof name, "mean_%s", g.ax[d].name);
		cm[d] = fek_hdr_col(h, name);
		if (cc[d] < 0 || ck[d] < 0 || cm[d] < 0)
			return fek_seterr(FEK_EX_DATA, "%s: section %ld: no "
			    "column c_%s, k_%s or mean_%s", r->name,
			    r->section, g.ax[d].name, g.ax[d].name,
			    g.ax[d].name);
	}
	if ((cn = fek_hdr_col(h, "n")) < 0 || (cg = fek_hdr_col(h, "group")) <
	    0)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: no column n "
		    "or group", r->name, r->section);
	if ((n = fek_read_all(r, h, &rows)) < 0)
		return -1;
	if (n != in->pool_win) {
		free(rows);
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: %lld windows, "
		    "but the pooled histogram says WINDOWS %ld", r->name,
		    r->section, n, in->pool_win);
	}
	/* all at once: one lnc table */
	if (room_for_windows(in, n) < 0) {
		free(rows);
		return -1;
	}
	for (w = 0; w < n; w++) {
		if (add_window_row(in, r, rows + w * h->ncols, w, cc, ck, cm,
		    cn, cg) < 0) {
			free(rows);
			return -1;
		}
		total += rows[w * h->ncols + cn];
	}
	free(rows);
	if (fabs(total - in->pool_total) > 1e-9 * total)
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: the windows' n "
		    "add up to %.0f, the pooled counts to %.0f", r->name,
		    r->section, total, in->pool_total);
	return 0;
}

/* Pass 1 over the windows read whole: check every row, sum N_h, B_b (into
 * p->counts) and, for -w, the means; first[b] the first window with a
 * count in bin b (H if none), bad[h] window h's first bad row (from 0) or
 * -1. */
static void
sum_packed(struct fek_wham_input *in, int nt, long long *bad, long *first)
{
	struct fek_wham_problem *p = &in->p;
	long H = p->nwin;
	long long B = p->grid.nbins;

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
}

/* Pass 2: each window read whole joined to the owners of its sampled bins
 * in the overlap tracker, once; -1 (70). */
static int
join_packed(struct fek_wham_input *in, int nt)
{
	long H = in->p.nwin, *owner = in->ov.owner;
	int oom = 0;

#pragma omp parallel num_threads(nt)
	{
		long *seen = fek_alloc(H, sizeof(long)), hh, o, ne = 0,
		    cap = 0, *edge = NULL, *grown, i;
		long long k;
		int full = 0;		/* no more room for edges here */

		for (hh = 0; hh < H; hh++)
			seen[hh] = -1;
#pragma omp for schedule(dynamic, 8)
		for (hh = 0; hh < H; hh++) {
			const int32_t *q = in->pk_at[hh];

			if (q == NULL || full)
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
					grown = realloc(edge, cap *
					    sizeof(long));
					if (grown == NULL) {
						full = 1;
						break;
					}
					edge = grown;
				}
				edge[ne++] = hh;
				edge[ne++] = o;
			}
		}
#pragma omp critical
		{
			if (full)
				oom = 1;
			for (i = 0; i < ne; i += 2)
				fek_wham_overlap_join(&in->ov, edge[i],
				    edge[i + 1]);
		}
		free(edge);
		free(seen);
	}
	if (oom)
		return fek_seterr(FEK_EX_SOFTWARE, "out of memory");
	return 0;
}

/* The windows read whole (i32 pairs): check every row, sum N_h and B_b,
 * and join the windows that share a bin, window-parallel (OpenMP); the
 * first bad row in input order is the one reported.  -1 (65, 70). */
static int
ingest_packed(struct fek_wham_input *in)
{
	struct fek_wham_problem *p = &in->p;
	long H = p->nwin, h, bad_h = -1;
	long long B = p->grid.nbins, b, *bad;
	long *owner = in->ov.owner, *first;
	int nt = 1, rc = 0;

	if (in->pk_n == 0)
		return 0;
	bad = fek_alloc(H, sizeof *bad);
	first = fek_alloc((size_t)B, sizeof *first);
	for (b = 0; b < B; b++)
		first[b] = H;
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	sum_packed(in, nt, bad, first);
	for (h = 0; h < H && bad_h < 0; h++)
		if (bad[h] >= 0 || (in->pk_at[h] != NULL && !(p->n[h] > 0)))
			bad_h = h;
	if (bad_h >= 0) {
		const int32_t *q = in->pk_at[bad_h] + 2 * (bad[bad_h] < 0 ?
		    0 : bad[bad_h]);

		if (bad[bad_h] < 0)
			rc = fek_seterr(FEK_EX_DATA, "%s: section %ld: window "
			    "has no samples", in->sname[bad_h],
			    in->section[bad_h]);
		else
			rc = fek_hist_row_err(in->sname[bad_h],
			    in->section[bad_h], bad[bad_h] + 1, q[0], q[1], B);
	} else {
		/* bins no summed window owns get their first packed
		 * window */
		for (b = 0; b < B; b++)
			if (owner[b] < 0 && first[b] < H)
				owner[b] = first[b];
		rc = join_packed(in, nt);
	}
	free(bad);
	free(first);
	free_slabs(in);
	return rc;
}

/* Up to how many window widths sqrt(kT/k) of its stiffest spring an
 * axis's bins are wide, the widest of the axes. */
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

void
fek_wham_input_init(struct fek_wham_input *in, enum fek_bias_eval how,
    int how_asked, int keep)
{
	memset(in, 0, sizeof *in);
	in->how = how;
	in->how_asked = how_asked;
	in->keep = keep;
}

int
fek_wham_input_read(struct fek_wham_input *in, const char *path)
{
	struct fek_reader r;
	struct fek_header h;
	char **names;
	int rc;

	if (fek_reader_open(&r, path) < 0)
		return -1;
	if (in->chunk == NULL)
		in->chunk = fek_alloc(2 * CHUNK_ROWS, sizeof(double));
	/* the stream's name, kept for the messages of
	 * fek_wham_input_finish */
	if ((names = realloc(in->names, (in->nnames + 1) * sizeof *names)) ==
	    NULL || (names[in->nnames] = strdup(r.name)) == NULL) {
		if (names != NULL)
			in->names = names;
		fek_reader_close(&r);
		return fek_seterr(FEK_EX_SOFTWARE, "out of memory");
	}
	in->names = names;
	in->nnames++;
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (strcmp(h.kind, "histogram") == 0) {
			if (in->nbias != in->p.nwin)
				rc = build_bias(in);
			if (rc >= 0)
				rc = add_histogram(in, &r, &h);
		} else if (strcmp(h.kind, "logbias") == 0) {
			if (in->pool_sec)
				rc = fek_seterr(FEK_EX_DATA, "%s: section %ld: "
				    "a logbias with pooled input (the bias is "
				    "built from the windows' columns)", r.name,
				    r.section);
			else
				rc = add_bias(in, &r, &h);
		} else if (strcmp(h.kind, "pooled") == 0)
			rc = add_pooled(in, &r, &h);
		else if (strcmp(h.kind, "windows") == 0)
			rc = add_windows(in, &r, &h);
		else
			rc = fek_seterr(FEK_EX_DATA, "%s: section %ld: KIND %s, "
			    "expected histogram, logbias, or pooled and "
			    "windows", r.name, r.section, h.kind);
		fek_hdr_free(&h);
		if (rc < 0)
			break;
	}
	fek_reader_close(&r);
	return rc < 0 ? -1 : 0;
}

int
fek_wham_input_end(struct fek_wham_input *in, double *width)
{
	int settled = 0;

	if (in->pool_sec && in->p.nwin == 0)
		return fek_seterr(FEK_EX_DATA, "a pooled histogram without its "
		    "windows section");
	if (in->p.nwin == 0)
		return fek_seterr(FEK_EX_DATA, "no histogram sections in the "
		    "input");
	if (in->nbias != in->p.nwin && build_bias(in) < 0)
		return -1;
	/* the default: the bin shape where bins are coarse, the centre
	 * values (one solve) where they are fine */
	if (in->how == FEK_BIAS_SPLINE && !in->how_asked &&
	    in->built == in->p.nwin) {
		*width = bins_per_width(&in->p, fek_kb(in->energy) *
		    in->p.temp);
		in->check_centre = *width <= COARSE_BIN;
		settled = 1;
	}
	/* the bin shape needs every window's factors: with logbias sections
	 * in the input, those are used and the windows without one get the
	 * centre values (bias-build's default); the bin shape asked for is
	 * refused */
	if (in->how == FEK_BIAS_SPLINE && in->built != in->p.nwin) {
		if (in->how_asked)
			return fek_seterr(FEK_EX_DATA, "-S: the input holds "
			    "logbias sections (-S builds every window's bias "
			    "itself, from its WINDOW: leave out bias-build)");
		in->how = FEK_BIAS_CENTRE;
	}
	return settled;
}

int
fek_wham_input_finish(struct fek_wham_input *in)
{
	if (ingest_packed(in) < 0)
		return -1;
	build_biases(in);
	/* pooled input: its writer joined the windows (column group) */
	if (in->pool_sec) {
		fek_wham_overlap_free(&in->ov);
		return 0;
	}
	return fek_wham_overlap_check(&in->ov, &in->p);
}

void
fek_wham_input_free(struct fek_wham_input *in)
{
	long i;

	fek_wham_problem_free(&in->p);
	fek_hdr_free(&in->first);
	fek_wham_overlap_free(&in->ov);
	free_slabs(in);
	free(in->tobuild);
	free(in->chunk);
	free(in->pk_at);
	free(in->pk_len);
	free(in->section);
	free(in->sname);
	for (i = 0; i < in->nnames; i++)
		free(in->names[i]);
	free(in->names);
	memset(in, 0, sizeof *in);
}
