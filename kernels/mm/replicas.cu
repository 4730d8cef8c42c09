/*
 * replicas.cu - md-gpu --top -R on the GPU: many independent replicas of
 * one small molecular system (a peptide in vacuum, say) integrated for
 * many steps in one launch (lib/mm/mm_gpu.h's fek_mm_gpu_replicas_run), the GPU
 * twin of lib/mm/replicas.c, which runs each replica through run.c.  The
 * physics and its sources are theirs: Langevin "middle" (Zhang et al.,
 * J. Phys. Chem. A 123, 6056 (2019)) or velocity Verlet, SHAKE and
 * RATTLE (Ryckaert et al. 1977; Andersen 1983) for the FEK_MM_CONSTR
 * bonds, the bonded terms of lib/mm/bonded_eval.h, the pairs of
 * lib/mm/nonbonded_eval.h (cut-off or reaction field; no PME), torsion
 * restraints of replicas.c.  The normals are Philox's (key_r, atom, step)
 * draws of lib/pmd/pmd_eval.h, the CPU's numbers, so a replica follows
 * its CPU twin until rounding grows (chaos) and not only in
 * distribution.
 *
 * Layout: a warp a replica, WPB replicas a block; a replica's positions,
 * velocities and force accumulators live in shared memory for the whole
 * launch.  Its lanes take the non-excluded pairs (a list made once on the
 * host, with c6, c12 and qq), the excluded pairs' corrections and the
 * bonded interactions in strides of 32, and add forces to 64-bit
 * fixed-point accumulators (2^-32 kJ/mol/nm, as kernels/mm/energy.cu) with
 * shared-memory integer atomics, so the sum does not depend on the order
 * of the lanes: a run gives the same bits every time.  Atoms go a lane
 * each for the updates.  Constraints are split on the host into their
 * connected clusters (a heavy atom and its hydrogens under h-bonds); a
 * lane a cluster iterates SHAKE (and RATTLE) over its bonds in the CPU's
 * order until each is within the tolerance, which is the CPU's sweep
 * restricted to the cluster (the CPU stops when every cluster is done,
 * so the two differ below the tolerance).
 *
 * Step 0 first makes the constraints hold (positions from themselves,
 * then velocities), as run.c does.  A launch runs at most CHUNK steps (the host loops, reports progress and
 * checks a SHAKE failure flag between launches); the forces at a launch's
 * first positions are evaluated afresh, the same numbers as the ones the
 * last launch ended with.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "mm/bonded_eval.h"
#include "mm/nonbonded_eval.h"
/* Random123's philox.h is C++ here: outside the extern "C" block. */
#include "particles/rng_eval.h"
extern "C" {
#include "core/fek.h"
#include "particles/particles.h"
}
#include "core/cuda_check.cuh"
#include "mm/mm_int.cuh"
#include "mm/constr.cuh"
#include "mm/mm_gpu.h"

#define WARP 32
#define WPB 4			/* replicas (warps) a block */
#define MAXN 320		/* atoms a replica (shared memory) */
#define CHUNK 5000		/* steps a launch */
#define FULL 0xffffffffu
#define DEG (180 / M_PI)

/* One bonded interaction: kind, atoms, parameters. */
struct bint {
	int kind, at[4];
	double par[6];
};

/* What every replica shares (device pointers). */
struct bdev {
	int n, npair, nexcl, nbint, ncl, ncv, integ, nrep;
	double dt, a, kT, eps_r, tol;
	double rmax2;
	struct fek_mm_nbpar nb;
	struct fek_box box;
	const double *im;		/* n: 1/m (0: massless) */
	const int2 *pij;		/* npair */
	const double *ppar;		/* npair x 3: c6, c12, qq */
	const int2 *eij;		/* nexcl */
	const double *eqq;		/* nexcl */
	const struct bint *bi;		/* nbint */
	const int *clstart;		/* ncl + 1 */
	const int2 *cij;		/* constraints in cluster order */
	const double *cd;		/* their lengths */
	int ncon;
	int cvat[FEK_MM_MAXCV][4];
	const double *centre, *spring;	/* nwin x ncv (NULL: none) */
	const unsigned long long *key;	/* replica keys */
	double *x, *v;			/* R x n x 3 */
	double *samples;		/* R x nsamp x ncv */
	long long nsamp, first, every;
	int *fail;			/* 0, or 1 + the first failing replica */
};

/* A warp's sum, the same tree every time. */
/* The forces at x into fa (fixed point); the window's restraints. */
static __device__ void
forces(const struct bdev *d, int lane, const double *x,
    unsigned long long *fa, const double *centre, const double *spring)
{
	int n = d->n;

	for (int k = lane; k < 3 * n; k += WARP)
		fa[k] = 0;
	__syncwarp();
	for (int k = lane; k < d->npair; k += WARP) {
		int2 p = d->pij[k];
		double dd[3], r2, fi[3], elj = 0, ec = 0;

		fek_vimage(&d->box, x, p.x, p.y, dd);
		r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
		if (r2 >= d->rmax2)
			continue;
		fek_mm_nb_pair(&d->nb, d->ppar[3 * k], d->ppar[3 * k + 1],
		    d->ppar[3 * k + 2], r2, dd, &elj, &ec, fi);
		for (int c = 0; c < 3; c++) {
			mm_acc(&fa[3 * p.x + c], fi[c]);
			mm_acc(&fa[3 * p.y + c], -fi[c]);
		}
	}
	for (int k = lane; k < d->nexcl; k += WARP) {
		int2 p = d->eij[k];
		double dd[3], r2, fi[3], ec = 0;

		fek_vimage(&d->box, x, p.x, p.y, dd);
		r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
		fek_mm_nb_excluded(&d->nb, d->eqq[k], r2, dd, &ec, fi);
		for (int c = 0; c < 3; c++) {
			mm_acc(&fa[3 * p.x + c], fi[c]);
			mm_acc(&fa[3 * p.y + c], -fi[c]);
		}
	}
	for (int k = lane; k < d->nbint + (centre ? d->ncv : 0); k += WARP) {
		double f4[4][3], vir[9];
		int kind, na;
		const int *at;
		double rpar[2];
		const double *par;

		if (k < d->nbint) {
			kind = d->bi[k].kind;
			at = d->bi[k].at;
			par = d->bi[k].par;
		} else {
			int c = k - d->nbint;

			kind = FEK_MM_IDIH;
			at = d->cvat[c];
			rpar[0] = centre[c] / DEG;
			rpar[1] = spring[c] * DEG * DEG;
			par = rpar;
		}
		na = kind == FEK_MM_BOND || kind == FEK_MM_PAIR ? 2 :
		    kind == FEK_MM_ANGLE || kind == FEK_MM_UB ? 3 : 4;
		if (na == 2) {
			double r[3];

			fek_vimage(&d->box, x, at[0], at[1], r);
			if (kind == FEK_MM_BOND) {
				(void)fek_mm_bond_eval(r, par, f4, vir);
			} else {
				double uc;

				(void)fek_mm_pair_eval(r, par, d->eps_r, &uc,
				    f4, vir);
			}
		} else if (na == 3) {
			double rij[3], rkj[3];

			fek_vimage(&d->box, x, at[0], at[1], rij);
			fek_vimage(&d->box, x, at[2], at[1], rkj);
			(void)(kind == FEK_MM_UB ? fek_mm_ub_eval(rij, rkj,
			    par, f4, vir) : fek_mm_angle_eval(rij, rkj, par,
			    f4, vir));
		} else {
			double b1[3], b2[3], b3[3];

			fek_vimage(&d->box, x, at[1], at[0], b1);
			fek_vimage(&d->box, x, at[2], at[1], b2);
			fek_vimage(&d->box, x, at[3], at[2], b3);
			(void)fek_mm_dih_eval(kind, b1, b2, b3, par, f4,
			    vir);
		}
		for (int a = 0; a < na; a++)
			for (int c = 0; c < 3; c++)
				mm_acc(&fa[3 * at[a] + c], f4[a][c]);
	}
	__syncwarp();
}

/* SHAKE of cluster c's bonds: x from xref; 0, or -1 on failure. */
static __device__ int
shake(const struct bdev *d, int c, const double *xref, double *x)
{
	int lo = d->clstart[c];

	return mm_shake_cluster(d->clstart[c + 1] - lo, d->cij + lo, d->cd +
	    lo, d->im, &d->box, d->tol, xref, x);
}

/* RATTLE of cluster c's bonds at x: v; 0, or -1 on failure. */
static __device__ int
rattle(const struct bdev *d, int c, const double *x, double *v, double vtol)
{
	int lo = d->clstart[c];

	return mm_rattle_cluster(d->clstart[c + 1] - lo, d->cij + lo, d->im,
	    &d->box, vtol, x, v);
}

/* The velocity constraints of every cluster (RATTLE's tolerance from the
 * root mean square speed of the constrained atoms, as constr.c). */
static __device__ int
vconstrain(const struct bdev *d, int lane, const double *x, double *v)
{
	double u2 = 0, vtol;
	int bad = 0;

	if (d->ncon == 0)
		return 0;
	for (int k = lane; k < d->ncon; k += WARP) {
		int i = d->cij[k].x, j = d->cij[k].y;

		for (int e = 0; e < 3; e++)
			u2 += v[3 * i + e] * v[3 * i + e] + v[3 * j + e] *
			    v[3 * j + e];
	}
	u2 = mm_wsum(u2);
	if (u2 == 0)
		return 0;
	vtol = d->tol * sqrt(u2 / (2 * d->ncon));
	for (int c = lane; c < d->ncl; c += WARP)
		bad |= rattle(d, c, x, v, vtol) < 0;
	__syncwarp();
	return __any_sync(FULL, bad) ? -1 : 0;
}

/* The position constraints of every cluster from xref; with v, the
 * moves / dt into v (xs: scratch). */
static __device__ int
xconstrain(const struct bdev *d, int lane, const double *xref, double *x,
    double *v, double *xs)
{
	int bad = 0;

	if (d->ncon == 0)
		return 0;
	for (int k = lane; k < 3 * d->n && v != NULL; k += WARP)
		xs[k] = x[k];
	__syncwarp();
	for (int c = lane; c < d->ncl; c += WARP)
		bad |= shake(d, c, xref, x) < 0;
	__syncwarp();
	for (int k = lane; k < 3 * d->n && v != NULL; k += WARP)
		v[k] += (x[k] - xs[k]) / d->dt;
	__syncwarp();
	return __any_sync(FULL, bad) ? -1 : 0;
}

static __device__ void
sample(const struct bdev *d, int lane, long r, long long s, const double *x)
{
	if (s < d->first || (s - d->first) % d->every != 0)
		return;
	if (lane < d->ncv) {
		const int *at = d->cvat[lane];
		double b1[3], b2[3], b3[3];
		long long idx = (s - d->first) / d->every;

		fek_vimage(&d->box, x, at[1], at[0], b1);
		fek_vimage(&d->box, x, at[2], at[1], b2);
		fek_vimage(&d->box, x, at[3], at[2], b3);
		if (idx < d->nsamp)
			d->samples[(r * d->nsamp + idx) * d->ncv + lane] =
			    fek_mm_dih_angle(b1, b2, b3) * DEG;
	}
}

/*
 * Steps s0 .. s1 - 1 of every replica (samples at s0 .. s1, s1 only when
 * it is the last step, last).
 */
static __global__ void
k_batch(struct bdev d, long R, long long s0, long long s1, int last)
{
	extern __shared__ double sh[];
	int w = threadIdx.x / WARP, lane = threadIdx.x % WARP, n = d.n;
	long r = (long)blockIdx.x * WPB + w;
	double *x, *v, *xo, *xs;
	unsigned long long *fa;
	const double *centre = NULL, *spring = NULL;
	unsigned long long key;
	int bad = 0;

	if (r >= R)
		return;
	x = sh + (size_t)w * 15 * n;
	v = x + 3 * n;
	xo = v + 3 * n;
	xs = xo + 3 * n;
	fa = (unsigned long long *)(xs + 3 * n);
	key = d.key[r];
	if (d.centre != NULL) {
		centre = d.centre + (r / d.nrep) * d.ncv;
		spring = d.spring + (r / d.nrep) * d.ncv;
	}
	for (int k = lane; k < 3 * n; k += WARP) {
		x[k] = d.x[r * 3 * n + k];
		v[k] = d.v[r * 3 * n + k];
	}
	__syncwarp();
	if (s0 == 0) {
		/* the start, as run.c's: the constraints made to hold by x
		 * (from itself) and by v */
		for (int k = lane; k < 3 * n; k += WARP)
			xo[k] = x[k];
		__syncwarp();
		bad |= xconstrain(&d, lane, xo, x, NULL, xs);
		bad |= vconstrain(&d, lane, x, v);
	}
	forces(&d, lane, x, fa, centre, spring);
	for (long long s = s0; !bad; s++) {
		if (s < s1 || last)
			sample(&d, lane, r, s, x);
		if (s == s1)
			break;
		if (d.integ == FEK_MM_INT_VV) {
			for (int k = lane; k < 3 * n; k += WARP) {
				v[k] += 0.5 * d.dt * mm_acc_value(fa[k]) * d.im[k / 3];
				xo[k] = x[k];
				x[k] += d.dt * v[k];
			}
			__syncwarp();
			bad |= xconstrain(&d, lane, xo, x, v, xs);
			forces(&d, lane, x, fa, centre, spring);
			for (int k = lane; k < 3 * n; k += WARP)
				v[k] += 0.5 * d.dt * mm_acc_value(fa[k]) * d.im[k / 3];
			__syncwarp();
			bad |= vconstrain(&d, lane, x, v);
		} else {
			for (int k = lane; k < 3 * n; k += WARP)
				v[k] += d.dt * mm_acc_value(fa[k]) * d.im[k / 3];
			__syncwarp();
			bad |= vconstrain(&d, lane, x, v);
			for (int i = lane; i < n; i += WARP) {
				double z[4], sd;

				for (int e = 0; e < 3; e++) {
					xo[3 * i + e] = x[3 * i + e];
					x[3 * i + e] += 0.5 * d.dt *
					    v[3 * i + e];
				}
				if (d.im[i] == 0)
					continue;
				fek_rng_normals4(key, (uint32_t)i, 0,
				    (uint64_t)s, FEK_RNG_LANGEVIN, 0, z);
				sd = sqrt((1 - d.a * d.a) * d.kT * d.im[i]);
				for (int e = 0; e < 3; e++) {
					v[3 * i + e] = d.a * v[3 * i + e] +
					    sd * z[e];
					x[3 * i + e] += 0.5 * d.dt *
					    v[3 * i + e];
				}
			}
			__syncwarp();
			bad |= xconstrain(&d, lane, xo, x, v, xs);
			forces(&d, lane, x, fa, centre, spring);
		}
	}
	if (bad && lane == 0)
		atomicCAS(d.fail, 0, (int)(r + 1));
	__syncwarp();
	for (int k = lane; k < 3 * n; k += WARP) {
		d.x[r * 3 * n + k] = x[k];
		d.v[r * 3 * n + k] = v[k];
	}
}

/* ---- the host ------------------------------------------------------------ */

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { fek_cuda_fail(e_, what); goto fail; } } \
	while (0)

static int
is_excluded(const struct fek_mm_top *t, long i, long j)
{
	for (long k = t->xstart[i]; k < t->xstart[i + 1]; k++)
		if (t->xlist[k] == j)
			return 1;
	return 0;
}

extern "C" int
fek_mm_gpu_replicas_run(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *p, const struct fek_mm_cvset *cv,
    const struct fek_mm_batch *bt, const struct fek_box *b, double *x,
    double *v, double *samples, void (*progress)(long done, long total))
{
	long n = t->n, R = bt->nrep * bt->nwin, np = 0, ne = 0, nbi = 0;
	long long nsamp = fek_mm_batch_nsamp(bt, p->nsteps);
	struct bdev d;
	int ndev = 0, rc = -1, fail = 0, *clp = NULL, *cat = NULL;
	int2 *pij = NULL, *eij = NULL;
	struct fek_mm_constr *cc = NULL;
	double *ppar = NULL, *eqq = NULL, *cd = NULL;
	struct bint *bi = NULL;
	unsigned long long *keys = NULL;
	size_t shmem;
	int ncon = (int)t->il[FEK_MM_CONSTR].n, ncl = 0;
	double rmax;

	memset(&d, 0, sizeof d);
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
		return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: no CUDA device");
	if (o->coulombtype == FEK_MM_COUL_PME)
		return fek_seterr(FEK_EX_USAGE, "-R on the GPU: coulombtype "
		    "PME is not batched (use cut-off or reaction-field, or "
		    "-d cpu)");
	if (t->il[FEK_MM_SETTLE].n > 0 || t->il[FEK_MM_VSITE3].n > 0)
		return fek_seterr(FEK_EX_USAGE, "-R on the GPU: settles and "
		    "virtual sites are not batched (-d cpu runs them)");
	if (n < 1 || n > MAXN)
		return fek_seterr(FEK_EX_USAGE, "-R on the GPU: %ld atoms; a "
		    "batched replica has 1 to %d", n, MAXN);
	if (p->integrator == FEK_MM_INT_VV && p->tcoupl != FEK_MM_TC_NONE)
		return fek_seterr(FEK_EX_USAGE, "-R: v-rescale is not "
		    "batched (use -i langevin)");

	/* pairs, exclusions, bonded interactions */
	pij = (int2 *)fek_alloc(n * (n - 1) / 2 + 1, sizeof *pij);
	ppar = (double *)fek_alloc(3 * (n * (n - 1) / 2 + 1), sizeof *ppar);
	eij = (int2 *)fek_alloc(t->xstart[n] + 1, sizeof *eij);
	eqq = (double *)fek_alloc(t->xstart[n] + 1, sizeof *eqq);
	for (long i = 0; i < n; i++)
		for (long j = i + 1; j < n; j++) {
			double qq = t->q[i] * t->q[j];

			if (is_excluded(t, i, j)) {
				eij[ne].x = (int)i;
				eij[ne].y = (int)j;
				eqq[ne++] = qq;
				continue;
			}
			pij[np].x = (int)i;
			pij[np].y = (int)j;
			ppar[3 * np] = t->c6[t->type[i] * t->ntype + t->type[j]];
			ppar[3 * np + 1] = t->c12[t->type[i] * t->ntype +
			    t->type[j]];
			ppar[3 * np + 2] = qq;
			np++;
		}
	for (int k = FEK_MM_BOND; k <= FEK_MM_PAIR; k++)
		nbi += t->il[k].n;
	bi = (struct bint *)fek_alloc(nbi + 1, sizeof *bi);
	nbi = 0;
	for (int k = FEK_MM_BOND; k <= FEK_MM_PAIR; k++)
		for (long m = 0; m < t->il[k].n; m++, nbi++) {
			bi[nbi].kind = k;
			for (int a = 0; a < fek_mm_nat[k]; a++)
				bi[nbi].at[a] = t->il[k].atoms[m *
				    fek_mm_nat[k] + a];
			for (int q = 0; q < fek_mm_npar[k]; q++)
				bi[nbi].par[q] = t->il[k].par[m *
				    fek_mm_npar[k] + q];
		}

	/* constraints into connected clusters (constr.c), each in the
	 * CPU's order; fek_mm_constr_new checks their atoms' masses */
	if (ncon > 0) {
		if ((cc = fek_mm_constr_new(t, p->constr_tol)) == NULL)
			goto out;
		ncl = fek_mm_constr_clusters(cc, &clp, &cat, &cd);
	}

	d.n = (int)n;
	d.npair = (int)np;
	d.nexcl = (int)ne;
	d.nbint = (int)nbi;
	d.ncl = ncl;
	d.ncon = ncon;
	d.ncv = cv->ncv;
	memcpy(d.cvat, cv->atoms, sizeof d.cvat);
	d.integ = p->integrator;
	d.nrep = (int)bt->nrep;
	d.dt = p->dt;
	d.a = exp(-p->gamma * p->dt);
	d.kT = p->kT;
	d.eps_r = o->epsilon_r;
	d.tol = p->constr_tol;
	rmax = fmax(o->rcoulomb, o->rvdw);
	d.rmax2 = rmax * rmax;
	fek_mm_nb_setup(o, &d.nb);
	d.box = *b;
	d.nsamp = nsamp;
	d.every = bt->every;
	d.first = (bt->skip + bt->every - 1) / bt->every * bt->every;
	keys = (unsigned long long *)fek_alloc(R, sizeof *keys);
	for (long r = 0; r < R; r++)
		keys[r] = fek_mm_replica_key(p->key, r);
	{
		double *im = (double *)fek_alloc(n, sizeof *im);
		cudaError_t e = cudaSuccess;

		for (long i = 0; i < n; i++)
			im[i] = t->mass[i] > 0 ? 1 / t->mass[i] : 0;
		e = fek_cuda_up((void **)&d.im, im, n * sizeof *im);
		free(im);
		CK(e, "masses");
	}
	CK(fek_cuda_up((void **)&d.pij, pij, np * sizeof *pij), "pairs");
	CK(fek_cuda_up((void **)&d.ppar, ppar, 3 * np * sizeof *ppar), "pairs");
	CK(fek_cuda_up((void **)&d.eij, eij, ne * sizeof *eij), "exclusions");
	CK(fek_cuda_up((void **)&d.eqq, eqq, ne * sizeof *eqq), "exclusions");
	CK(fek_cuda_up((void **)&d.bi, bi, nbi * sizeof *bi), "bonded");
	/* without constraints (the .mdp's default, constraints = none) there
	 * are no clusters and clp is NULL: nothing to copy, as run.cu */
	if (ncl > 0) {
		CK(fek_cuda_up((void **)&d.clstart, clp, (ncl + 1) *
		    sizeof *clp), "constraints");
		CK(fek_cuda_up((void **)&d.cij, cat, ncon * sizeof(int2)),
		    "constraints");
		CK(fek_cuda_up((void **)&d.cd, cd, ncon * sizeof *cd),
		    "constraints");
	}
	if (bt->centre != NULL) {
		CK(fek_cuda_up((void **)&d.centre, bt->centre, bt->nwin * cv->ncv *
		    sizeof(double)), "windows");
		CK(fek_cuda_up((void **)&d.spring, bt->spring, bt->nwin * cv->ncv *
		    sizeof(double)), "windows");
	}
	CK(fek_cuda_up((void **)&d.key, keys, R * sizeof *keys), "keys");
	/* every replica starts from x's first configuration */
	for (long r = 1; r < R; r++)
		memcpy(x + r * 3 * n, x, 3 * n * sizeof *x);
	CK(fek_cuda_up((void **)&d.x, x, R * 3 * n * sizeof *x), "positions");
	CK(fek_cuda_up((void **)&d.v, v, R * 3 * n * sizeof *v), "velocities");
	CK(cudaMalloc((void **)&d.samples, (R * nsamp * cv->ncv > 0 ? R *
	    nsamp * cv->ncv : 1) * sizeof(double)), "samples");
	CK(cudaMalloc((void **)&d.fail, sizeof(int)), "flag");
	CK(cudaMemset(d.fail, 0, sizeof(int)), "flag");

	shmem = (size_t)WPB * 15 * n * sizeof(double);
	if (shmem > 48 * 1024)
		CK(cudaFuncSetAttribute(k_batch,
		    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem),
		    "shared memory");
	for (long long s0 = 0; s0 < p->nsteps || s0 == 0; s0 += CHUNK) {
		long long s1 = s0 + CHUNK < p->nsteps ? s0 + CHUNK :
		    p->nsteps;

		k_batch<<<(unsigned)((R + WPB - 1) / WPB), WPB * WARP,
		    shmem>>>(d, R, s0, s1, s1 == p->nsteps);
		if (fek_cuda_launched("replicas") < 0)
			goto out;
		CK(cudaMemcpy(&fail, d.fail, sizeof fail,
		    cudaMemcpyDeviceToHost), "flag");
		if (fail) {
			fek_seterr(FEK_EX_NUMERIC, "replica %d: SHAKE or RATTLE "
			    "did not converge by step %lld (is the time step "
			    "too large?)", fail, s1);
			goto out;
		}
		if (progress != NULL)
			progress((long)(s1 / (double)(p->nsteps > 0 ?
			    p->nsteps : 1) * R), R);
		if (s1 == p->nsteps)
			break;
	}
	CK(cudaMemcpy(x, d.x, R * 3 * n * sizeof *x, cudaMemcpyDeviceToHost),
	    "positions");
	CK(cudaMemcpy(v, d.v, R * 3 * n * sizeof *v, cudaMemcpyDeviceToHost),
	    "velocities");
	if (R * nsamp * cv->ncv > 0)
		CK(cudaMemcpy(samples, d.samples, R * nsamp * cv->ncv *
		    sizeof(double), cudaMemcpyDeviceToHost), "samples");
	rc = 0;
	goto out;
fail:
	rc = -1;
out:
	cudaFree((void *)d.im);
	cudaFree((void *)d.pij);
	cudaFree((void *)d.ppar);
	cudaFree((void *)d.eij);
	cudaFree((void *)d.eqq);
	cudaFree((void *)d.bi);
	cudaFree((void *)d.clstart);
	cudaFree((void *)d.cij);
	cudaFree((void *)d.cd);
	cudaFree((void *)d.centre);
	cudaFree((void *)d.spring);
	cudaFree((void *)d.key);
	cudaFree(d.x);
	cudaFree(d.v);
	cudaFree(d.samples);
	cudaFree(d.fail);
	free(pij);
	free(ppar);
	free(eij);
	free(eqq);
	free(bi);
	free(clp);
	free(cat);
	fek_mm_constr_free(cc);
	free(cd);
	free(keys);
	return rc;
}
