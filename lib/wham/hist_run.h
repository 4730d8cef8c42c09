/*
 * hist_run.h - histogram(1)'s work: per-window n-dimensional histograms
 * of umbrella samples (Potgieter 2014, section 5.2.1, Eqs. 3.3-3.4), one
 * sparse histogram section (bin, count) per window, from the samples
 * sections of fek streams or from Grossfield's metadata and time-series
 * files.  One entry point, fek_hist_run, on the device the caller
 * resolved; the caller never branches on CUDA.
 */
#ifndef FEK_HIST_RUN_H
#define FEK_HIST_RUN_H

#include "core/fek.h"
#include "stream/stream.h"
#include "wham/hist.h"

/* What to bin and where the sections go.  Pointers are borrowed. */
struct fek_hist_job {
	const struct fek_binspec *bs;	/* the -b options */
	int nb;
	int ineff;			/* -g: each window's INEFFICIENCY key
					   from its series (core/ineff.h) */
	char **paths;			/* fek streams, read as one */
	int npaths;			/* 0: standard input */
	/* -m: a Grossfield metadata file instead of the streams */
	const char *meta;
	double temp;			/* -t, the windows' default TEMP */
	int temp_given;
	enum fek_unit eunit;		/* -E */
	const char *unit;		/* -u, the axes' unit */
	struct fek_writer *w;
	int argc;			/* the command line, for PROV */
	char **argv;
};

/* Bin job's windows on dev (FEK_DEV_CPU or FEK_DEV_GPU, as
 * fek_device_resolve settled it) and write their histogram sections to
 * job->w in input order.  On the GPU the samples sections are binned a
 * batch at a time (kernels/wham/hist.cu, through hist_gpu.h); the output
 * is the same.  A metadata file is binned on the CPU whatever dev says
 * (the caller tells fek_device_resolve that it has no GPU path).  0, or
 * -1 with fek_seterr; the sections of the windows before the failing one
 * are written first, and their warnings given. */
int	fek_hist_run(const struct fek_hist_job *job, enum fek_device dev);

/* ---- hist_write.c and hist_meta.c, for hist_run.c ----------------- */

/* One histogram section: the keys of in (a samples section's header), the
 * grid g, NSAMPLES, DROPPED and job's PROV; nnz (bin, count) rows.  A
 * warning names where for samples outside the range; -1 (fek_seterr 65)
 * for a window with none inside it, or for a failed write. */
int	fek_hist_write_rows(const struct fek_hist_job *job,
	    const struct fek_header *in, const struct fek_grid *g,
	    const double *rows, long long nnz, double total, double dropped,
	    const char *where);
/* fek_hist_write_rows of a dense histogram. */
int	fek_hist_write(const struct fek_hist_job *job,
	    const struct fek_header *in, const struct fek_hist *hist,
	    const char *where);
/* -g: the INEFFICIENCY key of h from n points x on grid g, or g given. */
void	fek_hist_set_ineff(const struct fek_hist_job *job,
	    struct fek_header *h, const double *x, long n,
	    const struct fek_grid *g);
void	fek_hist_put_ineff(const struct fek_hist_job *job,
	    struct fek_header *h, double g);
/* The windows of job->meta, binned on the CPU (hist_meta.c). */
int	fek_hist_metadata(const struct fek_hist_job *job);

#endif
