/*
 * factor.c - the scaled per-axis bias factors shared by the CPU and
 * GPU evaluations (wham/backend.h; Potgieter 2014, Eq. 5.2), the window-grid
 * detection, and the exact log-sum-exp fallbacks of Eqs. 3.1-3.2.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wham/backend.h"

static const double *
lnc_row(const struct fek_wham_problem *p, long h, int d)
{
	return p->lnc + h * p->lnc_stride + p->lnc_off[d];
}

static double
lnc_at(const struct fek_wham_problem *p, long h, const long *idx)
{
	const double *l = p->lnc + h * p->lnc_stride;
	double s = 0;
	int d;

	for (d = 0; d < p->grid.ndim; d++)
		s += l[p->lnc_off[d] + idx[d]];
	return s;
}

struct key {
	double c, k;
	long h;
};

static int
key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->h < y->h ? -1 : x->h > y->h;
}

/* Windows on a grid: per axis a sorted list of distinct (centre, spring),
 * each combination exactly once, and equal (centre, spring) giving equal
 * ln c rows.  Sets f->nw, f->perm and fills rep[d][j], a window holding
 * value j on axis d. */
static int
detect_grid(const struct fek_wham_problem *p, struct fek_wham_factors *f,
    long **rep)
{
	struct key *k = fek_alloc(f->H, sizeof *k);
	long *j = fek_alloc((size_t)f->H * f->D, sizeof(long));
	unsigned char *seen;
	long h, flat;
	int d, ok = 1;
	double total = 1;

	for (d = 0; d < f->D && ok; d++) {
		for (h = 0; h < f->H; h++) {
			k[h].c = p->win[h].centre[d];
			k[h].k = p->win[h].spring[d];
			k[h].h = h;
		}
		qsort(k, f->H, sizeof *k, key_cmp);
		f->nw[d] = 0;
		for (h = 0; h < f->H; h++) {
			if (h == 0 || k[h].c != k[h - 1].c ||
			    k[h].k != k[h - 1].k) {
				rep[d][f->nw[d]] = k[h].h;
				f->nw[d]++;
			} else if (memcmp(lnc_row(p, k[h].h, d),
			    lnc_row(p, rep[d][f->nw[d] - 1], d),
			    p->grid.ax[d].nbins * sizeof(double)) != 0)
				ok = 0;
			j[k[h].h * f->D + d] = f->nw[d] - 1;
		}
		total *= f->nw[d];
	}
	if (ok && total != (double)f->H)
		ok = 0;
	if (ok) {
		seen = fek_alloc(f->H, 1);
		f->perm = fek_alloc(f->H, sizeof(long));
		for (h = 0; h < f->H && ok; h++) {
			flat = 0;
			for (d = 0; d < f->D; d++)
				flat = flat * f->nw[d] + j[h * f->D + d];
			if (seen[flat])
				ok = 0;
			seen[flat] = 1;
			f->perm[h] = flat;
		}
		free(seen);
		if (!ok) {
			free(f->perm);
			f->perm = NULL;
		}
	}
	free(k);
	free(j);
	return ok;
}

static void
init_tensor(const struct fek_wham_problem *p, struct fek_wham_factors *f,
    long **rep)
{
	long off = 0, i, jj, h;
	double *mx;
	long long size, size2;
	int d, e;

	for (d = 0; d < f->D; d++) {
		f->goff[d] = off;
		off += f->nw[d] * f->nb[d];
	}
	f->G = fek_alloc(off, sizeof(double));
	f->lg = fek_alloc(off, sizeof(double));
	mx = fek_alloc(off, sizeof(double));	/* row maxima, first nw_d */
	for (d = 0; d < f->D; d++)
		for (jj = 0; jj < f->nw[d]; jj++) {
			const double *l = lnc_row(p, rep[d][jj], d);
			double m = -HUGE_VAL, *g = f->G + f->goff[d] +
			    jj * f->nb[d];

			for (i = 0; i < f->nb[d]; i++)
				if (l[i] > m)
					m = l[i];
			mx[f->goff[d] + jj] = m;
			for (i = 0; i < f->nb[d]; i++) {
				g[i] = exp(l[i] - m);
				f->lg[f->goff[d] + jj * f->nb[d] + i] = l[i];
			}
		}
	/* M_h = sum_d of its rows' maxima: the window's grid position */
	for (h = 0; h < f->H; h++) {
		long flat = f->perm[h];

		f->M[h] = 0;
		for (d = f->D - 1; d >= 0; d--) {
			f->M[h] += mx[f->goff[d] + flat % f->nw[d]];
			flat /= f->nw[d];
		}
	}
	free(mx);
	/* intermediates of the mode products: axes 0..d-1 done, the rest
	 * not, windows to bins (Eq. 3.1) and bins to windows (Eq. 3.2) */
	f->tmax = 0;
	for (d = 0; d <= f->D; d++) {
		size = size2 = 1;
		for (e = 0; e < f->D; e++) {
			size *= e < d ? f->nb[e] : f->nw[e];
			size2 *= e < d ? f->nw[e] : f->nb[e];
		}
		if (size > f->tmax)
			f->tmax = size;
		if (size2 > f->tmax)
			f->tmax = size2;
	}
}

/* Window-parallel: H x R exponentials (33 M for 20^3 windows x 64^3 bins). */
static void
init_general(const struct fek_wham_problem *p, struct fek_wham_factors *f)
{
	long h;

	f->n1 = f->nb[0];
	f->R = (long)(f->B / f->n1);
	f->C1 = fek_alloc((size_t)f->H * f->n1, sizeof(double));
	f->K = fek_alloc((size_t)f->H * f->R, sizeof(double));
#pragma omp parallel for schedule(static)
	for (h = 0; h < f->H; h++) {
		double m[FEK_MAXDIM];
		long i, r, idx[FEK_MAXDIM];
		int d;

		for (d = 0; d < f->D; d++) {
			const double *l = lnc_row(p, h, d);

			m[d] = -HUGE_VAL;
			for (i = 0; i < f->nb[d]; i++)
				if (l[i] > m[d])
					m[d] = l[i];
		}
		for (i = 0; i < f->n1; i++)
			f->C1[h * f->n1 + i] = exp(lnc_row(p, h, 0)[i] - m[0]);
		for (r = 0; r < f->R; r++) {
			long rem = r;
			double s = 0;

			for (d = f->D - 1; d >= 1; d--) {
				idx[d] = rem % f->nb[d];
				rem /= f->nb[d];
				s += lnc_row(p, h, d)[idx[d]] - m[d];
			}
			f->K[h * f->R + r] = exp(s);
		}
	}
}

void
fek_wham_factors_init(const struct fek_wham_problem *p,
    struct fek_wham_factors *f)
{
	long *rep[FEK_MAXDIM], h, i;
	int d;

	memset(f, 0, sizeof *f);
	f->D = p->grid.ndim;
	f->H = p->nwin;
	f->B = p->grid.nbins;
	for (d = 0; d < f->D; d++) {
		f->nb[d] = p->grid.ax[d].nbins;
		rep[d] = fek_alloc(f->H, sizeof(long));
	}
	f->M = fek_alloc(f->H, sizeof(double));
	f->lnN = fek_alloc(f->H, sizeof(double));
	f->lnB = fek_alloc((size_t)f->B, sizeof(double));
	f->tensor = detect_grid(p, f, rep);
	if (f->tensor)
		init_tensor(p, f, rep);
	else {
		for (h = 0; h < f->H; h++)
			for (d = 0; d < f->D; d++) {
				const double *l = lnc_row(p, h, d);
				double m = -HUGE_VAL;

				for (i = 0; i < f->nb[d]; i++)
					if (l[i] > m)
						m = l[i];
				f->M[h] += m;
			}
		init_general(p, f);
	}
	for (d = 0; d < f->D; d++)
		free(rep[d]);
	fek_wham_factors_counts(p, f);
}

void
fek_wham_factors_counts(const struct fek_wham_problem *p,
    struct fek_wham_factors *f)
{
	long long b;
	long h;

	f->ntot = 0;
	for (b = 0; b < f->B; b++) {
		f->lnB[b] = p->counts[b] > 0 ? log(p->counts[b]) : -HUGE_VAL;
		f->ntot += p->counts[b];
	}
	for (h = 0; h < f->H; h++)
		f->lnN[h] = p->n[h] > 0 ? log(p->n[h]) : -HUGE_VAL;
}

void
fek_wham_factors_free(struct fek_wham_factors *f)
{
	free(f->perm);
	free(f->G);
	free(f->lg);
	free(f->C1);
	free(f->K);
	free(f->M);
	free(f->lnN);
	free(f->lnB);
	memset(f, 0, sizeof *f);
}

/* ln sum_h exp(ln H_h + u_h + ln c_hb): the exact denominator of Eq. 3.1;
 * scratch holds H doubles. */
double
fek_wham_lse_bin(const struct fek_wham_problem *p,
    const struct fek_wham_factors *f,
    const double *u, long long b, double *scratch, long *idx)
{
	double top = -HUGE_VAL, s = 0, v;
	long h;

	fek_grid_unflatten(&p->grid, b, idx);
	for (h = 0; h < f->H; h++) {
		v = f->lnN[h] + u[h] + lnc_at(p, h, idx);
		scratch[h] = v;
		if (v > top)
			top = v;
	}
	if (top == -HUGE_VAL)
		return top;
	for (h = 0; h < f->H; h++)
		s += exp(scratch[h] - top);
	return top + log(s);
}

/* ln sum_b c_hb p_b, exactly (Eq. 3.2). */
double
fek_wham_lse_window(const struct fek_wham_problem *p, const double *lnp, long h,
    long *idx)
{
	double top = -HUGE_VAL, s = 0, v;
	long long b;

	for (b = 0; b < p->grid.nbins; b++) {
		if (lnp[b] == -HUGE_VAL)
			continue;
		fek_grid_unflatten(&p->grid, b, idx);
		v = lnc_at(p, h, idx) + lnp[b];
		if (v > top)
			top = v;
	}
	if (top == -HUGE_VAL)
		return top;
	for (b = 0; b < p->grid.nbins; b++) {
		if (lnp[b] == -HUGE_VAL)
			continue;
		fek_grid_unflatten(&p->grid, b, idx);
		s += exp(lnc_at(p, h, idx) + lnp[b] - top);
	}
	return top + log(s);
}
