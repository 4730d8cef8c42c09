/*
 * backend.c - the CPU reference evaluation of Potgieter 2014, Eqs. 3.1-3.2
 * (see wham/backend.h), double precision, BLAS dgemm for the products:
 *
 *   window grid:  den = X x_1 G_1 ... x_D G_D,   X_j = H_h f_h e^{M_h - A}
 *                 s   = Q x_1 G_1^T ... x_D G_D^T, Q_b = p_b e^{-P}
 *   otherwise:    den = (W1^T K)[b1, r],  W1 = X_h C1[h, b1]
 *                 s_h = sum_r (C1 Q)[h, r] K[h, r]
 *
 * Each mode product contracts the leading axis of the tensor and appends
 * the new one last, so after D products the axes are back in order and
 * every product is one dgemm with no transposition of data.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "wham/backend.h"

/* Loops over at least this many bins or windows run in threads. */
#define PAR_BINS 4096

struct cpu {
	const struct fek_wham_problem *p;
	const struct fek_wham_factors *f;
	double *T0, *T1;	/* tensor: tmax each */
	double *W1, *den, *T;	/* general */
	double *a;		/* H */
	double *lnp;		/* B */
	double *ez;		/* B: e^(ln p - top), summed in order */
	long idx[FEK_MAXDIM];
};

/* The D mode products of in (tensor over windows when to_bins, over bins
 * otherwise); returns the buffer holding the result (in or other). */
static double *
mode_products(const struct fek_wham_factors *f, double *in, double *other,
    int to_bins)
{
	double *src = in, *dst = other, *t;
	long long size = 1, C;
	int d;

	for (d = 0; d < f->D; d++)
		size *= to_bins ? f->nw[d] : f->nb[d];
	for (d = 0; d < f->D; d++) {
		long from = to_bins ? f->nw[d] : f->nb[d];
		long to = to_bins ? f->nb[d] : f->nw[d];
		const double *G = f->G + f->goff[d];

		C = size / from;
		cblas_dgemm(CblasRowMajor, CblasTrans, to_bins ? CblasNoTrans :
		    CblasTrans, (int)C, (int)to, (int)from, 1.0, src, (int)C, G,
		    (int)f->nb[d], 0.0, dst, (int)to);
		size = C * to;
		t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* Eq. 3.1 by products: den[b] scaled by e^-A; 1 if the weights span too
 * much for the scaled sums. */
static int
den_products(struct cpu *c, const double *u, double *A, const double **den)
{
	const struct fek_wham_factors *f = c->f;
	double top = -HUGE_VAL, lo = HUGE_VAL;
	long h, i;

	for (h = 0; h < f->H; h++) {
		c->a[h] = f->lnN[h] + u[h] + f->M[h];
		if (c->a[h] == -HUGE_VAL)
			continue;
		if (c->a[h] > top)
			top = c->a[h];
		if (c->a[h] < lo)
			lo = c->a[h];
	}
	*A = top;
	if (top - lo > FEK_WHAM_RANGE_LIMIT)
		return 1;
	if (f->tensor) {
		memset(c->T0, 0, (size_t)f->H * sizeof(double));
#pragma omp parallel for schedule(static) if (f->H >= PAR_BINS)
		for (h = 0; h < f->H; h++)
			c->T0[f->perm[h]] = exp(c->a[h] - top);
		*den = mode_products(f, c->T0, c->T1, 1);
		return 0;
	}
	for (h = 0; h < f->H; h++) {
		double wt = exp(c->a[h] - top);

		for (i = 0; i < f->n1; i++)
			c->W1[h * f->n1 + i] = wt * f->C1[h * f->n1 + i];
	}
	cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)f->n1,
	    (int)f->R, (int)f->H, 1.0, c->W1, (int)f->n1, f->K, (int)f->R, 0.0,
	    c->den, (int)f->R);
	*den = c->den;
	return 0;
}

/* Eq. 3.2 by products: s_h = sum_b c_hb p_b e^{-M_h - P} into c->a. */
static int
win_products(struct cpu *c, double *P)
{
	const struct fek_wham_factors *f = c->f;
	const double *lnp = c->lnp, *s;
	double top = -HUGE_VAL, lo = HUGE_VAL;
	double *Q = f->tensor ? c->T0 : c->den;
	long long b;
	long h, r;

	for (b = 0; b < f->B; b++)
		if (lnp[b] != -HUGE_VAL) {
			if (lnp[b] > top)
				top = lnp[b];
			if (lnp[b] < lo)
				lo = lnp[b];
		}
	*P = top;
	if (top - lo > FEK_WHAM_RANGE_LIMIT)
		return 1;
#pragma omp parallel for schedule(static) if (f->B >= PAR_BINS)
	for (b = 0; b < f->B; b++)
		Q[b] = lnp[b] == -HUGE_VAL ? 0 : exp(lnp[b] - top);
	if (f->tensor) {
		s = mode_products(f, c->T0, c->T1, 0);
		for (h = 0; h < f->H; h++)
			c->a[h] = s[f->perm[h]];
		return 0;
	}
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)f->H,
	    (int)f->R, (int)f->n1, 1.0, f->C1, (int)f->n1, Q, (int)f->R, 0.0,
	    c->T, (int)f->R);
	for (h = 0; h < f->H; h++) {
		const double *t = c->T + h * f->R, *k = f->K + h * f->R;
		double sum = 0;

		for (r = 0; r < f->R; r++)
			sum += t[r] * k[r];
		c->a[h] = sum;
	}
	return 0;
}

static long
cpu_eval(void *ctx, const double *u, double *lnfn, double *lnz, double *s)
{
	struct cpu *c = ctx;
	const struct fek_wham_problem *p = c->p;
	const struct fek_wham_factors *f = c->f;
	const double *den = NULL;
	double A, P, top = -HUGE_VAL, z = 0, S = 0, *scratch = NULL;
	long long b;
	long h, nexact = 0;
	int exact;

	exact = den_products(c, u, &A, &den);
	/* the logs and exps in threads (each bin on its own: the same
	 * values on any number), the exact sums and the totals in order */
#pragma omp parallel for schedule(static) if (f->B >= PAR_BINS)
	for (b = 0; b < f->B; b++)
		c->lnp[b] = f->lnB[b] == -HUGE_VAL ? -HUGE_VAL : !exact &&
		    den[b] > FEK_WHAM_TINY ? f->lnB[b] - A - log(den[b]) : NAN;
	for (b = 0; b < f->B; b++) {
		if (isnan(c->lnp[b])) {
			if (scratch == NULL)
				scratch = fek_alloc(f->H, sizeof(double));
			c->lnp[b] = f->lnB[b] - fek_wham_lse_bin(p, f, u, b,
			    scratch, c->idx);
			nexact++;
		}
		if (c->lnp[b] > top)
			top = c->lnp[b];
	}
	free(scratch);
#pragma omp parallel for schedule(static) if (f->B >= PAR_BINS)
	for (b = 0; b < f->B; b++)
		c->ez[b] = c->lnp[b] != -HUGE_VAL ? exp(c->lnp[b] - top) : 0;
	for (b = 0; b < f->B; b++)
		z += c->ez[b];
	z = top + log(z);
	for (b = 0; b < f->B; b++)
		if (c->lnp[b] != -HUGE_VAL) {
			c->lnp[b] -= z;
			S += p->counts[b] * c->lnp[b];
		}
	*lnz = z;
	*s = S;
	exact = win_products(c, &P);
#pragma omp parallel for schedule(static) if (f->H >= PAR_BINS)
	for (h = 0; h < f->H; h++)
		lnfn[h] = !exact && c->a[h] > FEK_WHAM_TINY ? -(f->M[h] + P +
		    log(c->a[h])) : NAN;
	for (h = 0; h < f->H; h++)
		if (isnan(lnfn[h])) {
			lnfn[h] = -fek_wham_lse_window(p, c->lnp, h, c->idx);
			nexact++;
		}
	return nexact;
}

static int
cpu_lnp(void *ctx, double *lnp)
{
	struct cpu *c = ctx;

	memcpy(lnp, c->lnp, (size_t)c->f->B * sizeof(double));
	return 0;
}

static int
cpu_counts(void *ctx)
{
	return 0;	/* the factors hold the counts */
}

static void
cpu_free(void *ctx)
{
	struct cpu *c = ctx;

	free(c->T0);
	free(c->T1);
	free(c->W1);
	free(c->den);
	free(c->T);
	free(c->a);
	free(c->lnp);
	free(c->ez);
	free(c);
}

int
fek_wham_cpu_backend(const struct fek_wham_problem *p,
    const struct fek_wham_factors *f, struct fek_wham_backend *be)
{
	struct cpu *c = fek_alloc(1, sizeof *c);

	c->p = p;
	c->f = f;
	if (f->tensor) {
		c->T0 = fek_alloc((size_t)f->tmax, sizeof(double));
		c->T1 = fek_alloc((size_t)f->tmax, sizeof(double));
	} else {
		c->W1 = fek_alloc((size_t)f->H * f->n1, sizeof(double));
		c->den = fek_alloc((size_t)f->B, sizeof(double));
		c->T = fek_alloc((size_t)f->H * f->R, sizeof(double));
	}
	c->a = fek_alloc(f->H, sizeof(double));
	c->lnp = fek_alloc((size_t)f->B, sizeof(double));
	c->ez = fek_alloc((size_t)f->B, sizeof(double));
	be->ctx = c;
	be->eval = cpu_eval;
	be->lnp = cpu_lnp;
	be->counts = cpu_counts;
	be->free = cpu_free;
	return 0;
}
