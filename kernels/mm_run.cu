/*
 * mm_run.cu - md-gpu --top's dynamics resident on the GPU (mm.cuh's
 * fek_mm_gpu_run): lib/mm/run.c's integrators, step for step, with the
 * positions, velocities and forces kept on the device; the host sees
 * them only at the log's and the frames' steps.
 *
 *   velocity Verlet with RATTLE (Swope et al., J. Chem. Phys. 76, 637
 *     (1982); Andersen, J. Comput. Phys. 52, 24 (1983)) and Langevin
 *     "middle" (Zhang et al., J. Phys. Chem. A 123, 6056 (2019)), with
 *     run.c's Philox normals (key, atom, step): the same trajectory as
 *     the CPU's until rounding grows;
 *   SETTLE for rigid waters (Miyamoto and Kollman, J. Comput. Chem. 13,
 *     952 (1992)), a thread a water, with lib/mm/settle_eval.h's
 *     arithmetic, constr.c's own;
 *   SHAKE and RATTLE for the other constraints (Ryckaert et al., J.
 *     Comput. Phys. 23, 327 (1977)), split on the host into connected
 *     clusters (a heavy atom and its hydrogens under h-bonds), a thread a
 *     cluster iterating over its bonds in constr.c's order until each
 *     is within the tolerance (mm_constr.cuh), on a copy of the
 *     cluster's atoms in local memory when it has at most CL_MAXA;
 *     one launch does the clusters and the waters (k_xconstr, k_vconstr:
 *     the clusters' long sweeps overlap the waters), and adds each
 *     constrained atom's move / dt to its velocity (run.c's correction,
 *     which leaves the others unchanged).  RATTLE's tolerance is taken from the root
 *     mean square speed of the cluster's own atoms, where constr.c takes
 *     all constrained atoms': both stop below tol relative;
 *   the forces of mm.cu (mm_gpu_forces), virtual sites placed from their
 *     atoms after every move.
 *
 * A constraint that fails sets a flag that the host reads every 100
 * steps and at each log or frame: the run then stops (exit 1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "mm/settle_eval.h"
#include "mm/vec3.h"
extern "C" {
#include "fek.h"
#include "md/pmd.h"
}
#include "cuda_check.cuh"
#include "mm_int.cuh"
#include "mm_constr.cuh"
#include "mm.cuh"

#define RUN_BLOCK 128
#define CL_MAXA 8			/* atoms of a cluster copied to local
					   memory, at most */
#define CL_MAXB 8			/* its bonds likewise */
#define CHECK_EVERY 100			/* steps between looks at the flag */

/* The run's own device arrays. */
struct run_dev {
	long n, nsettle;
	int ncl;
	double *v, *xold, *xs, *im;	/* 3n, 3n, 3n, n */
	struct fek_mm_settle *settle;
	int *clstart;			/* ncl + 1 */
	int2 *cij;			/* bonds in cluster order */
	double *cd;			/* their lengths */
	int *fail;
};

static __global__ void
k_kick(long n3, const unsigned long long *f, const double *im, double *v,
    double h)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k < n3)
		v[k] += h * mm_acc_value(f[k]) * im[k / 3];
}

/* Velocity Verlet's drift: xold = x; x += dt v. */
static __global__ void
k_drift(long n3, double *x, const double *v, double *xold, double dt)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k < n3) {
		xold[k] = x[k];
		x[k] += dt * v[k];
	}
}

/* Langevin middle's x += dt/2 v; v = a v + sqrt((1 - a^2) kT / m) xi;
 * x += dt/2 v, an atom a thread (xold = x first). */
static __global__ void
k_middle(long n, double *x, double *v, double *xold, const double *im,
    double a, double kT, unsigned long long key, long long step, double dt)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double z[4], s;

	if (i >= n)
		return;
	for (int e = 0; e < 3; e++) {
		xold[3 * i + e] = x[3 * i + e];
		x[3 * i + e] += 0.5 * dt * v[3 * i + e];
	}
	if (im[i] == 0)
		return;
	fek_pmd_normals4(key, (uint32_t)i, 0, (uint64_t)step,
	    FEK_RNG_LANGEVIN, 0, z);
	s = sqrt((1 - a * a) * kT * im[i]);
	for (int e = 0; e < 3; e++) {
		v[3 * i + e] = a * v[3 * i + e] + s * z[e];
		x[3 * i + e] += 0.5 * dt * v[3 * i + e];
	}
}

static __global__ void
k_copy(long n3, const double *from, double *to)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k < n3)
		to[k] = from[k];
}

/* The constraints' moves / dt into v (0 for the unconstrained). */
/* Cluster c's bonds (cij[lo .. lo + nb - 1]) renumbered over a compact
 * list of its atoms ga: their count, or 0 if more than CL_MAXA. */
static __device__ __forceinline__ int
cl_compact(const int2 *cij, int lo, int nb, int *ga, int2 *ij)
{
	int na = 0;

	for (int k = 0; k < nb; k++) {
		int e[2] = { cij[lo + k].x, cij[lo + k].y }, l[2];

		for (int s = 0; s < 2; s++) {
			int a = 0;

			while (a < na && ga[a] != e[s])
				a++;
			if (a == na) {
				if (na == CL_MAXA)
					return 0;
				ga[na++] = e[s];
			}
			l[s] = a;
		}
		ij[k] = make_int2(l[0], l[1]);
	}
	return na;
}

/* SHAKE of cluster c's bonds: x from xref (mm_constr.cuh), on a compact
 * copy of its atoms where it has few, else in place (xs: scratch); with
 * v, the moves / dt added to v.  -1 on failure. */
static __device__ int
shake_one(int c, const int *clstart, const int2 *cij, const double *cd,
    const double *im, const struct fek_box *b, double tol,
    const double *xref, double *x, double *xs, double *v, double dt)
{
	int ga[CL_MAXA], na = 0, lo = clstart[c], nb = clstart[c + 1] - lo, rc;
	int2 ij[CL_MAXB];
	double xl[3 * CL_MAXA], xr[3 * CL_MAXA], iml[CL_MAXA];

	if (nb <= CL_MAXB)
		na = cl_compact(cij, lo, nb, ga, ij);
	if (na == 0) {
		for (int k = lo; k < lo + nb && v != NULL; k++)
			for (int e = 0; e < 3; e++) {
				xs[3 * cij[k].x + e] = x[3 * cij[k].x + e];
				xs[3 * cij[k].y + e] = x[3 * cij[k].y + e];
			}
		rc = mm_shake_cluster(nb, cij + lo, cd + lo, im, b, tol, xref,
		    x);
		/* an atom of several bonds is corrected once: from xs, which
		 * the first correction leaves equal to x */
		for (int k = lo; k < lo + nb && v != NULL; k++)
			for (int s = 0; s < 2; s++) {
				int a = s ? cij[k].y : cij[k].x;

				for (int e = 0; e < 3; e++) {
					v[3 * a + e] += (x[3 * a + e] -
					    xs[3 * a + e]) / dt;
					xs[3 * a + e] = x[3 * a + e];
				}
			}
		return rc;
	}
	for (int a = 0; a < na; a++) {
		iml[a] = im[ga[a]];
		for (int e = 0; e < 3; e++) {
			xl[3 * a + e] = x[3 * ga[a] + e];
			xr[3 * a + e] = xref[3 * ga[a] + e];
		}
	}
	rc = mm_shake_cluster(nb, ij, cd + lo, iml, b, tol, xr, xl);
	for (int a = 0; a < na; a++)
		for (int e = 0; e < 3; e++) {
			if (v != NULL)
				v[3 * ga[a] + e] += (xl[3 * a + e] - x[3 * ga[a] +
				    e]) / dt;
			x[3 * ga[a] + e] = xl[3 * a + e];
		}
	return rc;
}

/* The position constraints from xref, a thread a SHAKE cluster (the
 * first ncl threads: the longest work starts first), then a thread a
 * SETTLE water; with v, the moves / dt into v (run.c's velocity
 * correction, for the constrained atoms: the others do not move). */
static __global__ void
k_xconstr(int ncl, const int *clstart, const int2 *cij, const double *cd,
    const double *im, long nsettle, const struct fek_mm_settle *w,
    struct fek_box b, double tol, const double *xref, double *x, double *xs,
    double *v, double dt, int *fail)
{
	long t = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (t < ncl) {
		if (shake_one((int)t, clstart, cij, cd, im, &b, tol, xref, x,
		    xs, v, dt) < 0)
			atomicCAS(fail, 0, 2);
	} else if (t - ncl < nsettle) {
		const struct fek_mm_settle *ws = &w[t - ncl];
		double x0[9];

		for (int a = 0; a < 3; a++)
			for (int e = 0; e < 3; e++)
				x0[3 * a + e] = x[3 * ws->at[a] + e];
		if (fek_mm_settle_x(ws, &b, xref, x, 0, NULL, NULL) < 0)
			atomicCAS(fail, 0, 1);
		for (int a = 0; a < 3 && v != NULL; a++)
			for (int e = 0; e < 3; e++)
				v[3 * ws->at[a] + e] += (x[3 * ws->at[a] + e] -
				    x0[3 * a + e]) / dt;
	}
}

/* RATTLE of cluster c's bonds at x: v (mm_constr.cuh), its tolerance from
 * the root mean square speed of the cluster's own atoms; compact as
 * shake_one.  -1 on failure. */
static __device__ int
rattle_one(int c, const int *clstart, const int2 *cij, const double *im,
    const struct fek_box *b, double tol, const double *x, double *v)
{
	int ga[CL_MAXA], na = 0, lo = clstart[c], nb = clstart[c + 1] - lo, rc;
	int2 ij[CL_MAXB];
	double xl[3 * CL_MAXA], vl[3 * CL_MAXA], iml[CL_MAXA], u2 = 0, vtol;

	for (int k = lo; k < lo + nb; k++) {
		int i = cij[k].x, j = cij[k].y;

		u2 += fek_vdot(v + 3 * i, v + 3 * i) + fek_vdot(v + 3 * j,
		    v + 3 * j);
	}
	if (u2 == 0)
		return 0;
	vtol = tol * sqrt(u2 / (2 * nb));
	if (nb <= CL_MAXB)
		na = cl_compact(cij, lo, nb, ga, ij);
	if (na == 0)
		return mm_rattle_cluster(nb, cij + lo, im, b, vtol, x, v);
	for (int a = 0; a < na; a++) {
		iml[a] = im[ga[a]];
		for (int e = 0; e < 3; e++) {
			xl[3 * a + e] = x[3 * ga[a] + e];
			vl[3 * a + e] = v[3 * ga[a] + e];
		}
	}
	rc = mm_rattle_cluster(nb, ij, iml, b, vtol, xl, vl);
	for (int a = 0; a < na; a++)
		for (int e = 0; e < 3; e++)
			v[3 * ga[a] + e] = vl[3 * a + e];
	return rc;
}

/* The velocity constraints at x: a thread a RATTLE cluster, then a
 * thread a SETTLE water. */
static __global__ void
k_vconstr(int ncl, const int *clstart, const int2 *cij, const double *im,
    long nsettle, const struct fek_mm_settle *w, struct fek_box b,
    double tol, const double *x, double *v, int *fail)
{
	long t = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (t < ncl) {
		if (rattle_one((int)t, clstart, cij, im, &b, tol, x, v) < 0)
			atomicCAS(fail, 0, 3);
	} else if (t - ncl < nsettle) {
		if (fek_mm_settle_v(&w[t - ncl], &b, x, v, 0, NULL) < 0)
			atomicCAS(fail, 0, 1);
	}
}

/* ---- the host ------------------------------------------------------------ */

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { fek_cuda_fail(e_, what); goto out; } } \
	while (0)
#define GRID(m) ((unsigned)(((m) + RUN_BLOCK - 1) / RUN_BLOCK)), RUN_BLOCK

/* x constrained from xref (SHAKE and SETTLE); with vcorr the moves / dt
 * into v. */
static int
constrain_x(struct run_dev *r, const struct fek_mm_gpu *g,
    const struct fek_box *b, double tol, const double *xref, double dt,
    int vcorr)
{
	long m = r->ncl + r->nsettle;

	if (m == 0)
		return 0;
	k_xconstr<<<GRID(m)>>>(r->ncl, r->clstart, r->cij, r->cd, r->im,
	    r->nsettle, r->settle, *b, tol, xref, g->d.x, r->xs, vcorr ?
	    r->v : NULL, dt, r->fail);
	return fek_cuda_launched("constraints");
}

static int
constrain_v(struct run_dev *r, const struct fek_mm_gpu *g,
    const struct fek_box *b, double tol)
{
	long m = r->ncl + r->nsettle;

	if (m == 0)
		return 0;
	k_vconstr<<<GRID(m)>>>(r->ncl, r->clstart, r->cij, r->im,
	    r->nsettle, r->settle, *b, tol, g->d.x, r->v, r->fail);
	return fek_cuda_launched("velocity constraints");
}

/* The flag of a failed constraint: 0, or -1 with fek_seterr(1). */
static int
check_fail(struct run_dev *r, struct fek_mm_gpu *g, const struct fek_box *b,
    long long step)
{
	int f = 0;
	cudaError_t e = cudaMemcpy(&f, r->fail, sizeof f,
	    cudaMemcpyDeviceToHost);

	if (e != cudaSuccess)
		return fek_cuda_fail(e, "flag");
	if (mm_nonbonded_check(g->nbl, b) < 0)
		return -1;
	if (f == 0)
		return 0;
	return fek_seterr(FEK_EX_NUMERIC, "%s did not converge by step %lld "
	    "(is the time step too large?)", f == 1 ? "SETTLE" : f == 2 ?
	    "SHAKE" : "RATTLE", step);
}

extern "C" int
fek_mm_gpu_run(struct fek_mm_gpu *g, const struct fek_mm_md *p,
    struct fek_box *b, double *x, double *v, const struct fek_mm_sink *sink)
{
	const struct fek_mm_top *t = g->t;
	struct mm_dev *d = &g->d;
	struct run_dev r;
	struct fek_mm_constr *cc = NULL;
	struct fek_mm_energy e;
	long n = t->n, n3 = 3 * n, ndf;
	double dt = p->dt, a = exp(-p->gamma * dt), *im = NULL;
	int *clstart = NULL, *cat = NULL, rc = -1, ev;
	double *cd = NULL;

	memset(&r, 0, sizeof r);
	r.n = n;
	if ((p->integrator == FEK_MM_INT_VV && p->tcoupl != FEK_MM_TC_NONE) ||
	    p->pcoupl != FEK_MM_PC_NONE)
		return fek_seterr(FEK_EX_USAGE, "the GPU-resident run has no "
		    "thermostat for velocity Verlet and no barostat (the "
		    "host-driven one has)");
	if (n == 0)
		return fek_seterr(FEK_EX_DATA, "no atoms");
	if (t->il[FEK_MM_SETTLE].n + t->il[FEK_MM_CONSTR].n > 0 &&
	    (cc = fek_mm_constr_new(t, p->constr_tol)) == NULL)
		return -1;
	ndf = fek_mm_dof(t, cc, p->integrator);
	im = (double *)fek_alloc(n, sizeof *im);
	for (long i = 0; i < n; i++)
		im[i] = t->mass[i] > 0 ? 1 / t->mass[i] : 0;
	CK(cudaMalloc((void **)&r.v, n3 * sizeof(double)), "velocities");
	CK(cudaMalloc((void **)&r.xold, n3 * sizeof(double)), "positions");
	CK(cudaMalloc((void **)&r.xs, n3 * sizeof(double)), "positions");
	CK(cudaMalloc((void **)&r.im, n * sizeof(double)), "masses");
	CK(cudaMalloc((void **)&r.fail, sizeof(int)), "flag");
	CK(cudaMemset(r.fail, 0, sizeof(int)), "flag");
	CK(cudaMemcpy(r.im, im, n * sizeof(double), cudaMemcpyHostToDevice),
	    "masses");
	if (cc != NULL) {
		const struct fek_mm_settle *s = fek_mm_constr_settles(cc,
		    &r.nsettle);

		if (r.nsettle > 0) {
			CK(cudaMalloc((void **)&r.settle, r.nsettle *
			    sizeof *s), "settles");
			CK(cudaMemcpy(r.settle, s, r.nsettle * sizeof *s,
			    cudaMemcpyHostToDevice), "settles");
		}
		r.ncl = fek_mm_constr_clusters(cc, &clstart, &cat, &cd);
		if (r.ncl > 0) {
			CK(cudaMalloc((void **)&r.clstart, (r.ncl + 1) *
			    sizeof(int)), "constraints");
			CK(cudaMemcpy(r.clstart, clstart, (r.ncl + 1) *
			    sizeof(int), cudaMemcpyHostToDevice),
			    "constraints");
			CK(cudaMalloc((void **)&r.cij, clstart[r.ncl] *
			    sizeof(int2)), "constraints");
			CK(cudaMemcpy(r.cij, cat, clstart[r.ncl] *
			    sizeof(int2), cudaMemcpyHostToDevice),
			    "constraints");
			CK(cudaMalloc((void **)&r.cd, clstart[r.ncl] *
			    sizeof(double)), "constraints");
			CK(cudaMemcpy(r.cd, cd, clstart[r.ncl] *
			    sizeof(double), cudaMemcpyHostToDevice),
			    "constraints");
		}
	}
	CK(cudaMemcpy(d->x, x, n3 * sizeof(double), cudaMemcpyHostToDevice),
	    "positions");
	CK(cudaMemcpy(r.v, v, n3 * sizeof(double), cudaMemcpyHostToDevice),
	    "velocities");

	/* the start: constraints satisfied by x and v, sites placed */
	k_copy<<<GRID(n3)>>>(n3, d->x, r.xold);
	if (constrain_x(&r, g, b, p->constr_tol, r.xold, dt, 0) < 0 ||
	    constrain_v(&r, g, b, p->constr_tol) < 0 ||
	    mm_gpu_forces(g, b, 1, 1) < 0 || check_fail(&r, g, b, 0) < 0)
		goto out;
	for (long long step = 0;; step++) {
		int logs = sink->log != NULL && p->logevery > 0 &&
		    step % p->logevery == 0;
		int frames = sink->frame != NULL && p->every > 0 &&
		    step % p->every == 0;

		if (logs || frames) {
			CK(cudaMemcpy(x, d->x, n3 * sizeof(double),
			    cudaMemcpyDeviceToHost), "positions");
			CK(cudaMemcpy(v, r.v, n3 * sizeof(double),
			    cudaMemcpyDeviceToHost), "velocities");
			if (check_fail(&r, g, b, step) < 0)
				goto out;
		}
		if (logs) {
			double K = fek_mm_kinetic(t, v);

			if (mm_gpu_energy(g, b, &e) < 0 ||
			    sink->log(sink->ctx, step, p->t0 + step * dt, &e,
			    K, 2 * K / (FEK_KB_KJ * ndf), e.pot + K,
			    fek_box_volume(b)) < 0)
				goto out;
		}
		if (frames && sink->frame(sink->ctx, step, p->t0 + step * dt,
		    b, x, v) < 0)
			goto out;
		if (step == p->nsteps)
			break;
		/* the next step's energies only where the log wants them */
		ev = sink->log != NULL && p->logevery > 0 && (step + 1) %
		    p->logevery == 0;
		if (step % CHECK_EVERY == CHECK_EVERY - 1 &&
		    check_fail(&r, g, b, step) < 0)
			goto out;
		if (p->integrator == FEK_MM_INT_VV) {
			k_kick<<<GRID(n3)>>>(n3, d->f, r.im, r.v, 0.5 * dt);
			k_drift<<<GRID(n3)>>>(n3, d->x, r.v, r.xold, dt);
			if (constrain_x(&r, g, b, p->constr_tol, r.xold, dt,
			    1) < 0 || mm_gpu_forces(g, b, 1, ev) < 0)
				goto out;
			k_kick<<<GRID(n3)>>>(n3, d->f, r.im, r.v, 0.5 * dt);
			if (constrain_v(&r, g, b, p->constr_tol) < 0)
				goto out;
		} else {
			k_kick<<<GRID(n3)>>>(n3, d->f, r.im, r.v, dt);
			if (constrain_v(&r, g, b, p->constr_tol) < 0)
				goto out;
			k_middle<<<GRID(n)>>>(n, d->x, r.v, r.xold, r.im, a,
			    p->kT, p->key, step, dt);
			if (constrain_x(&r, g, b, p->constr_tol, r.xold, dt,
			    1) < 0 || mm_gpu_forces(g, b, 1, ev) < 0)
				goto out;
		}
	}
	CK(cudaMemcpy(x, d->x, n3 * sizeof(double), cudaMemcpyDeviceToHost),
	    "positions");
	CK(cudaMemcpy(v, r.v, n3 * sizeof(double), cudaMemcpyDeviceToHost),
	    "velocities");
	rc = check_fail(&r, g, b, p->nsteps);
out:
	cudaFree(r.v);
	cudaFree(r.xold);
	cudaFree(r.xs);
	cudaFree(r.im);
	cudaFree(r.fail);
	cudaFree(r.settle);
	cudaFree(r.clstart);
	cudaFree(r.cij);
	cudaFree(r.cd);
	free(im);
	free(clstart);
	free(cat);
	free(cd);
	fek_mm_constr_free(cc);
	return rc;
}
