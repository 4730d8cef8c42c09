/*
 * wham.h - the weighted histogram analysis method (Kumar et al. 1992;
 * Roux 1995; Potgieter 2014, Eqs. 3.1-3.5) in log space, with the harmonic
 * bias kept as one factor per dimension so that c_hb is never stored.
 */
#ifndef FEK_WHAM_H
#define FEK_WHAM_H

#include "grid.h"

struct wham_problem {
	struct fek_grid grid;
	double temp;		/* K */
	long nwin;
	struct fek_window *win;	/* nwin, for the output only */
	double *n;		/* nwin: samples in range, H_h (Eq. 3.4) */
	double *counts;		/* nbins: B_b = sum_h n_hb (Eq. 3.3) */
	/* Sparse histograms, CSR by window, for the overlap check. */
	long long *hist_start;	/* nwin + 1 */
	long long *hist_bin;
	double *hist_count;
	/* ln c_hb = sum_d lnc[h * lnc_stride + lnc_off[d] + b_d]: the bias
	 * factors of Eq. 3.5 / 5.2 per window and dimension. */
	double *lnc;
	long lnc_stride;
	long lnc_off[FEK_MAXDIM];
};

enum wham_solver { WHAM_ITERATE };

struct wham_options {
	double tol;		/* on max |delta ln f_h|, in kT */
	long maxiter;
	enum wham_solver solver;
	long progress_every;	/* call progress every this many sweeps */
	void (*progress)(long iteration, double maxdelta);
};

struct wham_result {
	double *lnp;		/* nbins: ln of the normalised p_b; -inf empty */
	double *lnf;		/* nwin: ln f_h = F_h/kT, F_1 = 0 */
	long iterations;
	double maxdelta;	/* last max |delta ln f_h| */
	int converged;
	int logspace_bins;	/* bins/windows that needed the log path */
};

/* Windows must share sampled bins, directly or through others, or their
 * relative free energies are undefined: -1 (exit 1) naming two windows of
 * different components. */
int	wham_check_overlap(const struct wham_problem *p);
/* Solve Eqs. 3.1-3.2 to the fixed point.  -1 with exit code 1 when the
 * iteration cap is reached. */
int	wham_solve(const struct wham_problem *p, const struct wham_options *o,
	    struct wham_result *res);
void	wham_result_free(struct wham_result *res);
void	wham_problem_free(struct wham_problem *p);

#endif
