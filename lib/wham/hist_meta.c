/*
 * hist_meta.c - histogram -m: the windows of a Grossfield metadata file
 * (wham 2.x, doc.tex; lines path c1..cD k1..kD [correl [temperature]])
 * binned from their time series on the CPU, each written as the
 * histogram section of the samples section it stands for (Potgieter
 * 2014, Eqs. 3.3-3.4).  The series are read and binned in parallel
 * (OpenMP, one window per thread at a time) and written in metadata
 * order; the first error in that order is reported, as reading them one
 * after another would.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "core/ineff.h"
#include "wham/hist_run.h"

/* The grid of the time series: axes x, y, z (x1 .. xD above three) in
 * job's unit, each from its -b lo:hi:bins[:p]; -1 (fek_seterr 64) for a
 * -b without a range. */
static int
meta_grid(const struct fek_hist_job *job, struct fek_grid *g)
{
	const char *names3[] = { "x", "y", "z" };
	const struct fek_binspec *bs = job->bs;
	int d, nb = job->nb;

	memset(g, 0, sizeof *g);
	g->ndim = nb;
	g->nbins = 1;
	for (d = 0; d < nb; d++) {
		if (!bs[d].explicit)
			return fek_seterr(FEK_EX_USAGE, "-m: give each -b as "
			    "lo:hi:bins[:p] (time series carry no domain)");
		if (nb <= 3)
			strcpy(g->ax[d].name, names3[d]);
		else
			snprintf(g->ax[d].name, FEK_NAMELEN, "x%d", d + 1);
		strcpy(g->ax[d].unit, job->unit);
		g->ax[d].lo = bs[d].lo;
		g->ax[d].hi = bs[d].hi;
		g->ax[d].periodic = bs[d].periodic;
		g->ax[d].nbins = bs[d].n;
		g->nbins *= bs[d].n;
	}
	return 0;
}

/* Window i of a metadata file after its series was read (code 0) or
 * failed (code, err): the checks the serial reader made before reading
 * it, its error, or its histogram section.  -1 (fek_seterr) on error. */
static int
meta_window(const struct fek_hist_job *job, const struct fek_meta *m,
    long i, int code, const char *err, const struct fek_hist *hist,
    double ineff)
{
	struct fek_header h;
	double t = m[i].temp > 0 ? m[i].temp : job->temp;
	int nb = hist->grid->ndim, rc;

	if (m[i].temp > 0 && job->temp_given && m[i].temp != job->temp)
		return fek_seterr(FEK_EX_DATA, "%s: window %ld: temperature %g "
		    "differs from -t %g", job->meta, i + 1, m[i].temp,
		    job->temp);
	if (m[i].temp > 0 && m[0].temp > 0 && m[i].temp != m[0].temp)
		return fek_seterr(FEK_EX_DATA, "%s: window %ld: temperature %g "
		    "differs from window 1 (%g); one temperature only",
		    job->meta, i + 1, m[i].temp, m[0].temp);
	if (code != 0)
		return fek_seterr(code, "%s", err);
	fek_hdr_init(&h, "samples");
	fek_hist_put_ineff(job, &h, ineff);
	fek_window_write(&h, nb, &m[i].win);
	fek_hdr_add(&h, "TEMP", "%.17g", t);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(job->eunit));
	if (m[i].correl > 0)
		fek_hdr_add(&h, "CORRTIME", "%.17g", m[i].correl);
	fek_hdr_add(&h, "SOURCE", "%s", m[i].path);
	rc = fek_hist_write(job, &h, hist, m[i].path);
	fek_hdr_free(&h);
	return rc;
}

int
fek_hist_metadata(const struct fek_hist_job *job)
{
	struct fek_meta *m;
	struct fek_grid g;
	long n, i;
	int nb = job->nb, failed = 0;

	if (meta_grid(job, &g) < 0 || fek_meta_load(job->meta, nb, &m, &n) < 0)
		return -1;
#pragma omp parallel
	{
		struct fek_hist hist;
		double *ser = NULL;
		long nser = 0;
		char err[1024];

		fek_hist_init(&hist, &g);
#pragma omp for ordered schedule(dynamic, 1)
		for (i = 0; i < n; i++) {
			double ineff = 0;
			int code = 0, stop;

#pragma omp atomic read
			stop = failed;
			if (!stop) {
				fek_hist_reset(&hist);
				code = fek_timeseries_hist(m[i].path, nb, &hist,
				    job->ineff ? &ser : NULL, &nser, err,
				    sizeof err);
				if (code == 0 && job->ineff)
					ineff = fek_ineff_points(ser, nser, &g);
			}
#pragma omp ordered
			{
#pragma omp atomic read
				stop = failed;
				if (!stop && meta_window(job, m, i, code, err,
				    &hist, ineff) < 0) {
#pragma omp atomic write
					failed = 1;
				}
			}
		}
		fek_hist_free(&hist);
		free(ser);
	}
	fek_meta_free(m, n);
	return failed ? -1 : 0;
}
