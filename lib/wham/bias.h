/*
 * bias.h - the umbrella bias factors c_hb of Potgieter 2014, Eq. 3.5 and
 * footnote 2 (Eq. 5.2), kept per dimension and in log space.  The harmonic
 * bias is a sum over axes, so c_hb = prod_d c_hd(b_d) and
 *   ln c_hb = sum_d ln c_hd(b_d).
 * Two ways to evaluate c_hd(i) on bin i of axis d, of width w:
 *   centre (the thesis):  ln c_hd(i) = -beta k_d/2 (x_i - c_d)^2,
 *     x_i the bin centre;
 *   average:  ln c_hd(i) = ln (1/w) int_bin exp(-beta k_d/2 (x - c_d)^2) dx,
 *     the bias factor averaged over the bin.
 * The average of the product over a box bin is the product of the
 * per-axis averages, so the averaged factors stay separable.  x - c_d is
 * the minimum image on periodic axes.  See wham/bias.c for the evaluation.
 * The average is exact for WHAM when the PMF is flat within each bin; where
 * it slopes, the factor WHAM needs is the average weighted by the unknown
 * p(x) in the bin, and the plain average can be further from it than the
 * centre value (bias-build(1), CAVEATS).
 *
 * Weighted: that p-weighted average, c_hb = int_b p e^{-beta V_h} /
 * int_b p, with p modelled inside each bin as exp(-g_hd u_d), u = x - x_b,
 * and g_hd the window's mean slope of beta F along axis d.  Umbrella
 * integration's mean force gives it without solving WHAM: in window h's
 * biased ensemble <d(beta F + beta V_h)/dx_d> = 0, so
 *   g_hd = beta k_hd (c_hd - <x_d>_h),
 * with <x_d>_h the window's mean (from its histogram, fek_bias_mean_*).
 * On an open axis the identity has a boundary term, the window's biased
 * density at the ends: <d beta F/dx_d> = beta k_hd (c_hd - <x_d>_h) +
 * rho_h(lo) - rho_h(hi), rho from the counts of the first and last bins
 * (fek_bias_mean_end's edge); without it a window cut off by the end of
 * its axis would see a slope where the PMF has none.
 * The model is a product over axes, so c_hb stays one factor per axis:
 *   ln c_hd(i) = ln int_bin exp(-g u - beta k/2 (x - c)^2) dx
 *              - ln int_bin exp(-g u) dx,
 * a Gaussian centred on <x_d>_h averaged over the bin (completing the
 * square), in closed form (wham/bias.c).  Because g_hd is the same in all of a
 * window's bins, the estimate of p this gives is, to O(h^2) in the change
 * of slope across a window, the density at the bin centres times the bin
 * width (not the bin's probability): pmf(1)'s -kT ln p_b is the PMF at
 * the centres without a further correction (bias-build(1)).
 */
#ifndef FEK_BIAS_H
#define FEK_BIAS_H

#include "stream/grid.h"

enum fek_bias_eval {
	FEK_BIAS_AVERAGE,	/* averaged over the bin */
	FEK_BIAS_CENTRE,	/* at the bin centre, Potgieter 2014 */
	FEK_BIAS_WEIGHTED,	/* weighted by p, its slope the window mean's */
	FEK_BIAS_SPLINE		/* weighted by p's own shape in the bin,
				 * self-consistently (wham/binshape.h); here,
				 * its start: the centre values */
};

/* The option letter that asks for how (bias-build and wham-gpu): -a
 * average, -c centre, -w weighted, -S spline; FEK_BIAS_CENTRE for any
 * other. */
enum fek_bias_eval fek_bias_eval_opt(int c);
/* The BIASEVAL key's value: centre, average, weighted or spline. */
const char *fek_bias_eval_name(enum fek_bias_eval how);

/* Rows of a logbias section: sum_d nbins_d values, axis after axis.
 * beta in 1/(energy unit of the springs).  mean: the window's mean
 * position, D values (fek_bias_mean_end), for FEK_BIAS_WEIGHTED; unused
 * (may be NULL) otherwise.  edge: D values rho(lo) - rho(hi) in 1/(axis
 * unit), or NULL for none. */
long	fek_bias_rows(const struct fek_grid *g);
void	fek_bias_log_factors(const struct fek_grid *g,
	    const struct fek_window *w, double beta, enum fek_bias_eval how,
	    const double *mean, const double *edge, double *out);

/* A window's mean position from its histogram: acc (FEK_BIAS_ACC(D)
 * values, zeroed by the caller) sums count (x_b,d - c_d) over the rows,
 * x_b,d the bin centre and x - c the minimum image on periodic axes, and
 * the counts in the first and last bins of each axis; fek_bias_mean_end
 * turns them and the total count n > 0 into mean_d = c_d + acc_d / n,
 * wrapped into [lo, hi) on periodic axes, and edge_d = (count in the first
 * bins - count in the last) / (n w_d) on open axes, 0 on periodic ones.
 * The bin centres give the mean to O(h^2) whatever the bin width h: the
 * bins' offsets from their centres average out over a window's biased
 * distribution, by the same mean-force identity. */
#define FEK_BIAS_ACC(D)	(3 * (D))
static inline void
fek_bias_mean_add(const struct fek_grid *g, const struct fek_window *w,
    long long bin, double count, double *acc)
{
	int d;

	for (d = g->ndim - 1; d >= 0; d--) {
		long n = g->ax[d].nbins, i = (long)(bin % n);

		acc[d] += count * fek_axis_delta(&g->ax[d],
		    fek_grid_centre(g, d, i), w->centre[d]);
		if (i == 0)
			acc[g->ndim + d] += count;
		if (i == n - 1)
			acc[2 * g->ndim + d] += count;
		bin /= n;
	}
}
void	fek_bias_mean_end(const struct fek_grid *g, const struct fek_window *w,
	    const double *acc, double n, double *mean, double *edge);

#endif
