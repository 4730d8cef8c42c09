/*
 * bias.h - the umbrella bias factors c_hb of Potgieter 2014, Eq. 3.5 and
 * footnote 2 (Eq. 5.2), kept per dimension and in log space:
 *   ln c_hb = sum_d ln c_hd(b_d),  ln c_hd(i) = -beta k_d/2 (x_i - c_d)^2
 * with x_i the bin centre and the minimum image on periodic axes.
 */
#ifndef FEK_BIAS_H
#define FEK_BIAS_H

#include "grid.h"

/* Rows of a logbias section: sum_d nbins_d values, axis after axis.
 * beta in 1/(energy unit of the springs). */
long	fek_bias_rows(const struct fek_grid *g);
void	fek_bias_log_factors(const struct fek_grid *g,
	    const struct fek_window *w, double beta, double *out);

#endif
