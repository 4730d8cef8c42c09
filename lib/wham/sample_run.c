/*
 * sample_run.c - sample-gen's windows on the device the run chose, behind
 * one entry point (sample.h's fek_sample_run): the CPU reference
 * (fek_sample_exact, the envelope-rejection sampler of Potgieter 2014,
 * section 5.1.1, Eq. 5.1, or fek_sample_langevin) window after window, or
 * its GPU twin fek_gpu_sample (kernels/wham/sample.cu, sample_gpu.h).
 * Both hand each window to the same sink: its samples, or its histogram
 * as (bin, count) rows.  The caller never branches on the device.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "wham/hist.h"
#include "wham/sample.h"
#include "wham/sample_gpu.h"

/* Window i's histogram of x (n points) as (bin, count) rows into *rows
 * (grown as needed, *cap doubles), to sink->hist. */
static int
bin_window(const struct fek_gpu_sample_sink *sink, struct fek_hist *hist,
    const double *x, long n, long i, double props, double **rows,
    long long *cap)
{
	long long b, k = 0;

	fek_hist_reset(hist);
	if (fek_hist_add(hist, x, n, 1) < 0) {
		char msg[1024];

		snprintf(msg, sizeof msg, "%s", fek_errmsg());
		return fek_seterr(FEK_EX_SOFTWARE, "window %ld: %s", i + 1,
		    msg);
	}
	for (b = 0; b < hist->grid->nbins; b++)
		if (hist->count[b] != 0) {
			if (2 * k + 2 > *cap) {
				*cap = 2 * *cap + 64;
				*rows = realloc(*rows, *cap * sizeof(double));
				if (*rows == NULL)
					return fek_seterr(FEK_EX_SOFTWARE,
					    "out of memory");
			}
			(*rows)[2 * k] = (double)b;
			(*rows)[2 * k + 1] = hist->count[b];
			k++;
		}
	return sink->hist(sink->ctx, i + 1, *rows, k, hist->total,
	    hist->dropped, props);
}

/* The CPU reference, window after window. */
static int
run_cpu(const struct fek_gpu_sample_spec *spec, double corr,
    const struct fek_gpu_sample_sink *sink, struct fek_gpu_sample_stats *st)
{
	struct fek_envelope *env;
	struct fek_sample_stats ss = { 0, 0 };
	struct fek_hist hist;
	double *buf, *rows = NULL, v;
	long long cap = 0;
	int rc = 0;

	if ((env = fek_envelope_new(spec->pmf, spec->dom, spec->beta)) ==
	    NULL)
		return -1;
	buf = fek_alloc((size_t)spec->nsamp * spec->dom->ndim,
	    sizeof(double));
	if (spec->bins != NULL)
		fek_hist_init(&hist, spec->bins);
	for (long i = spec->first - 1; rc == 0 && i < spec->last; i++) {
		const struct fek_window *w = &spec->win[i - (spec->first - 1)];
		gsl_rng *rng = fek_rng_new(spec->seed, (unsigned long long)i);

		v = ss.proposals;
		rc = corr > 0 ?
		    fek_sample_langevin(env, w, rng, spec->nsamp, corr, buf,
			&ss) :
		    fek_sample_exact(env, w, rng, spec->nsamp, buf, &ss);
		fek_rng_free(rng);
		if (rc < 0) {
			char msg[1024];

			snprintf(msg, sizeof msg, "%s", fek_errmsg());
			rc = fek_seterr(fek_errcode(), "window %ld: %s", i + 1,
			    msg);
		} else if (spec->bins != NULL)
			rc = bin_window(sink, &hist, buf, spec->nsamp, i,
			    ss.proposals - v, &rows, &cap);
		else
			rc = sink->samples(sink->ctx, i + 1, buf, spec->nsamp,
			    ss.proposals - v);
	}
	if (spec->bins != NULL)
		fek_hist_free(&hist);
	st->restarts = ss.restarts;
	free(rows);
	free(buf);
	fek_envelope_free(env);
	return rc;
}

int
fek_sample_run(const struct fek_gpu_sample_spec *spec, double corr,
    enum fek_device dev, const struct fek_gpu_sample_sink *sink,
    struct fek_gpu_sample_stats *st)
{
	memset(st, 0, sizeof *st);
	if (dev == FEK_DEV_GPU)
		return fek_gpu_sample(spec, sink, st);
	return run_cpu(spec, corr, sink, st);
}
