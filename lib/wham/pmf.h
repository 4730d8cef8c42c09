/*
 * pmf.h - potentials of mean force from WHAM probabilities (Potgieter 2014,
 * Eq. 2.4: W = -kT ln p), their bootstrap standard deviations, marginal
 * projections, and their comparison with an analytic reference (section
 * 5.1.2, made precise: RMSD after the optimal constant shift).
 */
#ifndef FEK_PMF_H
#define FEK_PMF_H

#include "stream/grid.h"

/* Marginal ln p over the axes keep[0..nkeep-1] (ascending) of grid g:
 * ln sum over the other axes.  out has the product of the kept bins. */
void	fek_lnp_marginal(const struct fek_grid *g, const double *lnp,
	    int nkeep, const int *keep, double *out);
/* F_b = -kT ln p_b in units of kT_unit (kT expressed in the output unit),
 * shifted so that F is zero at bin zero_bin, or at its minimum when
 * zero_bin < 0.  Empty bins (ln p = -inf) give +inf.  -1 (exit 1) when
 * every bin is empty or the chosen bin is. */
int	fek_pmf_from_lnp(long long nbins, const double *lnp, double kT,
	    long long zero_bin, double *F);
/* The standard deviation of F_b = -kT ln p_b from that of ln p_b (the
 * sd_lnp column of wham-gpu -B): sd_F_b = kT sd_lnp_b, with kT in the
 * output unit as for fek_pmf_from_lnp; +inf where ln p_b = -inf (no data)
 * or sd_lnp_b = +inf.  sd_lnp_b must be >= 0.  The spread of the constant
 * that puts the zero of F is not included: sd_F is that of -kT ln p_b with
 * p normalised. */
void	fek_pmf_sd_from_sdlnp(long long nbins, const double *lnp,
	    const double *sd_lnp, double kT, double *sd_F);

struct fek_rmsd {
	long n;			/* bins compared */
	double shift;		/* mean of F - ref over them */
	double rmsd;
	double maxdev;		/* largest |F - shift - ref| */
	long at;		/* its row */
};

/* Compare F with ref over rows where F is finite and ref - min(ref) <=
 * cutoff (all rows when cutoff is +inf).  -1 (exit 1) when no row is
 * left. */
int	fek_rmsd(long n, const double *F, const double *ref, double cutoff,
	    struct fek_rmsd *out);

#endif
