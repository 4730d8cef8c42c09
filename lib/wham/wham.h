/*
 * wham.h - the weighted histogram analysis method (Kumar et al. 1992;
 * Roux 1995; Potgieter 2014, Eqs. 3.1-3.5) in log space, with the harmonic
 * bias kept as one factor per dimension so that c_hb is never stored.
 *
 * Three solvers reach the same fixed point:
 *   iterate  the self-consistent equations, Algorithm 1 of the thesis;
 *   newton   Newton's method on the likelihood of Zhu & Hummer 2012
 *            (J. Comput. Chem. 33, 453), dense Hessian, small problems;
 *   lbfgs    limited-memory BFGS on the same likelihood, any size.
 */
#ifndef FEK_WHAM_H
#define FEK_WHAM_H

#include "stream/grid.h"

struct fek_wham_problem {
	struct fek_grid grid;
	double temp;		/* K */
	long nwin;
	struct fek_window *win;	/* nwin, for the output only */
	double *n;		/* nwin: samples in range, H_h (Eq. 3.4) */
	double *counts;		/* nbins: B_b = sum_h n_hb (Eq. 3.3) */
	double *mean;		/* nwin * D, or NULL: each window's mean
				 * position (wham/bias.h, FEK_BIAS_WEIGHTED; the
				 * windows table of pooled input) */
	double *edge;		/* nwin * D, or NULL: its biased density at
				 * the first minus the last bin of each
				 * open axis (fek_bias_mean_end) */
	double *ineff;		/* nwin: statistical inefficiency g_h >= 1,
				 * for the bootstrap; NULL means 1 */
	/* Sparse histograms, CSR by window: the bootstrap (and
	 * fek_wham_check_overlap); NULL when the reader did not keep them. */
	long long *hist_start;	/* nwin + 1 */
	long long *hist_bin;
	double *hist_count;
	/* ln c_hb = sum_d lnc[h * lnc_stride + lnc_off[d] + b_d]: the bias
	 * factors of Eq. 3.5 / 5.2 per window and dimension. */
	double *lnc;
	long lnc_stride;
	long lnc_off[FEK_MAXDIM];
};

/* -d auto takes the GPU where the CPU solve would take longer than this,
 * about what a CUDA context costs: 0.2 s to create (0.3 s beside another
 * process creating one) and 0.1 s to tear down (bench/RESULTS.md). */
#define FEK_WHAM_AUTO_GPU_ABOVE_S 0.3

enum fek_wham_solver { FEK_WHAM_AUTO, FEK_WHAM_ITERATE, FEK_WHAM_NEWTON,
    FEK_WHAM_LBFGS };

struct fek_wham_options {
	double tol;		/* on the largest residual |r_h|, in kT */
	long maxiter;
	enum fek_wham_solver solver;
	int gpu;		/* evaluate the sweeps on the GPU (1), the
				 * CPU (0), or (-1) the GPU only where the
				 * CPU would take longer than a CUDA context
				 * costs (fek_wham_solve decides) */
	long progress_every;	/* call progress every this many iterations */
	void (*progress)(long iteration, double maxdelta);
	const double *lnf0;	/* nwin: ln f_h to start from (an earlier
				 * solution of a nearby problem), or NULL
				 * for f_h = 1 */
	void (*trial_done)(long done, long ntrial);	/* called by
				 * fek_wham_bootstrap after each trial, or
				 * NULL */
};

struct fek_wham_result {
	double *lnp;		/* nbins: ln of the normalised p_b; -inf empty */
	double *lnf;		/* nwin: ln f_h = F_h/kT, F_1 = 0 */
	long iterations;	/* outer iterations of the solver */
	long sweeps;		/* evaluations of Eqs. 3.1-3.2 */
	double maxdelta;	/* the largest residual at the end, kT */
	int converged;
	int logspace_bins;	/* bins/windows that needed the log path */
	enum fek_wham_solver solver;	/* the one used (auto resolved) */
	int handover;		/* newton: went on with L-BFGS when its
				 * line search found no lower A */
	int tensor;		/* windows on a grid: per-axis products */
	int gpu;		/* the sweeps ran on the GPU */
	double cpu_est_s;	/* the CPU time -1 (auto) expected */
	double setup_s;		/* seconds to build the factors and the
				 * backend (the device's buffers), before
				 * the first sweep */
	/* Bootstrap (fek_wham_bootstrap): standard deviations, NULL before. */
	double *sd_lnp;		/* nbins: of ln p_b */
	double *sd_lnf;		/* nwin: of F_h/kT */
	long trials;
};

/* Windows must share sampled bins, directly or through others, or their
 * relative free energies are undefined: -1 (exit 1) naming two windows of
 * different components.  Needs the sparse histograms. */
int	fek_wham_check_overlap(const struct fek_wham_problem *p);
/* The same check fed a sampled bin at a time, for readers that do not
 * keep the histograms: init, add (h, b) for every count > 0, then check
 * (which frees the tracker). */
struct fek_wham_overlap {
	long *parent;		/* union-find over windows */
	long nwin, cap;
	long *joined;		/* per owner window: the last h joined to it */
	long *owner;		/* nbins: first window seen in the bin */
};
void	fek_wham_overlap_init(struct fek_wham_overlap *ov, long long nbins);
void	fek_wham_overlap_add(struct fek_wham_overlap *ov, long h,
	    long long bin);
/* Windows h and o share a sampled bin (for readers that find the pairs
 * themselves; the owner array is theirs to fill then). */
void	fek_wham_overlap_join(struct fek_wham_overlap *ov, long h, long o);
int	fek_wham_overlap_check(struct fek_wham_overlap *ov,
	    const struct fek_wham_problem *p);
/* Instead of the check: per window the first (lowest) window of its
 * overlap group, and the number of groups; frees the tracker. */
long	fek_wham_overlap_groups(struct fek_wham_overlap *ov, long nwin,
	    long *group);
/* The tracker's memory, unchecked. */
void	fek_wham_overlap_free(struct fek_wham_overlap *ov);
/* Solve Eqs. 3.1-3.2 to the fixed point: the largest residual
 * r_h = ln f_h(new) - ln f_h, the change one self-consistent sweep would
 * make (for iterate, the change it did make), below o->tol.  -1 with exit
 * code 1 when o->maxiter is reached, 69 when the GPU is unusable. */
int	fek_wham_solve(const struct fek_wham_problem *p,
	    const struct fek_wham_options *o, struct fek_wham_result *res);
/* Bootstrap errors of a solved problem: ntrial resampled data sets (each
 * window's histogram redrawn, multinomially, with n_h/g_h samples), each
 * solved from res's solution; fills res->sd_lnp and res->sd_lnf. */
int	fek_wham_bootstrap(const struct fek_wham_problem *p,
	    const struct fek_wham_options *o, long ntrial, unsigned long seed,
	    struct fek_wham_result *res);
const char *fek_wham_solver_name(enum fek_wham_solver s);
int	fek_wham_solver_parse(const char *s, enum fek_wham_solver *out);
void	fek_wham_result_free(struct fek_wham_result *res);
void	fek_wham_problem_free(struct fek_wham_problem *p);

#endif
