/*
 * hist_write.c - histogram(1)'s output section (fek(5) kind histogram):
 * a window's sparse histogram n_hb (Potgieter 2014, Eqs. 3.3-3.4) as
 * (bin, count) rows in the narrowest exact columns, after the keys of the
 * samples it was made from, the grid, NSAMPLES (H_h), DROPPED and PROV;
 * and -g's INEFFICIENCY key (core/ineff.h).
 */
#include <stdlib.h>

#include "core/fek.h"
#include "core/ineff.h"
#include "wham/hist_run.h"

void
fek_hist_put_ineff(const struct fek_hist_job *job, struct fek_header *h,
    double g)
{
	if (job->ineff)
		fek_hdr_set(h, "INEFFICIENCY", "%.10g", g);
}

void
fek_hist_set_ineff(const struct fek_hist_job *job, struct fek_header *h,
    const double *x, long n, const struct fek_grid *g)
{
	if (job->ineff)
		fek_hist_put_ineff(job, h, fek_ineff_points(x, n, g));
}

int
fek_hist_write_rows(const struct fek_hist_job *job,
    const struct fek_header *in, const struct fek_grid *g,
    const double *rows, long long nnz, double total, double dropped,
    const char *where)
{
	struct fek_header h;
	int rc = 0;

	if (total == 0)
		return fek_seterr(FEK_EX_DATA, "%s: no sample inside the "
		    "histogram range (%.0f outside)", where, dropped);
	if (dropped > 0)
		fek_warnx("%s: %.0f of %.0f samples outside the histogram "
		    "range, dropped", where, dropped, dropped + total);
	fek_hdr_init(&h, "histogram");
	h.rows = nnz;
	fek_hist_columns(&h, g->nbins, rows, nnz);
	fek_hdr_copy_keys(&h, in);
	fek_grid_write(&h, g);
	fek_hdr_set(&h, "NSAMPLES", "%.0f", total);
	fek_hdr_set(&h, "DROPPED", "%.0f", dropped);
	fek_hdr_prov(&h, job->argc, job->argv);
	if (fek_begin_section(job->w, &h) < 0 ||
	    fek_write_rows(job->w, rows, nnz) < 0 ||
	    fek_end_section(job->w) < 0)
		rc = -1;
	fek_hdr_free(&h);
	return rc;
}

int
fek_hist_write(const struct fek_hist_job *job, const struct fek_header *in,
    const struct fek_hist *hist, const char *where)
{
	long long b, k = 0, nnz = fek_hist_nonzero(hist);
	double *rows;
	int rc;

	rows = fek_alloc((size_t)(nnz ? nnz : 1) * 2, sizeof(double));
	for (b = 0; b < hist->grid->nbins; b++)
		if (hist->count[b] != 0) {
			rows[2 * k] = (double)b;
			rows[2 * k + 1] = hist->count[b];
			k++;
		}
	rc = fek_hist_write_rows(job, in, hist->grid, rows, nnz, hist->total,
	    hist->dropped, where);
	free(rows);
	return rc;
}
