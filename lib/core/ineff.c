/*
 * ineff.c - statistical inefficiency of a time series, Chodera et al.
 * 2007 (J. Chem. Theory Comput. 3, 26), Eqs. 5-7, as pymbar 3's
 * timeseries.statisticalInefficiency computes it (direct sums, mintime 3):
 * tests/histogram.sh compares the two.  Several series of one process
 * (md-gpu's replicas of a window) pool their autocorrelation.
 */
#include <math.h>
#include <stdlib.h>

#include "core/fek.h"
#include "core/ineff.h"

#define MINTIME 3

double
fek_ineff_pooled(const double *x, long n, long nser, long stride)
{
	double mean = 0, var = 0, g = 1, c, N = (double)n * nser;
	long i, k, t;

	if (n < MINTIME + 1 || nser < 1)
		return 1;
	for (k = 0; k < nser; k++)
		for (i = 0; i < n; i++)
			mean += x[(k * n + i) * stride];
	mean /= N;
	for (k = 0; k < nser; k++)
		for (i = 0; i < n; i++) {
			double v = x[(k * n + i) * stride] - mean;

			var += v * v;
		}
	var /= N;
	if (!(var > 0))
		return 1;
	for (t = 1; t < n - 1; t++) {
		c = 0;
		for (k = 0; k < nser; k++) {
			const double *a = x + k * n * stride;

			for (i = 0; i < n - t; i++)
				c += (a[i * stride] - mean) *
				    (a[(i + t) * stride] - mean);
		}
		c /= (double)nser * (n - t) * var;
		if (c <= 0 && t > MINTIME)
			break;
		g += 2 * c * (1 - (double)t / n);
	}
	return g < 1 ? 1 : g;
}

double
fek_ineff_series(const double *x, long n, long stride)
{
	return fek_ineff_pooled(x, n, 1, stride);
}

double
fek_inefficiency(const double *x, long long n, long long nser, int stride,
    double c, double L)
{
	double *y, g;
	long long i;

	if (!(L > 0))
		return fek_ineff_pooled(x, (long)n, (long)nser, stride);
	/* angles: the minimum image about the window's centre c */
	y = fek_alloc((size_t)(n * nser > 0 ? n * nser : 1), sizeof(double));
	for (i = 0; i < n * nser; i++) {
		double v = x[i * stride] - c;

		y[i] = v - L * rint(v / L);
	}
	g = fek_ineff_pooled(y, (long)n, (long)nser, 1);
	free(y);
	return g;
}

double
fek_ineff_points(const double *x, long n, const struct fek_grid *g)
{
	double worst = 1, v, *cs;
	long i;
	int d, k;

	for (d = 0; d < g->ndim; d++) {
		if (!g->ax[d].periodic) {
			v = fek_ineff_series(x + d, n, g->ndim);
			if (v > worst)
				worst = v;
			continue;
		}
		cs = fek_alloc((size_t)(n ? n : 1), sizeof(double));
		for (k = 0; k < 2; k++) {
			double w = 2 * M_PI / (g->ax[d].hi - g->ax[d].lo);

			for (i = 0; i < n; i++)
				cs[i] = k ? sin(w * x[i * g->ndim + d]) :
				    cos(w * x[i * g->ndim + d]);
			v = fek_ineff_series(cs, n, 1);
			if (v > worst)
				worst = v;
		}
		free(cs);
	}
	return worst;
}
