/*
 * precond.c - the window grid's model Hessian for L-BFGS (wham/precond.h).
 *
 * The likelihood of Zhu & Hummer (2012) in u_h = ln f_h, per sample
 * (wham/wham.c: gradient g_h = w_h (e^-r_h - 1), w_h = N_h / N), has at
 * its solution the Hessian
 *   Hess_hk = w_h delta_hk - sum_b (B_b / N) pi_hb pi_kb,
 *   pi_hb = N_h f_h c_hb / sum_k N_k f_k c_kb   (window h's share of bin b),
 * a weighted graph Laplacian on the windows (its rows sum to zero: a
 * constant shift of u changes nothing).  For a flat PMF and equal N_h on a
 * window grid, c_hb = prod_d G_d[j_d(h), b_d] and every factor above
 * separates: with S_d[b] = sum_i G_d[i, b] and Z_d[i] = sum_b G_d[i, b],
 * B_b is proportional to prod_d S_d[b_d] and
 *   Hess = w^1/2 (I - K_1 (x) ... (x) K_D) w^1/2,
 *   K_d = Z_d^-1/2 W_d Z_d^-1/2,   W_d[i, i'] = sum_b G_d[i, b] G_d[i', b]
 *                                                 / S_d[b],
 * K_d symmetric with eigenvalues in [0, 1] (the top one 1, eigenvector
 * Z_d^1/2: the shift).  With K_d = U_d diag(lambda_d) U_d^T the inverse is
 * exact in the basis U_1 (x) ... (x) U_D: divide mode (k_1 .. k_D) by
 * 1 - prod_d lambda_d[k_d]; applying it costs D products of the window
 * tensor with an nw_d x nw_d matrix each way (2 x 91^3 multiply-adds per
 * axis for 91^2 windows).  A real PMF changes the couplings from window
 * to window, by the overlap of neighbouring windows' samples; the model
 * keeps the spectrum's shape, the grid Laplacian's, which is what the
 * diagonal scaling misses, and L-BFGS corrects the rest.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cblas.h>	/* OpenBLAS provides these */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

#include "wham/precond.h"

/* OpenBLAS's own (its cblas.h, which clashes with GSL's gsl_cblas.h) */
int	openblas_get_num_threads(void);
void	openblas_set_num_threads(int);

/* K_d's eigenvectors and eigenvalues from the factors ln c_d (n x nb at
 * lg, rows the windows' positions on axis d). */
static void
axis_model(const double *lg, long n, long nb, double *U, double *lam)
{
	double *G = fek_alloc((size_t)(n * nb), sizeof(double));
	double *Z = fek_alloc(n, sizeof(double)), m = -HUGE_VAL, s;
	gsl_matrix *K = gsl_matrix_alloc(n, n), *V = gsl_matrix_alloc(n, n);
	gsl_vector *ev = gsl_vector_alloc(n);
	gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
	long i, j, b;
	int nthreads;

	for (i = 0; i < n * nb; i++)
		if (isfinite(lg[i]) && lg[i] > m)
			m = lg[i];
	for (i = 0; i < n * nb; i++)
		G[i] = isfinite(lg[i]) ? exp(lg[i] - m) : 0;
	for (i = 0; i < n; i++)
		for (Z[i] = 0, b = 0; b < nb; b++)
			Z[i] += G[i * nb + b];
	/* G[i, b] / sqrt(S[b]): then W = G G^T */
	for (b = 0; b < nb; b++) {
		for (s = 0, i = 0; i < n; i++)
			s += G[i * nb + b];
		for (i = 0; i < n; i++)
			G[i * nb + b] = s > 0 ? G[i * nb + b] / sqrt(s) : 0;
	}
	/* OpenBLAS (here, and in GSL's tridiagonalisation) on one thread:
	 * more may sum in another order, and the answer should not depend
	 * on their number */
	nthreads = openblas_get_num_threads();
	openblas_set_num_threads(1);
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n,
	    (int)nb, 1.0, G, (int)nb, G, (int)nb, 0.0, K->data, (int)K->tda);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			gsl_matrix_set(K, i, j, Z[i] > 0 && Z[j] > 0 ?
			    gsl_matrix_get(K, i, j) / sqrt(Z[i] * Z[j]) : 0);
	gsl_eigen_symmv(K, ev, V, ws);
	openblas_set_num_threads(nthreads);
	for (i = 0; i < n; i++) {
		lam[i] = fmin(1, fmax(0, gsl_vector_get(ev, i)));
		for (j = 0; j < n; j++)
			U[j * n + i] = gsl_matrix_get(V, j, i);
	}
	gsl_eigen_symmv_free(ws);
	gsl_vector_free(ev);
	gsl_matrix_free(V);
	gsl_matrix_free(K);
	free(Z);
	free(G);
}

int
fek_wham_precond_init(struct fek_wham_precond *pc,
    const struct fek_wham_factors *f, const double *w)
{
	long h;
	int d;

	memset(pc, 0, sizeof *pc);
	if (!f->tensor)
		return 1;
	pc->D = f->D;
	pc->H = f->H;
	pc->perm = f->perm;
	pc->size = 1;
	for (d = 0; d < f->D; d++) {
		long n = f->nw[d];

		pc->nw[d] = n;
		pc->size *= n;
		pc->U[d] = fek_alloc((size_t)(n * n), sizeof(double));
		pc->lam[d] = fek_alloc(n, sizeof(double));
		axis_model(f->lg + f->goff[d], n, f->nb[d], pc->U[d],
		    pc->lam[d]);
		for (pc->top[d] = 0, h = 1; h < n; h++)	/* the shift */
			if (pc->lam[d][h] >= pc->lam[d][pc->top[d]])
				pc->top[d] = h;
	}
	pc->isw = fek_alloc(f->H, sizeof(double));
	for (h = 0; h < f->H; h++)
		pc->isw[h] = w[h] > 0 ? 1 / sqrt(w[h]) : 1;
	pc->T0 = fek_alloc((size_t)pc->size, sizeof(double));
	pc->T1 = fek_alloc((size_t)pc->size, sizeof(double));
	return 0;
}

/* dst = src with U_d (back) or U_d^T (forward) applied along axis d, the
 * tensor seen as A x n_d x C: one product where A or C is 1. */
static void
along(const struct fek_wham_precond *pc, int d, int forward,
    const double *src, double *dst)
{
	long long A = 1, C = 1, a;
	long n = pc->nw[d];
	const double *U = pc->U[d];
	int e;

	for (e = 0; e < d; e++)
		A *= pc->nw[e];
	for (e = d + 1; e < pc->D; e++)
		C *= pc->nw[e];
	if (C == 1) {		/* Y (A x n) = X U, or X U^T */
		cblas_dgemm(CblasRowMajor, CblasNoTrans, forward ?
		    CblasNoTrans : CblasTrans, (int)A, (int)n, (int)n, 1.0, src,
		    (int)n, U, (int)n, 0.0, dst, (int)n);
		return;
	}
	for (a = 0; a < A; a++)	/* Y_a (n x C) = U^T X_a, or U X_a */
		cblas_dgemm(CblasRowMajor, forward ? CblasTrans : CblasNoTrans,
		    CblasNoTrans, (int)n, (int)C, (int)n, 1.0, U, (int)n,
		    src + a * n * C, (int)C, 0.0, dst + a * n * C, (int)C);
}

void
fek_wham_precond_apply(struct fek_wham_precond *pc, double gamma,
    const double *q, double *out)
{
	double *x = pc->T0, *y = pc->T1, *t;
	long long k, rest;
	long h;
	int d, fwd, nthreads;

	/* OpenBLAS on one thread: the same sums whatever the thread count */
	nthreads = openblas_get_num_threads();
	openblas_set_num_threads(1);
	memset(x, 0, (size_t)pc->size * sizeof(double));
	for (h = 0; h < pc->H; h++)
		x[pc->perm[h]] = q[h] * pc->isw[h];
	for (fwd = 1; fwd >= 0; fwd--) {
		for (d = 0; d < pc->D; d++) {
			along(pc, d, fwd, x, y);
			t = x;
			x = y;
			y = t;
		}
		if (!fwd)
			break;
		for (k = 0; k < pc->size; k++) {
			double prod = 1;
			int shift = 1;

			for (rest = k, d = pc->D - 1; d >= 0; d--) {
				long i = (long)(rest % pc->nw[d]);

				rest /= pc->nw[d];
				prod *= pc->lam[d][i];
				shift &= i == pc->top[d];
			}
			x[k] /= shift ? 1 : fmax(1 - prod, 1e-12);
		}
	}
	for (h = 0; h < pc->H; h++)
		out[h] = gamma * x[pc->perm[h]] * pc->isw[h];
	openblas_set_num_threads(nthreads);
}

void
fek_wham_precond_free(struct fek_wham_precond *pc)
{
	int d;

	for (d = 0; d < pc->D; d++) {
		free(pc->U[d]);
		free(pc->lam[d]);
	}
	free(pc->isw);
	free(pc->T0);
	free(pc->T1);
	memset(pc, 0, sizeof *pc);
}
