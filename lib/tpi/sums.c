/*
 * sums.c - the Boltzmann sums of Daly et al. (2012), Algorithm 1 (I_T,
 * I_O over insertions, D_O and D_T over deletions), taken in a fixed
 * order: groups of FEK_TPI_GROUP consecutive moves, each summed as a
 * binary tree (strides 512, 256, ..., 1, the order kernels/tpi/insert.cu's
 * blocks use), shifted by the group's largest exponent; then the groups
 * in order, shifted by the largest of all (log-sum-exp), so that nothing
 * overflows whatever the energies.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "tpi/tpi.h"

/* sum of t[0 .. FEK_TPI_GROUP - 1] as the GPU's tree does it */
static double
tree(double *t)
{
	for (int s = FEK_TPI_GROUP / 2; s > 0; s >>= 1)
		for (int i = 0; i < s; i++)
			t[i] += t[i + s];
	return t[0];
}

void
fek_tpi_group(const double *bu, long n, int del, struct fek_tpi_part *p)
{
	double t[FEK_TPI_GROUP], m = -INFINITY;

	for (long i = 0; i < n; i++) {
		double x = del ? bu[i] : -bu[i];

		if (x > m)
			m = x;
	}
	p->m = m;
	for (int w = 0; w < 3; w++) {
		for (long i = 0; i < FEK_TPI_GROUP; i++)
			t[i] = i < n ? fek_tpi_term(bu[i], del, m, w) : 0;
		(&p->sT)[w] = tree(t);
	}
}

void
fek_tpi_merge(const struct fek_tpi_part *p, long ng, int del, long long n,
    struct fek_tpi_result *res)
{
	double M = -INFINITY, sT = 0, sO = 0, sU = 0;

	for (long g = 0; g < ng; g++)
		if (p[g].m > M)
			M = p[g].m;
	for (long g = 0; g < ng; g++) {
		double e = p[g].m == -INFINITY ? 0 : exp(p[g].m - M);

		sT += p[g].sT * e;
		sO += p[g].sO * sqrt(e);
		sU += del ? p[g].sU : p[g].sU * e;
	}
	if (del) {
		res->n_del = n;
		res->lnDT = n > 0 ? M + log(sT) : -INFINITY;
		res->lnDO = n > 0 ? 0.5 * M + log(sO) : -INFINITY;
		res->um = n > 0 ? sU / (double)n : 0;
		res->umax_del = M;
	} else {
		res->n_ins = n;
		res->lnIT = M == -INFINITY ? -INFINITY : M + log(sT);
		res->lnIO = M == -INFINITY ? -INFINITY : 0.5 * M + log(sO);
		res->uw = M == -INFINITY ? INFINITY : sU / sT;
		res->umin_ins = -M;
	}
}

long
fek_tpi_bin(const struct fek_tpi_par *par, double bu)
{
	return fek_tpi_slot(bu, par->hlo, par->hw, par->nbins);
}

void
fek_tpi_result_init(struct fek_tpi_result *res, const struct fek_tpi_par *par)
{
	memset(res, 0, sizeof *res);
	res->nbins = par->nbins;
	res->hins = fek_alloc(par->nbins + 2, sizeof *res->hins);
	res->hdel = fek_alloc(par->nbins + 2, sizeof *res->hdel);
}

void
fek_tpi_result_free(struct fek_tpi_result *res)
{
	free(res->hins);
	free(res->hdel);
	free(res->u_ins);
	free(res->u_del);
	memset(res, 0, sizeof *res);
}

void
fek_tpi_keep_raw(double **dst, long *cap, long long at, const double *bu,
    long n)
{
	if (n <= 0)		/* nothing (memcpy may not take NULL) */
		return;
	if (at + n > *cap) {
		*cap = (long)(at + n);
		*dst = realloc(*dst, (size_t)*cap * sizeof **dst);
		if (*dst == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory (raw energies)");
	}
	memcpy(*dst + at, bu, (size_t)n * sizeof *bu);
}

/* Group shares of n moves bu into p (ceil(n / FEK_TPI_GROUP) of them). */
void
fek_tpi_groups(const double *bu, long n, int del, struct fek_tpi_part *p)
{
	long ng = (n + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP;

#pragma omp parallel for schedule(static)
	for (long g = 0; g < ng; g++) {
		long k0 = g * FEK_TPI_GROUP;
		long cnt = n - k0 < FEK_TPI_GROUP ? n - k0 : FEK_TPI_GROUP;

		fek_tpi_group(bu + k0, cnt, del, &p[g]);
	}
}

void
fek_tpi_histogram(const struct fek_tpi_par *par, const double *bu, long n,
    long long *h)
{
	for (long i = 0; i < n; i++)
		h[fek_tpi_bin(par, bu[i])]++;
}
