/*
 * binshape.h - WHAM's bias factors with the unbiased density's own shape
 * inside each bin (BIASEVAL spline; wham-gpu -S), solved self-consistently:
 * the shape comes from a cubic spline through the solution's ln p at the
 * bin centres, the factors from the shape, the solution from the factors,
 * until ln p settles.  With these factors p_b is the density at the bin
 * centre times the bin's volume, so coarse bins give the PMF at their
 * centres nearly as accurately as fine ones.  The derivation, and what it
 * neglects, heads wham/binshape.c.
 */
#ifndef FEK_BINSHAPE_H
#define FEK_BINSHAPE_H

#include "wham/wham.h"

struct fek_wham_spline_options {
	double tol;		/* stop when ln p moves less than this (kT)
				 * between two rounds, in every bin with a
				 * count of 1 or more (a shift of all bins
				 * alike aside) */
	long maxround;		/* re-solves at most; more is exit 1 */
	/* 1: after the first solve (the starting factors, which must be the
	 * centre values), keep it where the shape would move ln p by little
	 * against the data's own noise (fek_wham_solve_spline) */
	int keep_centre;
	/* called after each round: its number (1, 2, ...) and the change */
	void (*report)(long round, double change);
	/* with keep_centre, called once with the estimated change (RMS over
	 * the bins with counts, kT), the noise of one bin's ln p (their
	 * median, kT) and whether the centre solve was kept */
	void (*report_centre)(double change, double noise, int kept);
};

/* Solve p (its lnc rows holding the starting factors, e.g. the centre
 * values of wham/bias.h) to the self-consistent factors: each round solves
 * WHAM (fek_wham_solve, from the last round's ln f), fits the shape of ln p
 * and rebuilds every window's rows of p->lnc from it.  beta is 1/kT in
 * the energy unit of the springs.  With so->keep_centre the rounds are
 * skipped where the first solve's shape says they cannot matter: the
 * centre factors move a bin's ln p, to first order in the bin widths h_d,
 * by sum_d h_d^2 Q_d / 12 (Q_d the curvature term of ln p along d), whose
 * RMS over the bins with counts (bounded by the sum over axes of each
 * axis's RMS on 16 of its lines) is kept when at most 1/6 of the median
 * statistical error sqrt(g / B_b) of one bin's ln p: the estimate gave
 * 0.4 to 0.8 of the true centre error on noise-free histograms at bins of
 * 0.2 to 0.8 window widths (bench/RESULTS.md), so the centre error is
 * then below half the noise and adds at most about 12% to the PMF's
 * error.  On success res holds the last solve,
 * p->lnc the factors it used (a bootstrap then redraws with them),
 * *rounds the number of solves (1 where the centre solve was kept) and
 * *last_s the seconds of the last.  -1
 * with fek_seterr as fek_wham_solve, or exit code 1 when the rounds do not
 * settle within so->maxround. */
int	fek_wham_solve_spline(struct fek_wham_problem *p, double beta,
	    const struct fek_wham_options *o,
	    const struct fek_wham_spline_options *so,
	    struct fek_wham_result *res, long *rounds, double *last_s);

#endif
