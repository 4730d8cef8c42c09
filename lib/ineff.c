/*
 * ineff.c - the statistical inefficiency of correlated time series
 * (Chodera, Swope, Pitera, Seok and Dill 2007, Eqs. 2-4; the estimator of
 * pymbar's timeseries.statisticalInefficiency): g = 1 + 2 sum_t (1 - t/N)
 * C(t), with C the normalised autocorrelation function, summed until it
 * first drops to zero or below.  md-gpu writes it as the INEFFICIENCY key
 * of a window's samples, so wham-gpu -B redraws N/g samples.
 */
#include <math.h>
#include <stdlib.h>

#include "md.h"

double
fek_inefficiency(const double *x, long long n, long long nser, int stride,
    double c, double L)
{
	double *y, mu = 0, var = 0, g = 1;
	long long k, i, t, N = n * nser;

	if (n < 2 || nser < 1)
		return 1;
	y = fek_alloc(N, sizeof(double));
	for (k = 0; k < nser; k++)
		for (i = 0; i < n; i++) {
			double v = x[(k * n + i) * stride];

			if (L > 0) {
				v -= c;
				v -= L * rint(v / L);
			}
			y[k * n + i] = v;
			mu += v;
		}
	mu /= N;
	for (i = 0; i < N; i++) {
		y[i] -= mu;
		var += y[i] * y[i];
	}
	var /= N;
	if (!(var > 0)) {
		free(y);
		return 1;
	}
	for (t = 1; t < n; t++) {
		double s = 0, C;

		for (k = 0; k < nser; k++) {
			const double *a = y + k * n;

			for (i = 0; i + t < n; i++)
				s += a[i] * a[i + t];
		}
		C = s / ((double)nser * (n - t)) / var;
		if (!(C > 0))
			break;
		g += 2 * C * (1 - (double)t / n);
	}
	free(y);
	return g < 1 ? 1 : g;
}
