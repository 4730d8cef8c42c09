/*
 * ineff.c - statistical inefficiency of a time series, Chodera et al.
 * 2007 (J. Chem. Theory Comput. 3, 26), Eqs. 5-7, as pymbar 3's
 * timeseries.statisticalInefficiency computes it (direct sums, mintime 3):
 * tests/histogram.sh compares the two.
 */
#include <math.h>
#include <stdlib.h>

#include "fek.h"
#include "ineff.h"

#define MINTIME 3

double
fek_ineff_series(const double *x, long n, long stride)
{
	double mean = 0, var = 0, g = 1, c;
	long i, t;

	if (n < MINTIME + 1)
		return 1;
	for (i = 0; i < n; i++)
		mean += x[i * stride];
	mean /= n;
	for (i = 0; i < n; i++)
		var += (x[i * stride] - mean) * (x[i * stride] - mean);
	var /= n;
	if (!(var > 0))
		return 1;
	for (t = 1; t < n - 1; t++) {
		c = 0;
		for (i = 0; i < n - t; i++)
			c += (x[i * stride] - mean) * (x[(i + t) * stride] -
			    mean);
		c /= (double)(n - t) * var;
		if (c <= 0 && t > MINTIME)
			break;
		g += 2 * c * (1 - (double)t / n);
	}
	return g < 1 ? 1 : g;
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
