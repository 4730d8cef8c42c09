/*
 * backend.h - one evaluation of the WHAM equations (Potgieter 2014,
 * Eqs. 3.1-3.2), the work every solver repeats, on the CPU or the GPU.
 *
 * Given u_h = ln f_h, an evaluation returns
 *   ln p_b  = ln B_b - ln sum_h H_h f_h c_hb - ln Z     (Eq. 3.1, normalised)
 *   lnfn_h  = -ln sum_b c_hb p_b                        (Eq. 3.2)
 *   ln Z    the normalisation of Eq. 3.1's p, and S = sum_b B_b ln p_b,
 * from which the Zhu-Hummer likelihood and its gradient follow (wham/wham.c).
 *
 * The bias factorises over dimensions, c_hb = prod_d c_hd(b_d) (Eq. 5.2).
 * When the windows form a grid (every window's centre and spring on axis d
 * drawn from one list, and every combination present once: the thesis's
 * cases), c_hb = prod_d G_d[j_d(h), b_d] and both sums are D products of a
 * tensor with one small per-axis matrix (a "mode product"): for 91^2
 * windows and 180^2 bins that is 9 Mflop a sweep instead of H x B = 268 M
 * terms.  Other window sets split the first axis from the rest (two
 * products of H x n_1 and H x B/n_1 matrices).  Every factor is scaled by
 * its row's maximum, and the sums are done in log space (exactly) where
 * the scaled ones could lose terms.
 */
#ifndef FEK_WHAM_BACKEND_H
#define FEK_WHAM_BACKEND_H

#include "wham/wham.h"

/* e^-600 is far from underflow (e^-708) */
#define FEK_WHAM_RANGE_LIMIT 600.0
#define FEK_WHAM_TINY 1e-290

struct fek_wham_factors {
	int D;
	long H;
	long long B;
	long nb[FEK_MAXDIM];	/* bins per axis */
	int tensor;
	/* tensor: windows per axis, window h at flat index perm[h] of the
	 * (nw_1, ..., nw_D) grid, G_d = exp(lnc_d - row max), nw_d x nb_d at
	 * G + goff[d] */
	long nw[FEK_MAXDIM];
	long goff[FEK_MAXDIM];
	long *perm;
	double *G;
	double *lg;		/* ln c_d, the same layout as G (exact sums) */
	long long tmax;		/* largest intermediate tensor */
	/* general: C1 (H x n1), K (H x R), R = B / n1 */
	long n1, R;
	double *C1, *K;
	double *M;		/* H: sum_d row max of ln c_hd */
	double *lnN;		/* H: ln H_h */
	double *lnB;		/* B: ln B_b, -inf where empty */
	double ntot;		/* sum_b B_b */
};

/* Build the factors of p (counts may change later: fek_wham_factors_counts). */
void	fek_wham_factors_init(const struct fek_wham_problem *p,
	    struct fek_wham_factors *f);
void	fek_wham_factors_counts(const struct fek_wham_problem *p,
	    struct fek_wham_factors *f);
void	fek_wham_factors_free(struct fek_wham_factors *f);

struct fek_wham_backend {
	void *ctx;
	/* u (H) -> lnfn (H), ln Z, S; returns the number of bins and windows
	 * summed on the exact log path, or -1 with fek_seterr. */
	long	(*eval)(void *ctx, const double *u, double *lnfn, double *lnz,
		    double *s);
	/* ln p of the last evaluation (B). */
	int	(*lnp)(void *ctx, double *lnp);
	/* The counts (B_b, H_h) changed: the bootstrap. */
	int	(*counts)(void *ctx);
	void	(*free)(void *ctx);
};

int	fek_wham_cpu_backend(const struct fek_wham_problem *p,
	    const struct fek_wham_factors *f, struct fek_wham_backend *be);
/* In kernels/wham/backend.cu (lib/core/device_gpu_stub.c without nvcc): -1,
 * exit 69, when no GPU can be used. */
int	fek_wham_gpu_backend(const struct fek_wham_problem *p,
	    const struct fek_wham_factors *f, struct fek_wham_backend *be);

/* The exact log-space sums of one bin and one window (the fallbacks). */
double	fek_wham_lse_bin(const struct fek_wham_problem *p,
	    const struct fek_wham_factors *f,
	    const double *u, long long b, double *scratch, long *idx);
double	fek_wham_lse_window(const struct fek_wham_problem *p,
	    const double *lnp, long h, long *idx);

#endif
