/*
 * bias.c - log bias factors per window and dimension (see bias.h);
 * Potgieter 2014, Eq. 3.5 and Eq. 5.2, evaluated at bin centres.
 */
#include "bias.h"

long
fek_bias_rows(const struct fek_grid *g)
{
	long n = 0;
	int d;

	for (d = 0; d < g->ndim; d++)
		n += g->ax[d].nbins;
	return n;
}

void
fek_bias_log_factors(const struct fek_grid *g, const struct fek_window *w,
    double beta, double *out)
{
	long i, k = 0;
	int d;

	for (d = 0; d < g->ndim; d++)
		for (i = 0; i < g->ax[d].nbins; i++) {
			double dx = fek_axis_delta(&g->ax[d],
			    fek_grid_centre(g, d, i), w->centre[d]);

			out[k++] = -beta * 0.5 * w->spring[d] * dx * dx;
		}
}
