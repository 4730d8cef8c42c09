/*
 * rate.c - the association rate of the NAM method (Northrup, Allison and
 * McCammon, J. Chem. Phys. 80, 1517 (1984), Eqs. 5-7; Sakalli (2008)
 * Eq. 2.11): of trajectories started on the b-sphere, the fraction beta
 * that react before reaching the q-sphere gives the probability of
 * reacting before escaping to infinity,
 *   beta_inf = beta / (1 - (1 - beta) Omega),  Omega = k_D(b) / k_D(q),
 * and k = k_D(b) beta_inf.  beta's 95 % interval is Clopper and
 * Pearson's (exact binomial, from GSL's beta quantiles); k is increasing
 * in beta, so its interval is the image of beta's.
 */
#include <gsl/gsl_cdf.h>

#include "bd/bd.h"

static double
nam_k(double beta, double kdb, double kdq)
{
	double omega = kdb / kdq, den = 1.0 - (1.0 - beta) * omega;

	return den > 0.0 ? kdb * beta / den : 0.0;
}

void
fek_bd_rate_compute(struct fek_bd_rate *r, double kdb, double kdq)
{
	long long n = r->reacted + r->escaped, x = r->reacted;
	const double alpha = 0.05;

	if (n == 0) {
		r->beta = r->beta_lo = r->beta_hi = r->beta_inf = 0.0;
		r->k = r->k_lo = r->k_hi = 0.0;
		return;
	}
	r->beta = (double)x / n;
	r->beta_lo = x == 0 ? 0.0 : gsl_cdf_beta_Pinv(alpha / 2, (double)x,
	    (double)(n - x + 1));
	r->beta_hi = x == n ? 1.0 : gsl_cdf_beta_Pinv(1 - alpha / 2,
	    (double)(x + 1), (double)(n - x));
	r->beta_inf = nam_k(r->beta, kdb, kdq) / kdb;
	r->k = nam_k(r->beta, kdb, kdq) * FEK_BD_A3PS_TO_MS;
	r->k_lo = nam_k(r->beta_lo, kdb, kdq) * FEK_BD_A3PS_TO_MS;
	r->k_hi = nam_k(r->beta_hi, kdb, kdq) * FEK_BD_A3PS_TO_MS;
}
