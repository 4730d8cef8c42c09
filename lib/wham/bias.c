/*
 * bias.c - log bias factors per window and dimension (see wham/bias.h);
 * Potgieter 2014, Eq. 3.5 and Eq. 5.2, at bin centres, averaged over
 * each bin, or averaged with the weight of a PMF of the window's mean
 * slope (umbrella integration's mean force, Kastner & Thiel 2005).
 *
 * The average.  With s = sqrt(beta k / 2) and t = s u, u = x - c (the
 * minimum image on a periodic axis), the factor is exp(-t^2), and over a
 * bin of width w
 *   (1/w) int_bin exp(-t(x)^2) dx = I / (s w),  I = int exp(-t^2) dt
 * over the bin's t interval [a, b]: two intervals on a periodic axis when
 * the bin holds the jump of the minimum image, at u = +-period/2.  By
 * Abramowitz & Stegun 7.1.1-2, I = sqrt(pi)/2 (erf b - erf a), and ln I is
 * taken so that it stays finite far into the tails:
 *   a < 0 < b:   sqrt(pi)/2 (erf b + erf(-a)), two positive terms;
 *   0 <= a < b:  ln erfc a + ln(1 - erfc b / erfc a), the ratio from the
 *                difference of ln erfc (gsl_sf_log_erfc); b <= 0 mirrored.
 * On an interval so narrow that erfc a - erfc b would cancel ((b - a)(1 +
 * b) below 1/2) I is the 16-point Gauss-Legendre sum of GSL's precomputed
 * table, in log space shifted by a^2: the integrand there is exp(-a^2)
 * times exp(-(t - a)(t + a)), which varies by less than a factor e, and
 * the rule is exact to rounding.  Checked against 50-digit arithmetic:
 * ln c within 2e-15 where |ln c| < 1, within 2e-13 relative beyond, out to
 * ln c = -2.4e6.
 *
 * The weighted factor (wham/bias.h).  With g = 2 s^2 e, e = c - m (m the
 * window's mean, e the minimum image), and u = x - x_b measured from the
 * bin centre, completing the square gives
 *   -g u - s^2 v^2 = -s^2 (v + e)^2 + s^2 e (e + 2 D),
 * v = x - c (the minimum image) and D = v at the bin centre, so
 *   int_bin exp(-g u - s^2 v^2) dx = e^{s^2 e (e + 2 D)} / s
 *                                     int exp(-t^2) dt,  t = s (v + e),
 * the Gaussian moved to m, integrated as for the average (two pieces, each
 * with its own D, where the minimum image jumps).  The normaliser is
 * int_bin exp(-g u) du = w sinh(g w / 2) / (g w / 2); ln(sinh y / y) is
 * its series below |y| = 0.01 (to y^6: error below 1e-20) and
 * gsl_sf_lnsinh(y) - ln y above.  e = 0 gives the average exactly.
 */
#include <float.h>
#include <math.h>

#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_trig.h>

#include "wham/bias.h"

#define LN_SQRTPI_2	-0.12078223763524522234	/* ln(sqrt(pi)/2) */
#define GL_POINTS	16

long
fek_bias_rows(const struct fek_grid *g)
{
	long n = 0;
	int d;

	for (d = 0; d < g->ndim; d++)
		n += g->ax[d].nbins;
	return n;
}

/* ln(e^x + e^y) */
static double
log_add(double x, double y)
{
	double m = x > y ? x : y;

	if (m == -INFINITY)
		return m;
	return m + log1p(exp(-fabs(x - y)));
}

/* ln int_a^b exp(-t^2) dt for 0 <= a < b, (b - a)(1 + b) < 1/2:
 * Gauss-Legendre, shifted by exp(-a^2). */
static double
log_gauss_narrow(double a, double b)
{
	/* a precomputed table: no allocation, nothing to free */
	const gsl_integration_glfixed_table *tab =
	    gsl_integration_glfixed_table_alloc(GL_POINTS);
	double t, wt, sum = 0;
	size_t i;

	for (i = 0; i < GL_POINTS; i++) {
		gsl_integration_glfixed_point(a, b, i, &t, &wt, tab);
		sum += wt * exp(-(t - a) * (t + a));
	}
	return -a * a + log(sum);
}

/* ln int_a^b exp(-t^2) dt; -inf when a >= b. */
static double
log_gauss_int(double a, double b)
{
	double la, lb, t;

	if (!(a < b))
		return -INFINITY;
	if (a < 0 && b > 0)
		return LN_SQRTPI_2 + log(gsl_sf_erf(b) + gsl_sf_erf(-a));
	if (b <= 0) {
		t = a;
		a = -b;
		b = -t;
	}
	if ((b - a) * (1 + b) < 0.5)
		return log_gauss_narrow(a, b);
	la = gsl_sf_log_erfc(a);
	lb = gsl_sf_log_erfc(b);
	return LN_SQRTPI_2 + la + log(-expm1(lb - la));
}

/* ln c of the bin [x0, x0 + width) of axis ax for the window centre c,
 * averaged over the bin; s = sqrt(beta k / 2) > 0.  The mean divides by
 * the length of the t intervals as rounded, not by s width, so that the
 * rounding of the bin edges (relative 1e-16 of x, far more of a narrow
 * bin's width) moves the interval and not the mean. */
static double
log_mean(const struct fek_axis *ax, double x0, double width, double c,
    double s)
{
	double u0 = fek_axis_delta(ax, x0, c), u1 = u0 + width, h;
	double t0, t1, t2, t3, lnI, len;

	h = 0.5 * (ax->hi - ax->lo);
	t0 = s * u0;
	if (ax->periodic && u1 > h) {	/* the minimum image jumps to -h */
		t1 = s * h;
		t2 = -s * h;
		t3 = s * (u1 - 2 * h);
		lnI = log_add(log_gauss_int(t0, t1), log_gauss_int(t2, t3));
		len = (t1 - t0) + (t3 - t2);
	} else {
		t1 = s * u1;
		lnI = log_gauss_int(t0, t1);
		len = t1 - t0;
	}
	if (!(len >= DBL_MIN)) {
		/* a bin too narrow for its distance (or s) to resolve: the
		 * centre value, its limit */
		u0 = fek_axis_delta(ax, x0 + 0.5 * width, c);
		return -(s * u0) * (s * u0);
	}
	return lnI - log(len);
}

/* ln(sinh y / y) */
static double
log_sinhc(double y)
{
	double y2;

	y = fabs(y);
	if (y < 0.01) {
		y2 = y * y;
		return y2 * (1.0 / 6 + y2 * (-1.0 / 180 + y2 / 2835));
	}
	return gsl_sf_lnsinh(y) - log(y);
}

/* ln c of the bin [x0, x0 + width) of axis ax for the window centre c,
 * weighted by exp(-g u) inside the bin, g = 2 s^2 e, e = c - m (see the
 * top of this file); s > 0. */
static double
log_weighted(const struct fek_axis *ax, double x0, double width, double c,
    double s, double e)
{
	double u0 = fek_axis_delta(ax, x0, c), u1 = u0 + width, h;
	double D = u0 + 0.5 * width, s2e = s * s * e, lnI, len, t0, t1;

	h = 0.5 * (ax->hi - ax->lo);
	if (ax->periodic && u1 > h) {	/* the minimum image jumps to -h */
		double t2 = s * (-h + e), t3 = s * (u1 - 2 * h + e);

		t0 = s * (u0 + e);
		t1 = s * (h + e);
		lnI = log_add(s2e * (e + 2 * D) + log_gauss_int(t0, t1),
		    s2e * (e + 2 * (D - 2 * h)) + log_gauss_int(t2, t3));
		len = (t1 - t0) + (t3 - t2);
	} else {
		t0 = s * (u0 + e);
		t1 = s * (u1 + e);
		lnI = s2e * (e + 2 * D) + log_gauss_int(t0, t1);
		len = t1 - t0;
	}
	if (!(len >= DBL_MIN))	/* too narrow to resolve: the centre */
		return -(s * D) * (s * D);
	return lnI - log(len) - log_sinhc(s2e * width);
}

enum fek_bias_eval
fek_bias_eval_opt(int c)
{
	switch (c) {
	case 'a':
		return FEK_BIAS_AVERAGE;
	case 'w':
		return FEK_BIAS_WEIGHTED;
	case 'S':
		return FEK_BIAS_SPLINE;
	default:
		return FEK_BIAS_CENTRE;
	}
}

const char *
fek_bias_eval_name(enum fek_bias_eval how)
{
	switch (how) {
	case FEK_BIAS_AVERAGE:
		return "average";
	case FEK_BIAS_WEIGHTED:
		return "weighted";
	case FEK_BIAS_SPLINE:
		return "spline";
	default:
		return "centre";
	}
}

void
fek_bias_mean_end(const struct fek_grid *g, const struct fek_window *w,
    const double *acc, double n, double *mean, double *edge)
{
	int d, D = g->ndim;

	for (d = 0; d < D; d++) {
		const struct fek_axis *ax = &g->ax[d];

		mean[d] = w->centre[d] + acc[d] / n;
		edge[d] = 0;
		if (ax->periodic)
			mean[d] = fek_wrap(mean[d], ax->lo, ax->hi);
		else
			edge[d] = (acc[D + d] - acc[2 * D + d]) / (n *
			    fek_grid_width(g, d));
	}
}

void
fek_bias_log_factors(const struct fek_grid *g, const struct fek_window *w,
    double beta, enum fek_bias_eval how, const double *mean,
    const double *edge, double *out)
{
	long i, k = 0;
	int d;

	for (d = 0; d < g->ndim; d++) {
		const struct fek_axis *ax = &g->ax[d];
		double width = fek_grid_width(g, d);
		double s = sqrt(beta * 0.5 * w->spring[d]), e = 0;

		/* e = g / (2 s^2): c - m, plus the boundary term */
		if (how == FEK_BIAS_WEIGHTED && s > 0)
			e = -fek_axis_delta(ax, mean[d], w->centre[d]) +
			    (edge ? edge[d] / (2 * s * s) : 0);
		for (i = 0; i < ax->nbins; i++) {
			double dx;

			if (how == FEK_BIAS_CENTRE || how == FEK_BIAS_SPLINE) {
				dx = fek_axis_delta(ax,
				    fek_grid_centre(g, d, i), w->centre[d]);
				out[k++] = -beta * 0.5 * w->spring[d] * dx * dx;
			} else if (s == 0)
				out[k++] = 0;
			else if (how == FEK_BIAS_WEIGHTED)
				out[k++] = log_weighted(ax, ax->lo + i * width,
				    width, w->centre[d], s, e);
			else
				out[k++] = log_mean(ax, ax->lo + i * width,
				    width, w->centre[d], s);
		}
	}
}
