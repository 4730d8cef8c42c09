/*
 * force.c - pair forces, energies and the virial over a box's half
 * neighbour rows (nlist.c), on the CPU with OpenMP: the reference the GPU
 * (kernels/pmd/run.cu) is checked against.  Each pair is computed once
 * (Newton's third law) into the sums of the thread that owns its row;
 * the threads' sums are added in the threads' order, so a run gives the
 * same bits for the same number of threads (OMP_NUM_THREADS); the
 * energy and virial are per-particle halves, which the caller sums in a
 * fixed order (fek_pmd_sum).
 *
 * For the pair (i, j) at d = r_i - (r_j + its image's lattice vector, as
 * the list found it: the minimum image while the positions are not
 * wrapped between builds), with fr =
 * -(du/dr) / r from pmd_eval.h: f_i += fr d, u_i += u / 2, w_i += fr r^2 / 2,
 * so that sum u_i is the pair energy and sum w_i the virial
 * sum_(i<j) r_ij . f_ij (Allen and Tildesley, Eq. 2.65).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "core/fek.h"
#include "pmd/pmd.h"

void
fek_force_scratch_init(struct fek_force_scratch *fs, long n)
{
	fs->nthr = omp_get_max_threads();
	fs->n = n;
	fs->f = fek_alloc(3 * n * fs->nthr, sizeof *fs->f);
	fs->e = fek_alloc(n * fs->nthr, sizeof *fs->e);
	fs->w = fek_alloc(n * fs->nthr, sizeof *fs->w);
}

void
fek_force_scratch_free(struct fek_force_scratch *fs)
{
	free(fs->f);
	free(fs->e);
	free(fs->w);
	memset(fs, 0, sizeof *fs);
}

/* The LJ coefficients of type ti's pairs, by the partner's type. */
struct lj_row {
	double c12[FEK_PMD_MAXTYPES], c6[FEK_PMD_MAXTYPES];
	double rc2[FEK_PMD_MAXTYPES], sh[FEK_PMD_MAXTYPES];
	double fc[FEK_PMD_MAXTYPES], rc[FEK_PMD_MAXTYPES];
	int fshift;
};

/* One particle's half row of LJ pairs into this thread's sums: the
 * arithmetic of fek_pair_lj, each j moved by its image's lattice vector
 * (the row's code; pmd.h).  single: one type (a constant where this is
 * inlined, so that the partner's type is not looked up). */
static inline void
row_lj(int single, const struct lj_row *restrict c, const int *restrict type,
    const double *restrict x, const double *restrict shift,
    const int *restrict row, int cnt, long i, double *restrict ft,
    double *restrict et, double *restrict wt)
{
	double fx = 0, fy = 0, fz = 0, ue = 0, uw = 0;
	const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];

	for (int k = 0; k < cnt; k++) {
		int j = row[k] & FEK_NL_JMASK, tj = single ? 0 : type[j];
		const double *sv = shift + 3 * ((unsigned)row[k] >> FEK_NL_JBITS);
		double dx = xi - (x[3 * j] + sv[0]);
		double dy = yi - (x[3 * j + 1] + sv[1]);
		double dz = zi - (x[3 * j + 2] + sv[2]), r2, ir2, ir6, fr, u;

		r2 = dx * dx + dy * dy + dz * dz;
		if (r2 >= c->rc2[tj])
			continue;
		ir2 = 1.0 / r2;
		ir6 = ir2 * ir2 * ir2;
		fr = (12.0 * c->c12[tj] * ir6 - 6.0 * c->c6[tj]) * ir6 * ir2;
		if (c->fshift)
			fr -= c->fc[tj] / sqrt(r2);
		fx += fr * dx;
		fy += fr * dy;
		fz += fr * dz;
		ft[3 * j] -= fr * dx;
		ft[3 * j + 1] -= fr * dy;
		ft[3 * j + 2] -= fr * dz;
		if (et) {
			u = 0.5 * ((c->c12[tj] * ir6 - c->c6[tj]) * ir6 -
			    c->sh[tj]);
			if (c->fshift)
				u += 0.5 * (sqrt(r2) - c->rc[tj]) * c->fc[tj];
			ue += u;
			et[j] += u;
			uw += 0.5 * fr * r2;
			wt[j] += 0.5 * fr * r2;
		}
	}
	ft[3 * i] += fx;
	ft[3 * i + 1] += fy;
	ft[3 * i + 2] += fz;
	if (et) {
		et[i] += ue;
		wt[i] += uw;
	}
}

/* The same for a table potential; returns 1 below the table. */
static int
row_table(const struct fek_pairpot *pp, const struct fek_pair_coef *ci,
    const int *type, const double *x, const double *shift, const int *row,
    int cnt, long i, double *ft, double *et, double *wt)
{
	double fx = 0, fy = 0, fz = 0, ue = 0, uw = 0;
	int low = 0;

	for (int k = 0; k < cnt; k++) {
		int j = row[k] & FEK_NL_JMASK;
		const struct fek_pair_coef *c = &ci[type[j]];
		const double *sv = shift + 3 * ((unsigned)row[k] >> FEK_NL_JBITS);
		double d[3], r2, fr, u;

		d[0] = x[3 * i] - (x[3 * j] + sv[0]);
		d[1] = x[3 * i + 1] - (x[3 * j + 1] + sv[1]);
		d[2] = x[3 * i + 2] - (x[3 * j + 2] + sv[2]);
		r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		if (r2 >= c->rc2)
			continue;
		u = 0.5 * fek_pair_table(c, pp->tab, r2, &fr, &low);
		fx += fr * d[0];
		fy += fr * d[1];
		fz += fr * d[2];
		ft[3 * j] -= fr * d[0];
		ft[3 * j + 1] -= fr * d[1];
		ft[3 * j + 2] -= fr * d[2];
		if (et) {
			ue += u;
			et[j] += u;
			uw += 0.5 * fr * r2;
			wt[j] += 0.5 * fr * r2;
		}
	}
	ft[3 * i] += fx;
	ft[3 * i + 1] += fy;
	ft[3 * i + 2] += fz;
	if (et) {
		et[i] += ue;
		wt[i] += uw;
	}
	return low;
}

int
fek_pmd_forces(const struct fek_pairpot *pp, const struct fek_nlist *nl,
    const struct fek_psys *s, int b, struct fek_force_scratch *fs,
    double *f, double *e_i, double *w_i)
{
	const double *x = s->x + 3 * s->n * b;
	const double *shift = nl->shift + 3 * FEK_NL_NCODE * b;
	struct lj_row lj[FEK_PMD_MAXTYPES];
	long n = s->n;
	int low = 0, want_e = e_i != NULL;

	for (int ti = 0; ti < s->ntypes; ti++)
		for (int tj = 0; tj < s->ntypes; tj++) {
			const struct fek_pair_coef *c = &pp->coef[ti *
			    FEK_PMD_MAXTYPES + tj];

			lj[ti].c12[tj] = c->c12;
			lj[ti].c6[tj] = c->c6;
			lj[ti].rc2[tj] = c->rc2;
			lj[ti].sh[tj] = c->ushift;
			lj[ti].fc[tj] = c->fc;
			lj[ti].rc[tj] = c->rc;
			lj[ti].fshift = pp->fshift;
		}
#pragma omp parallel num_threads(fs->nthr) reduction(|:low)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		double *ft = fs->f + 3 * n * t;
		double *et = want_e ? fs->e + n * t : NULL;
		double *wt = want_e ? fs->w + n * t : NULL;

		memset(ft, 0, 3 * n * sizeof *ft);
		if (want_e) {
			memset(et, 0, n * sizeof *et);
			memset(wt, 0, n * sizeof *wt);
		}
#pragma omp barrier
#pragma omp for schedule(static)
		for (long i = 0; i < n; i++) {
			const int *row = nl->nb + (b * n + i) * nl->maxnb;
			int cnt = nl->cnt[b * n + i], ti = s->type[i];

			if (pp->style == FEK_PAIR_TABLE)
				low |= row_table(pp, pp->coef + ti *
				    FEK_PMD_MAXTYPES, s->type, x, shift, row,
				    cnt, i, ft, et, wt);
			else if (s->ntypes == 1)
				row_lj(1, &lj[0], s->type, x, shift, row, cnt,
				    i, ft, et, wt);
			else
				row_lj(0, &lj[ti], s->type, x, shift, row, cnt,
				    i, ft, et, wt);
		}
		/* the threads' sums, in the threads' order (implied barrier
		 * above) */
#pragma omp for schedule(static)
		for (long i = 0; i < n; i++) {
			for (int d = 0; d < 3; d++) {
				double a = 0;

				for (int k = 0; k < nt; k++)
					a += fs->f[3 * n * k + 3 * i + d];
				f[3 * i + d] = a;
			}
			if (want_e) {
				double a = 0, c = 0;

				for (int k = 0; k < nt; k++) {
					a += fs->e[n * k + i];
					c += fs->w[n * k + i];
				}
				e_i[i] = a;
				w_i[i] = c;
			}
		}
	}
	if (low)
		return fek_seterr(FEK_EX_NUMERIC, "box %d: two particles came "
		    "closer than the pair table's first point (the step is "
		    "too long, or the table starts too far out)", b + 1);
	return 0;
}

double
fek_pmd_sum(const double *a, long n)
{
	enum { BLK = 1024 };
	long nblk = (n + BLK - 1) / BLK;
	double s = 0, part[64], *p = nblk <= 64 ? part :
	    fek_alloc(nblk, sizeof *p);

#pragma omp parallel for schedule(static)
	for (long k = 0; k < nblk; k++) {
		double t = 0;
		long hi = (k + 1) * BLK < n ? (k + 1) * BLK : n;

		for (long i = k * BLK; i < hi; i++)
			t += a[i];
		p[k] = t;
	}
	for (long k = 0; k < nblk; k++)
		s += p[k];
	if (p != part)
		free(p);
	return s;
}
