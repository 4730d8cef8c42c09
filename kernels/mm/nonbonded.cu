/*
 * nonbonded.cu - md-gpu --top's short-range non-bonded terms on the GPU
 * (kernels/mm/mm_int.cuh: mm_nonbonded_launch), lib/mm/nonbonded.c's sums with
 * the pair arithmetic of lib/mm/nonbonded_eval.h (the forms and their sources
 * are in nonbonded.c's header), over the buffered Verlet pair list that
 * kernels/mm/nblist.cu keeps on the device (its check, rebuild and rows
 * are described there; kernels/mm/nblist.cuh holds what both files share).
 *
 * Every evaluation, after the list's check and rebuild (mm_nblist_update):
 *  - k_nb_pairs: a warp an atom, its lanes striding along its row, each
 *    pair within the cut-offs summed as nonbonded.c sums it (the force on
 *    the atom; with energies half of each pair's energy and virial), then
 *    the atom's excluded partners' corrections and its self term; its
 *    first thread clears the flag after a build.  A row that outgrew its
 *    room is marked, and that atom searches all atoms instead (slower, as
 *    exact); the host grows the room at its next look
 *    (mm_nonbonded_check).
 *  - or k_nb_pairs_mixed (--precision mixed): the same in single
 *    precision from positions wrapped into the box, erfc by Abramowitz
 *    and Stegun 7.1.26 (absolute error below 1.5e-7, as OpenMM's mixed
 *    precision), each lane's forces summed in single precision; the
 *    excluded pairs, self terms, energies and virial in double.
 * The rows' order comes from the sorted cells (kernels/mm/nblist.cu), so it
 * does not depend on the atomics; every lane's sums run in that order, the
 * lanes' forces are added in a fixed shuffle tree, a block adds its
 * energies and virial in a fixed tree, and forces, energies and virial go
 * to the fixed-point accumulators (kernels/mm/mm_int.cuh): a run gives the same
 * bits every time.
 */
#include <math.h>

#include <cuda_runtime.h>

#include "mm/nonbonded_eval.h"
extern "C" {
#include "core/fek.h"
}
#include "core/cuda_check.cuh"
#include "mm/mm_int.cuh"
#include "mm/nblist.cuh"

#define NB_SUMS 11			/* per block: elj, ec, the virial */

/* A build's end, counted and the flag cleared (by the pair kernels'
 * first thread: nothing reads the flag until the next evaluation). */
static __device__ __forceinline__ void
nb_built(int *flag, unsigned long long *builds)
{
	if (blockIdx.x == 0 && threadIdx.x == 0 && *flag) {
		++*builds;
		*flag = 0;
	}
}

/* One pair of slot w's atom (xi, qi, ti) with slot s, if within rmax:
 * the force on the atom into fi, with EV the energies and virial. */
template <int EV>
static __device__ __forceinline__ void
nb_pair(const struct mm_dev *d, const struct fek_mm_nbpar *p,
    const struct fek_box *b, double rmax2, const double *xi, double qi,
    int ti, int s, const double *xs, const double *qs, const int *ts,
    double *fi, double *elj, double *ec, double *sums)
{
	double dd[3], r2, fij[3];

	for (int a = 0; a < 3; a++)
		dd[a] = xi[a] - xs[3 * s + a];
	fek_box_minimage(b, dd);
	r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
	if (r2 >= rmax2)
		return;
	int tj = ts[s];

	fek_mm_nb_pair(p, d->c6[ti * d->ntype + tj], d->c12[ti * d->ntype +
	    tj], qi * qs[s], r2, dd, elj, ec, fij);
	for (int a = 0; a < 3; a++) {
		fi[a] += fij[a];
		if (EV)
			for (int e = 0; e < 3; e++)
				sums[2 + 3 * a + e] -= 0.25 * dd[a] * fij[e];
	}
}

/* Atom i's excluded partners' corrections (lane's share), as
 * nonbonded.c's: force into fi, energy into *ex, with EV the virial. */
template <int EV>
static __device__ __forceinline__ void
nb_excluded(const struct mm_dev *d, const struct fek_mm_nbpar *p,
    const struct fek_box *b, int i, const double *xi, double qi, int lane,
    double *fi, double *ex, double *sums)
{
	for (long k = d->xstart[i] + lane; k < d->xstart[i + 1]; k += 32) {
		int j = d->xlist[k];
		double dd[3], r2, fij[3];

		for (int a = 0; a < 3; a++)
			dd[a] = xi[a] - d->x[3 * j + a];
		fek_box_minimage(b, dd);
		r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
		fek_mm_nb_excluded(p, qi * d->q[j], r2, dd, ex, fij);
		for (int a = 0; a < 3; a++) {
			fi[a] += fij[a];
			if (EV)
				for (int e = 0; e < 3; e++)
					sums[2 + 3 * a + e] -= 0.25 * dd[a] *
					    fij[e];
		}
	}
}

/* Atom i's warp done: its lanes' forces added in a fixed tree, to the
 * accumulator; with EV half its pairs' energies and its self term into
 * sums. */
template <int EV>
static __device__ __forceinline__ void
nb_atom_end(const struct mm_dev *d, const struct fek_mm_nbpar *p, int i,
    double qi, int lane, double *fi, double elj, double ec, double *sums)
{
	if (EV) {
		sums[0] = 0.5 * elj;
		sums[1] = 0.5 * ec + (lane == 0 ? fek_mm_nb_self(p, qi) : 0);
	}
	for (int a = 0; a < 3; a++)
		fi[a] = mm_wsum(fi[a]);
	if (lane == 0)
		for (int a = 0; a < 3; a++)
			mm_acc(&d->f[3 * i + a], fi[a]);
}

/* fek_mm_nbpar in single precision. */
struct nb_parf {
	int coul, vdw_shift;
	float f, rc2, rv2, beta, sh_ewald, krf, crf, rv6inv, rv12inv;
	float tbs;			/* 2 beta / sqrt(pi) */
};

/* fek_mm_nb_pair in single precision for atom pi with pj (positions in
 * the box, charges in w) if within the cut-offs: the force on pi added to
 * ff; with EV the energies (in double) and the virial. */
template <int EV>
static __device__ __forceinline__ void
nb_pairf(const struct nb_parf *p, const struct fek_boxf *b, float4 pi,
    float4 pj, float c6, float c12, float *ff, double *elj, double *ec,
    double *sums)
{
	float d[3] = { pi.x - pj.x, pi.y - pj.y, pi.z - pj.z }, fs = 0;

	fek_minimagef(b, d);
	float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];

	if (r2 >= p->rc2 && r2 >= p->rv2)
		return;
	float rinv = rsqrtf(r2), rinv2 = rinv * rinv, qq = pi.w * pj.w;

	if (r2 < p->rv2 && (c6 != 0 || c12 != 0)) {
		float ir6 = rinv2 * rinv2 * rinv2, ir12 = ir6 * ir6;

		if (EV)
			*elj += c12 * ir12 - c6 * ir6 - (p->vdw_shift ?
			    c12 * p->rv12inv - c6 * p->rv6inv : 0);
		fs += (12 * c12 * ir12 - 6 * c6 * ir6) * rinv2;
	}
	if (r2 < p->rc2 && qq != 0) {
		float r = r2 * rinv, fq = p->f * qq;

		if (p->coul == FEK_MM_COUL_PME) {
			/* erfc by Abramowitz and Stegun 7.1.26 (absolute
			 * error below 1.5e-7), sharing exp(-(beta r)^2) */
			float br = p->beta * r, ex = __expf(-br * br);
			float t = __frcp_rn(1 + 0.3275911f * br);
			float er = t * (0.254829592f + t * (-0.284496736f +
			    t * (1.421413741f + t * (-1.453152027f + t *
			    1.061405429f)))) * ex;

			if (EV)
				*ec += fq * (er * rinv - p->sh_ewald);
			fs += fq * (er * rinv + p->tbs * ex) * rinv2;
		} else {
			if (EV)
				*ec += fq * (rinv + p->krf * r2 - p->crf);
			fs += fq * (rinv * rinv2 - 2 * p->krf);
		}
	}
	for (int a = 0; a < 3; a++) {
		ff[a] += fs * d[a];
		if (EV)
			for (int e = 0; e < 3; e++)
				sums[2 + 3 * a + e] -= 0.25 * (double)d[a] *
				    (double)(fs * d[e]);
	}
}

/* The block's energies and virial in a fixed tree, then once to the
 * accumulators. */
static __device__ __forceinline__ void
nb_block_sums(const struct mm_dev *d, double (*red)[NB_BLOCK],
    const double *sums, int tid)
{
	for (int k = 0; k < NB_SUMS; k++)
		red[k][tid] = sums[k];
	__syncthreads();
	for (int s = NB_BLOCK / 2; s > 0; s >>= 1) {
		if (tid < s)
			for (int k = 0; k < NB_SUMS; k++)
				red[k][tid] += red[k][tid + s];
		__syncthreads();
	}
	if (tid == 0) {
		mm_acc(&d->acc[MM_ACC_E + FEK_MM_E_LJSR], red[0][0]);
		mm_acc(&d->acc[MM_ACC_E + FEK_MM_E_COULSR], red[1][0]);
		for (int k = 0; k < 9; k++)
			mm_acc(&d->acc[MM_ACC_VIR + k], red[2 + k][0]);
	}
}

template <int EV>
__global__ void __launch_bounds__(NB_BLOCK)
k_nb_pairs(struct mm_dev d, struct fek_mm_nbpar p, struct fek_box b,
    double rmax2, const int *val_s, const double *xs, const double *qs,
    const int *ts, const int *list, int room, const int *nrow, int *flag,
    unsigned long long *builds)
{
	__shared__ double red[NB_SUMS][NB_BLOCK];
	long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, tid = threadIdx.x;
	double fi[3] = { 0, 0, 0 }, sums[NB_SUMS];

	nb_built(flag, builds);
	for (int k = 0; k < NB_SUMS; k++)
		sums[k] = 0;
	if (w < d.n) {
		int i = val_s[w], len = nrow[w];
		double xi[3] = { xs[3 * w], xs[3 * w + 1], xs[3 * w + 2] };
		double qi = qs[w], elj = 0, ec = 0, ex = 0;
		int ti = ts[w];

		if (len >= 0) {
			const int *row = list + w * room;

			for (int k = lane; k < len; k += 32)
				nb_pair<EV>(&d, &p, &b, rmax2, xi, qi, ti,
				    row[k], xs, qs, ts, fi, &elj, &ec, sums);
		} else {
			/* the row outgrew its room: every atom */
			for (int s = lane; s < d.n; s += 32)
				if (s != w && !mm_excluded(d.xstart, d.xlist,
				    i, val_s[s]))
					nb_pair<EV>(&d, &p, &b, rmax2, xi, qi,
					    ti, s, xs, qs, ts, fi, &elj, &ec,
					    sums);
		}
		nb_excluded<EV>(&d, &p, &b, i, xi, qi, lane, fi, &ex, sums);
		nb_atom_end<EV>(&d, &p, i, qi, lane, fi, elj, ec + ex, sums);
	}
	if (EV)
		nb_block_sums(&d, red, sums, tid);
}

/* k_nb_pairs in mixed arithmetic: the pairs in single precision (the
 * positions wrapped into the box, pf), each lane's forces summed in
 * single precision, then as k_nb_pairs; energies and virial summed in
 * double. */
template <int EV>
__global__ void __launch_bounds__(NB_BLOCK)
k_nb_pairs_mixed(struct mm_dev d, struct fek_mm_nbpar p, struct nb_parf pf32,
    struct fek_box b, struct fek_boxf bf, const int *val_s, const float4 *pf,
    const int *ts, const float *c6f, const float *c12f, const int *list,
    int room, const int *nrow, int *flag, unsigned long long *builds)
{
	__shared__ double red[NB_SUMS][NB_BLOCK];
	long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, tid = threadIdx.x;
	double fi[3], sums[NB_SUMS];

	nb_built(flag, builds);
	for (int k = 0; k < NB_SUMS; k++)
		sums[k] = 0;
	if (w < d.n) {
		int i = val_s[w], len = nrow[w], ti = ts[w], nt = d.ntype;
		float4 pi = pf[w];
		float ff[3] = { 0, 0, 0 };
		double elj = 0, ec = 0, ex = 0;
		const float *c6i = c6f + ti * nt, *c12i = c12f + ti * nt;

		if (len >= 0) {
			const int *row = list + w * room;

#pragma unroll 2
			for (int k = lane; k < len; k += 32) {
				int s = row[k];

				nb_pairf<EV>(&pf32, &bf, pi, pf[s], c6i[ts[s]],
				    c12i[ts[s]], ff, &elj, &ec, sums);
			}
		} else {
			/* the row outgrew its room: every atom */
			for (int s = lane; s < d.n; s += 32)
				if (s != w && !mm_excluded(d.xstart, d.xlist,
				    i, val_s[s]))
					nb_pairf<EV>(&pf32, &bf, pi, pf[s],
					    c6i[ts[s]], c12i[ts[s]], ff, &elj,
					    &ec, sums);
		}
		for (int a = 0; a < 3; a++)
			fi[a] = ff[a];
		nb_excluded<EV>(&d, &p, &b, i, d.x + 3 * i, d.q[i], lane, fi,
		    &ex, sums);
		nb_atom_end<EV>(&d, &p, i, d.q[i], lane, fi, elj, ec + ex,
		    sums);
	}
	if (EV)
		nb_block_sums(&d, red, sums, tid);
}

/* ---- the host ------------------------------------------------------------ */

/* p, b in single precision. */
static void
nb_single(const struct fek_mm_nbpar *p, const struct fek_box *b,
    struct nb_parf *pf, struct fek_boxf *bf)
{
	pf->coul = p->coul;
	pf->vdw_shift = p->vdw_shift;
	pf->f = (float)p->f;
	pf->rc2 = (float)p->rc2;
	pf->rv2 = (float)p->rv2;
	pf->beta = (float)p->beta;
	pf->sh_ewald = (float)p->sh_ewald;
	pf->krf = (float)p->krf;
	pf->crf = (float)p->crf;
	pf->rv6inv = (float)p->rv6inv;
	pf->rv12inv = (float)p->rv12inv;
	pf->tbs = (float)(2 * p->beta / sqrt(M_PI));
	*bf = fek_box_single(b);
}

int
mm_nonbonded_launch(struct mm_nblist **lp, const struct mm_dev *d,
    const struct fek_mm_opt *o, double skin, const struct fek_box *b, int ev)
{
	struct fek_mm_nbpar p;
	struct nb_parf pf;
	struct fek_boxf bf;
	struct mm_nblist *l;
	double rmax = fmax(o->rcoulomb, o->rvdw);
	long n = d->n;
	int mixed = o->mixed;

	if (n == 0)
		return 0;
	fek_mm_nb_setup(o, &p);
	nb_single(&p, b, &pf, &bf);
	if (mm_nblist_update(lp, d, rmax, skin, b, mixed, &bf) < 0)
		return -1;
	l = *lp;
	if (mixed && ev)
		k_nb_pairs_mixed<1><<<WGRID(n)>>>(*d, p, pf, *b, bf, l->val_s,
		    l->pf, l->ts, l->c6f, l->c12f, l->list, l->room, l->nrow,
		    l->flag, l->builds);
	else if (mixed)
		k_nb_pairs_mixed<0><<<WGRID(n)>>>(*d, p, pf, *b, bf, l->val_s,
		    l->pf, l->ts, l->c6f, l->c12f, l->list, l->room, l->nrow,
		    l->flag, l->builds);
	else if (ev)
		k_nb_pairs<1><<<WGRID(n)>>>(*d, p, *b, rmax * rmax, l->val_s,
		    l->xs, l->qs, l->ts, l->list, l->room, l->nrow, l->flag,
		    l->builds);
	else
		k_nb_pairs<0><<<WGRID(n)>>>(*d, p, *b, rmax * rmax, l->val_s,
		    l->xs, l->qs, l->ts, l->list, l->room, l->nrow, l->flag,
		    l->builds);
	return fek_cuda_launched("non-bonded pairs");
}
