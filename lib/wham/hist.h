/*
 * hist.h - per-window histograms of umbrella samples (Potgieter 2014,
 * Eqs. 3.3-3.4: n_hb, H_h = sum_b n_hb, B_b = sum_h n_hb) and the readers
 * of Grossfield's metadata and time-series files (wham 2.x, doc.tex).
 */
#ifndef FEK_HIST_H
#define FEK_HIST_H

#include <math.h>

#include "stream/grid.h"

struct fek_hist {
	const struct fek_grid *grid;
	double *count;		/* nbins, dense while accumulating */
	double total;		/* samples in range (H_h) */
	double dropped;		/* samples outside a non-periodic domain */
};

void	fek_hist_init(struct fek_hist *h, const struct fek_grid *g);
void	fek_hist_reset(struct fek_hist *h);
void	fek_hist_free(struct fek_hist *h);
/* Count n points (n x ndim doubles); -1 naming the row of a non-finite
 * coordinate (row numbers start at first_row). */
int	fek_hist_add(struct fek_hist *h, const double *x, long n,
	    long long first_row);
long long fek_hist_nonzero(const struct fek_hist *h);
/* Add the columns of a histogram section (fek(5)) to h for nnz rows of
 * (bin, count) pairs of a grid of nbins bins: the narrowest types that hold
 * them exactly, i32 where every value fits, else i64 bins and f64 counts
 * (half the bytes of the stream for any grid under 2^31 bins). */
struct fek_header;
/* A histogram row's bin b is on a grid of nbins bins and its count c is a
 * finite count >= 0; else fek_hist_row_err says which is wrong. */
static inline int
fek_hist_row_ok(double b, double c, long long nbins)
{
	return b >= 0 && b < nbins && b == floor(b) && c >= 0 && isfinite(c);
}
/* -1 with fek_seterr(65) naming a histogram row (from 1) of section
 * section of stream name whose bin b is off a grid of nbins bins or whose
 * count c is not a finite count >= 0: one message for every reader of
 * histograms. */
int	fek_hist_row_err(const char *name, long section, long long row,
	    double b, double c, long long nbins);
void	fek_hist_columns(struct fek_header *h, long long nbins,
	    const double *rows, long long nnz);

/* A -b option of histogram(1) and sample-gen(1): "bins" divides the axis
 * of the input, "lo:hi:bins[:p]" sets the range (periodic with :p). */
struct fek_binspec {
	double lo, hi;
	long n;
	int periodic;
	int explicit;		/* lo:hi:n given */
};

/* One -b more into bs[*nb] (room for FEK_MAXDIM): 0, or a warning
 * "prog: -b: ..." and 1 (counted like fek_opt_*). */
int	fek_binspec_parse(const char *arg, struct fek_binspec *bs, int *nb);
/* Apply nb -b options (one per axis, or one bins for all) to the axes of
 * g and set its bins; -1 with fek_seterr(64) when they do not fit. */
int	fek_binspec_apply(const struct fek_binspec *bs, int nb,
	    struct fek_grid *g);

/* One line of a Grossfield metadata file, extended to D dimensions:
 *   path c1..cD k1..kD [correl_time [temperature]] */
struct fek_meta {
	char *path;
	struct fek_window win;
	double correl;		/* 0 when not given */
	double temp;		/* 0 when not given */
};

/* Read a metadata file for ndim dimensions.  Relative paths are taken
 * relative to the current directory, as Grossfield's wham does. */
int	fek_meta_load(const char *path, int ndim, struct fek_meta **out,
	    long *n);
void	fek_meta_free(struct fek_meta *m, long n);
/* Histogram a time-series file: columns time x1..xD [more...]; '#' and
 * '@' (xmgrace) lines and blank lines skipped.  With series, the points
 * also go to *series (n x ndim, realloc'd) and their count to *n.  The
 * file is read in large blocks and its numbers converted by fek_strtod.
 * Thread-safe (one h per thread): 0, or the exit code (65 bad line, 66
 * cannot open or read) with a one-line message naming the file and line
 * in err (errlen bytes); the library's error state is not touched. */
int	fek_timeseries_hist(const char *path, int ndim, struct fek_hist *h,
	    double **series, long *n, char *err, size_t errlen);

#endif
