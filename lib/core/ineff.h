/*
 * ineff.h - the statistical inefficiency g of a correlated time series
 * (Chodera, Swope, Pitera, Seok & Dill, J. Chem. Theory Comput. 3, 26
 * (2007), Eqs. 5-7; the method of pymbar's timeseries.statisticalInefficiency):
 *
 *   g = 1 + 2 sum_{t=1}^{N-1} (1 - t/N) C_t,
 *
 * C_t the normalised autocorrelation at lag t, summed until the first
 * C_t <= 0 after lag 3.  N correlated samples are worth N/g independent
 * ones; wham-gpu -B redraws N/g samples per window.
 */
#ifndef FEK_INEFF_H
#define FEK_INEFF_H

#include "stream/grid.h"

/* g >= 1 of the n values x[0], x[stride], ...; 1 for a constant series
 * or fewer than 4 values. */
double	fek_ineff_series(const double *x, long n, long stride);
/* The same for nser series of n values each (series k at x[k n stride +
 * i stride]) of one process, from their pooled autocorrelation about the
 * pooled mean. */
double	fek_ineff_pooled(const double *x, long n, long nser, long stride);
/* md-gpu's windows: nser replicas' series as fek_ineff_pooled; with
 * L > 0 the values are angles of period L, taken as the minimum image
 * about the window's centre c. */
double	fek_inefficiency(const double *x, long long n, long long nser,
	    int stride, double c, double L);
/* The largest g over the axes of n points (n x ndim, row-major) on grid
 * g's axes; a periodic axis counts as the two series cos and sin of its
 * angle, so a wrap at the period is no jump. */
double	fek_ineff_points(const double *x, long n, const struct fek_grid *g);

#endif
