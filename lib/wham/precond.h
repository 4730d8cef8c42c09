/*
 * precond.h - a preconditioner for the WHAM likelihood's L-BFGS on a window
 * grid (wham/wham.c): the Hessian of Zhu & Hummer's likelihood (J. Comput.
 * Chem. 33, 453, 2012) in u = ln f, for a flat PMF, written as a Kronecker
 * product over the axes and inverted exactly (wham/precond.c derives it).
 *
 * Why.  With windows narrow against the grid's span, each window overlaps
 * only its neighbours and the Hessian is a Laplacian on the window grid:
 * its smooth modes have eigenvalues ~ (width / span)^2 of the others, and
 * L-BFGS scaled by the diagonal alone needs ~1.5 x (bins an axis / window
 * width) sweeps (181 for 91^2 windows 1.5 bins wide, scripts/
 * bench-wham-regimes).  The model's inverse takes those modes out.
 */
#ifndef FEK_WHAM_PRECOND_H
#define FEK_WHAM_PRECOND_H

#include "wham/backend.h"

struct fek_wham_precond {
	int D;
	long H;
	long nw[FEK_MAXDIM];
	long long size;		/* prod nw */
	double *U[FEK_MAXDIM];	/* nw_d x nw_d eigenvectors (columns) */
	double *lam[FEK_MAXDIM];	/* nw_d eigenvalues, in [0, 1] */
	long top[FEK_MAXDIM];	/* the eigenvalue 1's (the shift's) index */
	const long *perm;	/* window h at flat index perm[h] */
	double *isw;		/* H: w_h^-1/2 */
	double *T0, *T1;	/* size each */
};

/* Build the preconditioner of f's window grid (f->tensor) with the
 * windows' weights w (H_h / N).  Returns 0, or 1 (nothing built) where
 * f is not a window grid. */
int	fek_wham_precond_init(struct fek_wham_precond *pc,
	    const struct fek_wham_factors *f, const double *w);
/* d = gamma P q: P the model Hessian's inverse (its null mode, a constant
 * shift of ln f, taken as the identity in the w-scaled variables). */
void	fek_wham_precond_apply(struct fek_wham_precond *pc, double gamma,
	    const double *q, double *d);
void	fek_wham_precond_free(struct fek_wham_precond *pc);

#endif
