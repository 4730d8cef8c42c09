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
 * the minimum image on periodic axes.  See bias.c for the evaluation.
 * The average is exact for WHAM when the PMF is flat within each bin; where
 * it slopes, the factor WHAM needs is the average weighted by the unknown
 * p(x) in the bin, and the plain average can be further from it than the
 * centre value (bias-build(1), CAVEATS).
 */
#ifndef FEK_BIAS_H
#define FEK_BIAS_H

#include "grid.h"

enum fek_bias_eval {
	FEK_BIAS_AVERAGE,	/* averaged over the bin */
	FEK_BIAS_CENTRE		/* at the bin centre, Potgieter 2014 */
};

/* Rows of a logbias section: sum_d nbins_d values, axis after axis.
 * beta in 1/(energy unit of the springs). */
long	fek_bias_rows(const struct fek_grid *g);
void	fek_bias_log_factors(const struct fek_grid *g,
	    const struct fek_window *w, double beta, enum fek_bias_eval how,
	    double *out);

#endif
