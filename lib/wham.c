/*
 * wham.c - CPU reference WHAM.  Potgieter 2014, Eqs. 3.1-3.2:
 *
 *   p_b = B_b / sum_h H_h f_h c_hb          f_h = 1 / sum_b c_hb p_b
 *
 * iterated from f_h = 1 (Algorithm 1), here in log space: ln f_h and ln p_b
 * are the unknowns, p is normalised every sweep, and convergence is the
 * largest change of ln f_h (a window free energy in kT), as in Grossfield's
 * wham but scale-free.
 *
 * The harmonic bias factorises over dimensions, c_hb = prod_d c_hd(b_d)
 * (Eq. 5.2), so with the first axis split from the rest,
 *
 *   sum_h w_h c_hb   = (W1^T K)[b1, r]     W1 = w_h c_h1(b1), K = prod_{d>1}
 *   sum_b c_hb q_b   = sum_r (C1 Q)[h, r] K[h, r]
 *
 * are two matrix products per sweep (BLAS dgemm) instead of H x B
 * exponentials.  Every factor is scaled by its window's maximum and the
 * weights by their largest, so all terms lie in [0, 1]; where that could
 * lose a term (weights or probabilities spanning more than e^600, or a sum
 * near underflow) the affected bins or windows are summed exactly with
 * log-sum-exp instead.  The result is the same fixed point either way.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "wham.h"

#define RANGE_LIMIT 600.0	/* e^-600 is far from underflow (e^-708) */
#define TINY 1e-290

struct wham_work {
	long H, n1, R;
	long long B;
	double *C1;	/* H x n1: exp(lnc_h1 - max) */
	double *K;	/* H x R: prod_{d>1} exp(lnc_hd - max) */
	double *M;	/* H: sum_d max_b lnc_hd */
	double *lnN;	/* H */
	double *W1;	/* H x n1 */
	double *den;	/* B */
	double *Q;	/* B */
	double *T;	/* H x R */
	double *a;	/* H */
	long *idx;	/* ndim: scratch */
};

static double
lnc_at(const struct wham_problem *p, long h, const long *idx)
{
	const double *l = p->lnc + h * p->lnc_stride;
	double s = 0;
	int d;

	for (d = 0; d < p->grid.ndim; d++)
		s += l[p->lnc_off[d] + idx[d]];
	return s;
}

static void
work_init(const struct wham_problem *p, struct wham_work *w)
{
	long h, i, r, H = p->nwin;
	int D = p->grid.ndim, d;
	double m[FEK_MAXDIM];
	long idx[FEK_MAXDIM];

	w->H = H;
	w->n1 = p->grid.ax[0].nbins;
	w->B = p->grid.nbins;
	w->R = (long)(w->B / w->n1);
	w->C1 = fek_alloc((size_t)H * w->n1, sizeof(double));
	w->K = fek_alloc((size_t)H * w->R, sizeof(double));
	w->M = fek_alloc(H, sizeof(double));
	w->lnN = fek_alloc(H, sizeof(double));
	w->W1 = fek_alloc((size_t)H * w->n1, sizeof(double));
	w->den = fek_alloc((size_t)w->B, sizeof(double));
	w->Q = fek_alloc((size_t)w->B, sizeof(double));
	w->T = fek_alloc((size_t)H * w->R, sizeof(double));
	w->a = fek_alloc(H, sizeof(double));
	w->idx = fek_alloc(D, sizeof(long));
	for (h = 0; h < H; h++) {
		const double *l = p->lnc + h * p->lnc_stride;

		w->lnN[h] = log(p->n[h]);
		w->M[h] = 0;
		for (d = 0; d < D; d++) {
			m[d] = -HUGE_VAL;
			for (i = 0; i < p->grid.ax[d].nbins; i++)
				if (l[p->lnc_off[d] + i] > m[d])
					m[d] = l[p->lnc_off[d] + i];
			w->M[h] += m[d];
		}
		for (i = 0; i < w->n1; i++)
			w->C1[h * w->n1 + i] = exp(l[p->lnc_off[0] + i] - m[0]);
		for (r = 0; r < w->R; r++) {
			long rem = r;
			double s = 0;

			for (d = D - 1; d >= 1; d--) {
				idx[d] = rem % p->grid.ax[d].nbins;
				rem /= p->grid.ax[d].nbins;
				s += l[p->lnc_off[d] + idx[d]] - m[d];
			}
			w->K[h * w->R + r] = exp(s);
		}
	}
}

static void
work_free(struct wham_work *w)
{
	free(w->C1);
	free(w->K);
	free(w->M);
	free(w->lnN);
	free(w->W1);
	free(w->den);
	free(w->Q);
	free(w->T);
	free(w->a);
	free(w->idx);
}

/* ln sum_h exp(a_h + ln c_hb): the exact denominator of Eq. 3.1. */
static double
lse_bin(const struct wham_problem *p, struct wham_work *w, const double *lnf,
    long long b)
{
	double top = -HUGE_VAL, s = 0, v;
	long h;

	fek_grid_unflatten(&p->grid, b, w->idx);
	for (h = 0; h < w->H; h++) {
		v = w->lnN[h] + lnf[h] + lnc_at(p, h, w->idx);
		w->a[h] = v;
		if (v > top)
			top = v;
	}
	for (h = 0; h < w->H; h++)
		s += exp(w->a[h] - top);
	return top + log(s);
}

/* ln sum_b c_hb p_b, exactly (Eq. 3.2). */
static double
lse_window(const struct wham_problem *p, struct wham_work *w,
    const double *lnp, long h)
{
	double top = -HUGE_VAL, s = 0, v;
	long long b;

	for (b = 0; b < w->B; b++) {
		if (lnp[b] == -HUGE_VAL)
			continue;
		fek_grid_unflatten(&p->grid, b, w->idx);
		v = lnc_at(p, h, w->idx) + lnp[b];
		if (v > top)
			top = v;
	}
	for (b = 0; b < w->B; b++) {
		if (lnp[b] == -HUGE_VAL)
			continue;
		fek_grid_unflatten(&p->grid, b, w->idx);
		s += exp(lnc_at(p, h, w->idx) + lnp[b] - top);
	}
	return top + log(s);
}

/* Eq. 3.1: ln p_b from ln f_h, normalised. */
static int
sweep_p(const struct wham_problem *p, struct wham_work *w, const double *lnf,
    double *lnp)
{
	double A = -HUGE_VAL, lo = HUGE_VAL, top, s;
	long h, i;
	long long b;
	int exact = 0, nexact = 0;

	for (h = 0; h < w->H; h++) {
		w->a[h] = w->lnN[h] + lnf[h] + w->M[h];
		if (w->a[h] > A)
			A = w->a[h];
		if (w->a[h] < lo)
			lo = w->a[h];
	}
	if (A - lo > RANGE_LIMIT)
		exact = 1;
	else {
		for (h = 0; h < w->H; h++) {
			double wt = exp(w->a[h] - A);

			for (i = 0; i < w->n1; i++)
				w->W1[h * w->n1 + i] = wt * w->C1[h * w->n1 + i];
		}
		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans,
		    (int)w->n1, (int)w->R, (int)w->H, 1.0, w->W1, (int)w->n1,
		    w->K, (int)w->R, 0.0, w->den, (int)w->R);
	}
	top = -HUGE_VAL;
	for (b = 0; b < w->B; b++) {
		if (p->counts[b] <= 0) {
			lnp[b] = -HUGE_VAL;
			continue;
		}
		if (!exact && w->den[b] > TINY)
			lnp[b] = log(p->counts[b]) - A - log(w->den[b]);
		else {
			lnp[b] = log(p->counts[b]) - lse_bin(p, w, lnf, b);
			nexact++;
		}
		if (lnp[b] > top)
			top = lnp[b];
	}
	s = 0;
	for (b = 0; b < w->B; b++)
		if (lnp[b] != -HUGE_VAL)
			s += exp(lnp[b] - top);
	s = top + log(s);
	for (b = 0; b < w->B; b++)
		if (lnp[b] != -HUGE_VAL)
			lnp[b] -= s;
	return nexact;
}

/* Eq. 3.2: ln f_h from ln p_b. */
static int
sweep_f(const struct wham_problem *p, struct wham_work *w, const double *lnp,
    double *lnf)
{
	double P = -HUGE_VAL, lo = HUGE_VAL, s;
	long h, r;
	long long b;
	int exact = 0, nexact = 0;

	for (b = 0; b < w->B; b++)
		if (lnp[b] != -HUGE_VAL) {
			if (lnp[b] > P)
				P = lnp[b];
			if (lnp[b] < lo)
				lo = lnp[b];
		}
	if (P - lo > RANGE_LIMIT)
		exact = 1;
	else {
		for (b = 0; b < w->B; b++)
			w->Q[b] = lnp[b] == -HUGE_VAL ? 0 : exp(lnp[b] - P);
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
		    (int)w->H, (int)w->R, (int)w->n1, 1.0, w->C1, (int)w->n1,
		    w->Q, (int)w->R, 0.0, w->T, (int)w->R);
	}
	for (h = 0; h < w->H; h++) {
		if (!exact) {
			const double *t = w->T + h * w->R, *k = w->K + h * w->R;

			s = 0;
			for (r = 0; r < w->R; r++)
				s += t[r] * k[r];
			if (s > TINY) {
				lnf[h] = -(w->M[h] + P + log(s));
				continue;
			}
		}
		lnf[h] = -lse_window(p, w, lnp, h);
		nexact++;
	}
	return nexact;
}

int
wham_solve(const struct wham_problem *p, const struct wham_options *o,
    struct wham_result *res)
{
	struct wham_work w;
	double *lnf_new, delta = HUGE_VAL;
	long h, it;
	int nexact = 0;

	memset(res, 0, sizeof *res);
	res->lnp = fek_alloc((size_t)p->grid.nbins, sizeof(double));
	res->lnf = fek_alloc(p->nwin, sizeof(double));
	lnf_new = fek_alloc(p->nwin, sizeof(double));
	work_init(p, &w);
	for (it = 0; it < o->maxiter; it++) {	/* f_h = 1 to start */
		nexact += sweep_p(p, &w, res->lnf, res->lnp);
		nexact += sweep_f(p, &w, res->lnp, lnf_new);
		delta = 0;
		for (h = 0; h < p->nwin; h++) {
			double d = fabs(lnf_new[h] - res->lnf[h]);

			if (d > delta)
				delta = d;
			res->lnf[h] = lnf_new[h];
		}
		if (o->progress && o->progress_every > 0 &&
		    (it + 1) % o->progress_every == 0)
			o->progress(it + 1, delta);
		if (delta < o->tol) {
			it++;
			break;
		}
	}
	/* the p that belongs to the final f */
	nexact += sweep_p(p, &w, res->lnf, res->lnp);
	for (h = p->nwin - 1; h >= 0; h--)
		res->lnf[h] -= res->lnf[0];
	res->iterations = it;
	res->maxdelta = delta;
	res->converged = delta < o->tol;
	res->logspace_bins = nexact;
	work_free(&w);
	free(lnf_new);
	if (!res->converged)
		return fek_seterr(FEK_EX_NUMERIC, "no convergence after %ld "
		    "iterations: max |d ln f| = %.3g kT > --tol %.3g; raise "
		    "--maxiter or --tol", it, delta, o->tol);
	return 0;
}

static long
uf_find(long *parent, long x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

int
wham_check_overlap(const struct wham_problem *p)
{
	long *parent, *owner, h, other = -1;
	long long k;
	int d, n = 0;
	char c0[512], c1[512];

	parent = fek_alloc(p->nwin, sizeof(long));
	owner = fek_alloc((size_t)p->grid.nbins, sizeof(long));
	for (h = 0; h < p->nwin; h++)
		parent[h] = h;
	for (k = 0; k < p->grid.nbins; k++)
		owner[k] = -1;
	for (h = 0; h < p->nwin; h++)
		for (k = p->hist_start[h]; k < p->hist_start[h + 1]; k++) {
			long long b = p->hist_bin[k];

			if (p->hist_count[k] <= 0)
				continue;
			if (owner[b] < 0)
				owner[b] = h;
			else
				parent[uf_find(parent, h)] =
				    uf_find(parent, owner[b]);
		}
	for (h = 1; h < p->nwin && other < 0; h++)
		if (uf_find(parent, h) != uf_find(parent, 0))
			other = h;
	free(parent);
	free(owner);
	if (other < 0)
		return 0;
	for (d = 0; d < p->grid.ndim; d++)
		n += snprintf(c0 + n, sizeof c0 - n, "%s%g", d ? "," : "",
		    p->win[0].centre[d]);
	for (d = 0, n = 0; d < p->grid.ndim; d++)
		n += snprintf(c1 + n, sizeof c1 - n, "%s%g", d ? "," : "",
		    p->win[other].centre[d]);
	return fek_seterr(FEK_EX_NUMERIC, "windows 1 (centre %s) and %ld "
	    "(centre %s) share no sampled bin, directly or through other "
	    "windows: their relative free energy is undefined (add windows "
	    "between them or soften the springs)", c0, other + 1, c1);
}

void
wham_result_free(struct wham_result *res)
{
	free(res->lnp);
	free(res->lnf);
	res->lnp = res->lnf = NULL;
}

void
wham_problem_free(struct wham_problem *p)
{
	free(p->win);
	free(p->n);
	free(p->counts);
	free(p->hist_start);
	free(p->hist_bin);
	free(p->hist_count);
	free(p->lnc);
}
