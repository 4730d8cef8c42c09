/*
 * rate.c - the association rate of the NAM method (Northrup, Allison and
 * McCammon, J. Chem. Phys. 80, 1517 (1984), Eqs. 5-7; Sakalli (2008)
 * Eq. 2.11): of trajectories started on the b-sphere, the fraction beta
 * that react before reaching the q-sphere gives the probability of
 * reacting before escaping to infinity,
 *   beta_inf = beta / (1 - (1 - beta) Omega),  Omega = k_D(b) / k_D(q),
 * and k = k_D(b) beta_inf.  beta's 95 % interval is Clopper and
 * Pearson's (exact binomial: quantiles of beta distributions, found by
 * Brent's method on GSL's distribution function); k is increasing in
 * beta, so its interval is the image of beta's.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "bd/bd.h"

struct bq {
	double P, a, b;
};

static double
bq_f(double x, void *vp)
{
	const struct bq *q = vp;

	return gsl_cdf_beta_P(x, q->a, q->b) - q->P;
}

/* The P quantile of Beta(a, b) by Brent's method on its distribution
 * function (GSL's gsl_cdf_beta_Pinv fails to converge for a + b of
 * about 10^5, the trajectory counts of real runs). */
static double
beta_quantile(double P, double a, double b)
{
	struct bq q = { P, a, b };
	gsl_function f = { bq_f, &q };
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	double lo = 0.0, hi = 1.0, x = a / (a + b);

	if (s == NULL || gsl_root_fsolver_set(s, &f, lo, hi) != 0) {
		x = NAN;
		goto out;
	}
	for (int it = 0; it < 200; it++) {
		if (gsl_root_fsolver_iterate(s) != 0) {
			x = NAN;
			break;
		}
		x = gsl_root_fsolver_root(s);
		lo = gsl_root_fsolver_x_lower(s);
		hi = gsl_root_fsolver_x_upper(s);
		if (gsl_root_test_interval(lo, hi, 1e-15, 1e-12) == GSL_SUCCESS)
			break;
	}
out:
	gsl_set_error_handler(old);
	if (s)
		gsl_root_fsolver_free(s);
	return x;
}

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
	r->beta_lo = x == 0 ? 0.0 : beta_quantile(alpha / 2, (double)x,
	    (double)(n - x + 1));
	r->beta_hi = x == n ? 1.0 : beta_quantile(1 - alpha / 2,
	    (double)(x + 1), (double)(n - x));
	r->beta_inf = nam_k(r->beta, kdb, kdq) / kdb;
	r->k = nam_k(r->beta, kdb, kdq) * FEK_BD_A3PS_TO_MS;
	r->k_lo = nam_k(r->beta_lo, kdb, kdq) * FEK_BD_A3PS_TO_MS;
	r->k_hi = nam_k(r->beta_hi, kdb, kdq) * FEK_BD_A3PS_TO_MS;
}
