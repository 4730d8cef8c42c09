/*
 * pmf.c - PMF from probabilities and marginals (Potgieter 2014, Eq. 2.4,
 * section 5.2.5), and its bootstrap standard deviation.
 */
#include <math.h>
#include <stdlib.h>

#include "wham/pmf.h"

void
fek_lnp_marginal(const struct fek_grid *g, const double *lnp, int nkeep,
    const int *keep, double *out)
{
	long long b, m, nout = 1;
	long idx[FEK_MAXDIM];
	double *top;
	int k;

	for (k = 0; k < nkeep; k++)
		nout *= g->ax[keep[k]].nbins;
	top = fek_alloc((size_t)nout, sizeof(double));
	for (m = 0; m < nout; m++) {
		top[m] = -HUGE_VAL;
		out[m] = 0;
	}
	/* two passes: the maximum, then the shifted sum (log-sum-exp) */
	for (int pass = 0; pass < 2; pass++)
		for (b = 0; b < g->nbins; b++) {
			fek_grid_unflatten(g, b, idx);
			m = 0;
			for (k = 0; k < nkeep; k++)
				m = m * g->ax[keep[k]].nbins + idx[keep[k]];
			if (lnp[b] == -HUGE_VAL)
				continue;
			if (pass == 0) {
				if (lnp[b] > top[m])
					top[m] = lnp[b];
			} else
				out[m] += exp(lnp[b] - top[m]);
		}
	for (m = 0; m < nout; m++)
		out[m] = top[m] == -HUGE_VAL ? -HUGE_VAL : top[m] + log(out[m]);
	free(top);
}

int
fek_pmf_from_lnp(long long nbins, const double *lnp, double kT,
    long long zero_bin, double *F)
{
	long long b;
	double ref;

	if (zero_bin >= 0) {
		if (lnp[zero_bin] == -HUGE_VAL)
			return fek_seterr(FEK_EX_NUMERIC, "-z: the chosen bin "
			    "has no data");
		ref = lnp[zero_bin];
	} else {
		ref = -HUGE_VAL;
		for (b = 0; b < nbins; b++)
			if (lnp[b] > ref)
				ref = lnp[b];
		if (ref == -HUGE_VAL)
			return fek_seterr(FEK_EX_NUMERIC, "every bin is empty");
	}
	for (b = 0; b < nbins; b++)
		F[b] = lnp[b] == -HUGE_VAL ? HUGE_VAL : kT * (ref - lnp[b]);
	return 0;
}

void
fek_pmf_sd_from_sdlnp(long long nbins, const double *lnp, const double *sd_lnp,
    double kT, double *sd_F)
{
	long long b;

	for (b = 0; b < nbins; b++)
		sd_F[b] = lnp[b] == -HUGE_VAL ? HUGE_VAL : kT * sd_lnp[b];
}
