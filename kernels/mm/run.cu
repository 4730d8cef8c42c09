/*
 * run.cu - md-gpu --top's dynamics resident on the GPU (lib/mm/mm_gpu.h's
 * fek_mm_gpu_run): lib/mm/run.c's integrators, step for step, with the
 * positions, velocities and forces kept on the device; the host sees
 * them only at the log's and the frames' steps.
 *
 *   velocity Verlet with RATTLE (Swope et al., J. Chem. Phys. 76, 637
 *     (1982); Andersen, J. Comput. Phys. 52, 24 (1983)) and Langevin
 *     "middle" (Zhang et al., J. Phys. Chem. A 123, 6056 (2019)), with
 *     run.c's Philox normals (key, atom, step): the same trajectory as
 *     the CPU's until rounding grows; velocity Verlet's v-rescale
 *     thermostat (Bussi et al. 2007) with run.c's draws, or its
 *     Nose-Hoover chain (k_thermostat);
 *   SETTLE for rigid waters (Miyamoto and Kollman, J. Comput. Chem. 13,
 *     952 (1992)), a thread a water, with lib/mm/settle_eval.h's
 *     arithmetic, constr.c's own;
 *   SHAKE and RATTLE for the other constraints (Ryckaert et al., J.
 *     Comput. Phys. 23, 327 (1977)), split on the host into connected
 *     clusters (a heavy atom and its hydrogens under h-bonds), a thread a
 *     cluster iterating over its bonds in constr.c's order until each
 *     is within the tolerance (kernels/mm/constr.cuh), on a copy of the
 *     cluster's atoms in local memory when it has at most CL_MAXA;
 *     RATTLE's tolerance is taken from the root mean square speed of
 *     the cluster's own atoms, where constr.c takes all constrained
 *     atoms': both stop below tol relative;
 *   each half step one launch, a thread an owner of atoms (a cluster, a
 *     water, or an unconstrained atom), which moves its atoms and then
 *     constrains them (k_xconstr: the kick and drift, or the Langevin
 *     middle, then SHAKE or SETTLE, each constrained atom's move / dt
 *     added to its velocity, run.c's correction; k_vconstr: the kick,
 *     then RATTLE or SETTLE's velocity half); the clusters' long sweeps
 *     overlap the waters and the free atoms;
 *   the forces of kernels/mm/energy.cu (mm_gpu_forces), virtual sites placed
 *     from their atoms after every move;
 *   a step's launches captured once as a CUDA graph and replayed (one
 *     without energies, one with), the step's count for the Langevin
 *     normals kept on the device.
 *   the Monte Carlo barostat (lib/mm/barostat.c, run.c's moves with its
 *     uniforms) on the host every nstpcouple steps: the positions
 *     fetched, the energies of the old and the scaled ones through
 *     fek_mm_gpu_eval, the steps' graphs captured again when the box
 *     changed.
 *
 * A constraint that fails sets a flag that the host reads every 100
 * steps and at each log or frame: the run then stops (exit 1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "mm/settle_eval.h"
#include "mm/vec3.h"
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

#define RUN_BLOCK 128
#define CL_MAXA 8			/* atoms of a cluster copied to local
					   memory, at most */
#define CL_MAXB 8			/* its bonds likewise */
#define CHECK_EVERY 100			/* steps between looks at the flag */
#define VR_CHUNK 100			/* v-rescale's draws sent at a time */

/* The run's own device arrays (passed to the kernels by value). */
struct run_dev {
	long n, nsettle, nfree;
	int ncl;
	double *v, *xold, *xs, *im;	/* 3n, 3n, 3n, n */
	struct fek_mm_settle *settle;
	int *clstart;			/* ncl + 1 */
	int2 *cij;			/* bonds in cluster order */
	double *cd;			/* their lengths */
	int *clastart, *cla;		/* ncl + 1: each cluster's atoms */
	int *freeat;			/* nfree: the unconstrained atoms */
	long long *step;		/* the step, counted by k_vconstr (the
					   Langevin normals', v-rescale's) */
	int *fail;
	/* v-rescale or the Nose-Hoover chain (velocity Verlet) */
	struct fek_nhc *nhc;		/* the chain's state */
	long ndf;
	double *mass;			/* n */
	double *vr;			/* VR_CHUNK steps' (R1, chi^2) */
	double *vpart;			/* k_thermostat's blocks' K sums */
	double *valpha;			/* the velocities' factor, then the
					   log's work (H = pot + K - work) */
	unsigned *vdone;		/* blocks done (0 between) */
	int nvblk;
};

/* What k_xconstr does to an atom before the position constraints. */
enum { PRE_COPY, PRE_DRIFT, PRE_MIDDLE };

struct pre_x {
	int mode;			/* PRE_COPY: xold = x (the start);
					   PRE_DRIFT: velocity Verlet's half
					   kick, xold = x, x += dt v;
					   PRE_MIDDLE: Langevin's middle */
	double dt, a, kT;
	unsigned long long key;
	const long long *step;		/* PRE_MIDDLE: the step, on the
					   device (k_vconstr counts it) */
};

/* Atom i's part of the step before its constraints (q's mode): run.c's
 * arithmetic, element for element.  Langevin middle: x += dt/2 v; v = a v
 * + sqrt((1 - a^2) kT / m) xi; x += dt/2 v, with run.c's Philox normals
 * (key, atom, step). */
static __device__ __forceinline__ void
pre_atom(const struct pre_x *q, long i, const unsigned long long *f,
    const double *im, double *x, double *v, double *xold)
{
	double z[4], s;

	if (q->mode == PRE_DRIFT)
		for (int e = 0; e < 3; e++)
			v[3 * i + e] += 0.5 * q->dt * mm_acc_value(f[3 * i +
			    e]) * im[i];
	for (int e = 0; e < 3; e++) {
		xold[3 * i + e] = x[3 * i + e];
		if (q->mode == PRE_DRIFT)
			x[3 * i + e] += q->dt * v[3 * i + e];
		else if (q->mode == PRE_MIDDLE)
			x[3 * i + e] += 0.5 * q->dt * v[3 * i + e];
	}
	if (q->mode != PRE_MIDDLE || im[i] == 0)
		return;
	fek_rng_normals4(q->key, (uint32_t)i, 0, (uint64_t)*q->step,
	    FEK_RNG_LANGEVIN, 0, z);
	s = sqrt((1 - q->a * q->a) * q->kT * im[i]);
	for (int e = 0; e < 3; e++) {
		v[3 * i + e] = q->a * v[3 * i + e] + s * z[e];
		x[3 * i + e] += 0.5 * q->dt * v[3 * i + e];
	}
}

/* Atom i's kick before the velocity constraints: v += h f / m. */
static __device__ __forceinline__ void
kick_atom(long i, const unsigned long long *f, const double *im, double *v,
    double h)
{
	for (int e = 0; e < 3; e++)
		v[3 * i + e] += h * mm_acc_value(f[3 * i + e]) * im[i];
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

/* SHAKE of cluster c's bonds: x from xref (kernels/mm/constr.cuh), on a compact
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

/* One step's position half, a thread an owner of atoms: the first ncl
 * threads a SHAKE cluster each (the longest work starts first), then a
 * thread a SETTLE water, then a thread an unconstrained atom.  Each
 * first does its atoms' part before the constraints (pre_atom: xold, the
 * reference, is set there), then constrains them from xold; with vcorr
 * the constraints' moves / dt go into v (run.c's velocity correction:
 * the unconstrained atoms do not move). */
static __global__ void
k_xconstr(struct run_dev r, struct pre_x q, const unsigned long long *f,
    struct fek_box b, double tol, double *x, int vcorr)
{
	long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double *v = vcorr ? r.v : NULL;

	if (t < r.ncl) {
		for (int k = r.clastart[t]; k < r.clastart[t + 1]; k++)
			pre_atom(&q, r.cla[k], f, r.im, x, r.v, r.xold);
		if (shake_one((int)t, r.clstart, r.cij, r.cd, r.im, &b, tol,
		    r.xold, x, r.xs, v, q.dt) < 0)
			atomicCAS(r.fail, 0, 2);
	} else if (t - r.ncl < r.nsettle) {
		const struct fek_mm_settle *ws = &r.settle[t - r.ncl];
		double x0[9];

		for (int a = 0; a < 3; a++) {
			pre_atom(&q, ws->at[a], f, r.im, x, r.v, r.xold);
			for (int e = 0; e < 3; e++)
				x0[3 * a + e] = x[3 * ws->at[a] + e];
		}
		if (fek_mm_settle_x(ws, &b, r.xold, x, 0, NULL, NULL) < 0)
			atomicCAS(r.fail, 0, 1);
		for (int a = 0; a < 3 && v != NULL; a++)
			for (int e = 0; e < 3; e++)
				v[3 * ws->at[a] + e] += (x[3 * ws->at[a] + e] -
				    x0[3 * a + e]) / q.dt;
	} else if (t - r.ncl - r.nsettle < r.nfree) {
		pre_atom(&q, r.freeat[t - r.ncl - r.nsettle], f, r.im, x,
		    r.v, r.xold);
	}
}

/* RATTLE of cluster c's bonds at x: v (kernels/mm/constr.cuh), its tolerance
 * from the root mean square speed of the cluster's own atoms; compact as
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

/* One step's velocity half, a thread an owner as k_xconstr: its atoms
 * kicked, v += h f / m (h 0: none), then their velocity constraints at
 * x.  With count, thread 0 counts the step for k_xconstr's Langevin
 * normals. */
static __global__ void
k_vconstr(struct run_dev r, const unsigned long long *f, double h,
    struct fek_box b, double tol, const double *x, int count)
{
	long t = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (t == 0 && count)
		++*r.step;
	if (t < r.ncl) {
		for (int k = r.clastart[t]; k < r.clastart[t + 1] && h != 0;
		    k++)
			kick_atom(r.cla[k], f, r.im, r.v, h);
		if (rattle_one((int)t, r.clstart, r.cij, r.im, &b, tol, x,
		    r.v) < 0)
			atomicCAS(r.fail, 0, 3);
	} else if (t - r.ncl < r.nsettle) {
		const struct fek_mm_settle *ws = &r.settle[t - r.ncl];

		for (int a = 0; a < 3 && h != 0; a++)
			kick_atom(ws->at[a], f, r.im, r.v, h);
		if (fek_mm_settle_v(ws, &b, x, r.v, 0, NULL) < 0)
			atomicCAS(r.fail, 0, 1);
	} else if (t - r.ncl - r.nsettle < r.nfree && h != 0) {
		kick_atom(r.freeat[t - r.ncl - r.nsettle], f, r.im, r.v, h);
	}
}

/* The block's v summed in a fixed tree, for every thread (sh: the block's
 * scratch, free again once each thread has its sum). */
static __device__ __forceinline__ double
block_sum(double v, double *sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int h = RUN_BLOCK / 2; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			sh[threadIdx.x] += sh[threadIdx.x + h];
		__syncthreads();
	}
	return sh[0];
}

/* Velocity Verlet's thermostats, as run.c's: K0 = sum m v^2 / 2 over the
 * atoms, block sums in a fixed tree and the blocks' sums in order by the
 * last block to finish (the same value whichever it is); then the
 * factor that scales the velocities (k_vscale) and the log's work:
 *  - NH 0: the v-rescale thermostat (Bussi, Donadio and Parrinello, J.
 *    Chem. Phys. 126, 014101 (2007)) at a step's end, run.c's
 *    vrescale_alpha from the step's R1 and chi^2 (drawn on the host from
 *    run.c's generator, in its order, vr), c = exp(-dt / tau_t) and
 *    Kt = ndf kT / 2; the work (alpha^2 - 1) K0 summed;
 *  - NH 1: a half step hdt of the Nose-Hoover chain (Martyna, Tuckerman
 *    and Klein, Mol. Phys. 87, 1117 (1996); lib/pmd's fek_nhc_half, as
 *    run.c's nhc_step) at a step's start and end; the work is minus the
 *    chain's energy. */
template <int NH>
static __global__ void __launch_bounds__(RUN_BLOCK)
k_thermostat(struct run_dev r, double Kt, long ndf, double c,
    struct fek_nhc_par np, double hdt)
{
	__shared__ double sh[RUN_BLOCK];
	__shared__ int last;
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double k = 0;

	if (i < r.n)
		k = 0.5 * r.mass[i] * (r.v[3 * i] * r.v[3 * i] + r.v[3 * i +
		    1] * r.v[3 * i + 1] + r.v[3 * i + 2] * r.v[3 * i + 2]);
	k = block_sum(k, sh);
	if (threadIdx.x == 0) {
		r.vpart[blockIdx.x] = k;
		__threadfence();
		last = atomicAdd(r.vdone, 1u) == gridDim.x - 1;
	}
	__syncthreads();
	if (!last)
		return;
	k = 0;
	for (int b = threadIdx.x; b < r.nvblk; b += RUN_BLOCK)
		k += ((volatile double *)r.vpart)[b];
	k = block_sum(k, sh);
	if (threadIdx.x == 0 && NH) {
		double k2;

		r.valpha[0] = fek_nhc_half(&np, r.nhc, 2 * k, hdt, &k2);
		r.valpha[1] = -fek_nhc_energy(&np, r.nhc);
		*r.vdone = 0;
	} else if (threadIdx.x == 0) {
		double K = k, al = 1;
		const double *d = r.vr + 2 * (*r.step % VR_CHUNK);
		double r1 = d[0], s2 = d[1];

		if (K > 0) {
			double f = Kt / (ndf * K), a2 = c + (1 - c) * f *
			    (r1 * r1 + s2) + 2 * r1 * sqrt(c * (1 - c) * f);

			if (a2 < 0)
				a2 = 0;
			al = (r1 + sqrt(c / ((1 - c) * f)) < 0 ? -1 : 1) *
			    sqrt(a2);
		}
		r.valpha[0] = al;
		r.valpha[1] += (al * al - 1) * K;
		*r.vdone = 0;
	}
}

/* v *= the thermostat's factor (k_thermostat's). */
static __global__ void
k_vscale(struct run_dev r)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k < 3 * r.n)
		r.v[k] *= r.valpha[0];
}

/* ---- the host ------------------------------------------------------------ */

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { fek_cuda_fail(e_, what); goto out; } } \
	while (0)
#define GRID(m) ((unsigned)(((m) + RUN_BLOCK - 1) / RUN_BLOCK)), RUN_BLOCK

/* The position half of a step (q's mode), its constraints' moves into v
 * but at the start. */
static int
constrain_x(struct run_dev *r, const struct fek_mm_gpu *g,
    const struct fek_box *b, double tol, const struct pre_x *q)
{
	long m = r->ncl + r->nsettle + r->nfree;

	k_xconstr<<<GRID(m)>>>(*r, *q, g->d.f, *b, tol, g->d.x,
	    q->mode != PRE_COPY);
	return fek_cuda_launched("constraints");
}

/* The velocity half: the kick v += h f / m, the velocity constraints;
 * with count the step counted. */
static int
constrain_v(struct run_dev *r, const struct fek_mm_gpu *g,
    const struct fek_box *b, double tol, double h, int count)
{
	long m = r->ncl + r->nsettle + r->nfree;

	k_vconstr<<<GRID(m)>>>(*r, g->d.f, h, *b, tol, g->d.x, count);
	return fek_cuda_launched("velocity constraints");
}

/* The flag of a failed constraint: 0, 1 when the pair list's rows were
 * regrown (a captured step is then stale), or -1 with fek_seterr(1). */
static int
check_fail(struct run_dev *r, struct fek_mm_gpu *g, const struct fek_box *b,
    long long step)
{
	int f = 0, grown;
	cudaError_t e = cudaMemcpy(&f, r->fail, sizeof f,
	    cudaMemcpyDeviceToHost);

	if (e != cudaSuccess)
		return fek_cuda_fail(e, "flag");
	if ((grown = mm_nonbonded_check(g->nbl, b)) < 0)
		return -1;
	if (f == 0)
		return grown;
	return fek_seterr(FEK_EX_NUMERIC, "%s did not converge by step %lld "
	    "(is the time step too large?)", f == 1 ? "SETTLE" : f == 2 ?
	    "SHAKE" : "RATTLE", step);
}

/* One step after the forces of the last: velocity Verlet's drift and
 * constraints, forces, half kick and velocity constraints; or Langevin
 * middle's kick and velocity constraints, the middle and the position
 * constraints, forces (energies with ev). */
/* Velocity Verlet's thermostat (nh: the chain's parameters, or NULL for
 * v-rescale): the factor, then the velocities scaled. */
static int
thermostat(struct run_dev *r, const struct fek_mm_md *p,
    const struct fek_nhc_par *nh)
{
	struct fek_nhc_par none;

	if (nh != NULL)
		k_thermostat<1><<<r->nvblk, RUN_BLOCK>>>(*r, 0, r->ndf, 0, *nh,
		    0.5 * p->dt);
	else {
		memset(&none, 0, sizeof none);
		k_thermostat<0><<<r->nvblk, RUN_BLOCK>>>(*r, 0.5 * r->ndf *
		    p->kT, r->ndf, exp(-p->dt / p->tau_t), none, 0);
	}
	k_vscale<<<GRID(3 * r->n)>>>(*r);
	return fek_cuda_launched("thermostat");
}

static int
step_launch(struct run_dev *r, struct fek_mm_gpu *g, const struct fek_box *b,
    const struct fek_mm_md *p, const struct pre_x *q,
    const struct fek_nhc_par *nh, int ev)
{
	if (p->integrator == FEK_MM_INT_VV) {
		if ((nh != NULL && thermostat(r, p, nh) < 0) ||
		    constrain_x(r, g, b, p->constr_tol, q) < 0 ||
		    mm_gpu_forces(g, b, 1, ev) < 0 || constrain_v(r, g, b,
		    p->constr_tol, 0.5 * p->dt, 1) < 0)
			return -1;
		if (p->tcoupl == FEK_MM_TC_NONE)
			return 0;
		return thermostat(r, p, nh);
	}
	return constrain_v(r, g, b, p->constr_tol, p->dt, 1) < 0 ||
	    constrain_x(r, g, b, p->constr_tol, q) < 0 ||
	    mm_gpu_forces(g, b, 1, ev) < 0 ? -1 : 0;
}

/* A step's launches as CUDA graphs, one without energies and one with
 * (Gray, "Getting started with CUDA graphs", NVIDIA 2019): each step's
 * thirty-odd kernels and transforms go to the GPU in one launch.
 * Nothing in a step changes from step to step but what lives on the
 * device (the step's count included), so a graph replays it; a regrown
 * pair list (new rows) makes it stale.  FEK_MM_GRAPH=0, or FEK_CUDA_SYNC=1
 * (a check after each launch), launches the kernels one by one. */
struct step_graphs {
	int off;			/* graphs not used, or failed */
	cudaGraphExec_t exec[2];	/* ev 0, 1: NULL until captured */
};

static void
graphs_clear(struct step_graphs *sg)
{
	for (int k = 0; k < 2; k++) {
		if (sg->exec[k] != NULL)
			cudaGraphExecDestroy(sg->exec[k]);
		sg->exec[k] = NULL;
	}
}

static int
step_run(struct step_graphs *sg, struct run_dev *r, struct fek_mm_gpu *g,
    const struct fek_box *b, const struct fek_mm_md *p,
    const struct pre_x *q, const struct fek_nhc_par *nh, int ev)
{
	cudaStream_t s = cudaStreamPerThread;
	cudaGraph_t graph = NULL;
	cudaError_t e;
	int rc;

	if (sg->off)
		return step_launch(r, g, b, p, q, nh, ev);
	if (sg->exec[ev] == NULL) {
		if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal)
		    != cudaSuccess) {
			(void)cudaGetLastError();
			sg->off = 1;
			return step_launch(r, g, b, p, q, nh, ev);
		}
		rc = step_launch(r, g, b, p, q, nh, ev);
		e = cudaStreamEndCapture(s, &graph);
		if (rc == 0 && e == cudaSuccess)
			e = cudaGraphInstantiate(&sg->exec[ev], graph, 0);
		if (graph != NULL)
			cudaGraphDestroy(graph);
		if (rc < 0 || e != cudaSuccess) {
			/* whatever could not be captured runs as it is */
			(void)cudaGetLastError();
			sg->exec[ev] = NULL;
			graphs_clear(sg);
			sg->off = 1;
			return step_launch(r, g, b, p, q, nh, ev);
		}
	}
	if ((e = cudaGraphLaunch(sg->exec[ev], s)) != cudaSuccess)
		return fek_cuda_fail(e, "step graph");
	return 0;
}

/* The GPU's forces as the barostat's moves see them (x up, forces and
 * energies down): fek_mm_gpu_eval. */
static int
baro_eval(void *ctx, const struct fek_box *b, int place, double *x,
    double *f, struct fek_mm_energy *e)
{
	return fek_mm_gpu_eval((struct fek_mm_gpu *)ctx, b, place, x, f, e);
}

/* The Monte Carlo barostat's move after the step (run.c's, at step),
 * on the host between the device's steps: the positions fetched into x,
 * their energies (f the host's scratch for their forces), then
 * fek_mm_baro_try, whose trial leaves its positions and forces on the
 * device; a rejected trial's old positions go back and their forces and
 * energies are made again.  1 when the box changed (the captured steps
 * are then stale), 0 when not, -1 on a failure. */
static int
baro_move(struct fek_mm_baro *br, struct fek_mm_gpu *g, struct fek_box *b,
    long long step, double *x, double *f)
{
	struct fek_mm_forcefn ff = { g, baro_eval };
	struct fek_mm_energy e;
	size_t n3 = 3 * (size_t)g->t->n;
	cudaError_t ce;
	int ok;

	if ((ce = cudaMemcpy(x, g->d.x, n3 * sizeof(double),
	    cudaMemcpyDeviceToHost)) != cudaSuccess)
		return fek_cuda_fail(ce, "positions");
	if (fek_mm_gpu_eval(g, b, 1, x, f, &e) < 0 ||
	    (ok = fek_mm_baro_try(br, g->t, &ff, step, b, x, f, &e)) < 0)
		return -1;
	if (ok)
		return 1;
	if ((ce = cudaMemcpy(g->d.x, x, n3 * sizeof(double),
	    cudaMemcpyHostToDevice)) != cudaSuccess)
		return fek_cuda_fail(ce, "positions");
	/* energies too: the next log may read them before the next step */
	return mm_gpu_forces(g, b, 1, 1) < 0 ? -1 : 0;
}

/* Each cluster's atoms (in the order of their first bonds) and the
 * atoms of no cluster and no water, for the owners' threads; -1 with
 * fek_seterr(70) if an atom has two. */
static int
owners(long n, int ncl, const int *clstart, const int *cat,
    const struct fek_mm_settle *s, long nsettle, int **clastart, int **cla,
    int **freeat, long *nfree)
{
	int *own = (int *)fek_alloc(n > 0 ? n : 1, sizeof *own);
	int m = 0, twice = 0;

	*clastart = (int *)fek_alloc(ncl + 1, sizeof **clastart);
	*cla = (int *)fek_alloc(ncl > 0 ? 2 * clstart[ncl] : 1,
	    sizeof **cla);
	*freeat = (int *)fek_alloc(n > 0 ? n : 1, sizeof **freeat);
	*nfree = 0;
	for (long i = 0; i < n; i++)
		own[i] = -1;
	for (int c = 0; c < ncl; c++) {
		(*clastart)[c] = m;
		for (int k = 2 * clstart[c]; k < 2 * clstart[c + 1]; k++) {
			int i = cat[k];

			if (own[i] == c)
				continue;
			twice |= own[i] >= 0;
			own[i] = c;
			(*cla)[m++] = i;
		}
	}
	(*clastart)[ncl] = m;
	for (long w = 0; w < nsettle; w++)
		for (int a = 0; a < 3; a++) {
			twice |= own[s[w].at[a]] >= 0;
			own[s[w].at[a]] = ncl;
		}
	for (long i = 0; i < n; i++)
		if (own[i] < 0)
			(*freeat)[(*nfree)++] = (int)i;
	free(own);
	if (twice)
		return fek_seterr(FEK_EX_SOFTWARE, "an atom in two constraint "
		    "groups");
	return 0;
}

extern "C" int
fek_mm_gpu_run(struct fek_mm_gpu *g, const struct fek_mm_md *p,
    struct fek_box *b, double *x, double *v, const struct fek_mm_sink *sink)
{
	const struct fek_mm_top *t = g->t;
	struct mm_dev *d = &g->d;
	struct run_dev r;
	struct step_graphs sg;
	struct pre_x q;
	struct fek_mm_constr *cc = NULL;
	struct fek_mm_settle *settle = NULL;
	struct fek_mm_energy e;
	const char *env;
	long n = t->n, n3 = 3 * n, ndf;
	long long step0 = -1;
	double dt = p->dt, *im = NULL, hv[2 * VR_CHUNK], work = 0;
	int vrescale = p->integrator == FEK_MM_INT_VV && p->tcoupl ==
	    FEK_MM_TC_VRESCALE, nose = p->integrator == FEK_MM_INT_VV &&
	    p->tcoupl == FEK_MM_TC_NOSEHOOVER;
	struct fek_nhc_par np;
	struct fek_nhc ns;
	gsl_rng *rng = NULL;
	int *clstart = NULL, *cat = NULL, *clastart = NULL, *cla = NULL;
	int *freeat = NULL, rc = -1, ev, k;
	double *cd = NULL, *fb = NULL;
	struct fek_mm_baro *br = NULL;

	memset(&r, 0, sizeof r);
	memset(&sg, 0, sizeof sg);
	r.n = n;
	if (n == 0)
		return fek_seterr(FEK_EX_DATA, "no atoms");
	if ((br = fek_mm_baro_of(t, &g->o, p, b)) != NULL)
		fb = (double *)fek_alloc(n3, sizeof *fb);
	if (t->il[FEK_MM_SETTLE].n + t->il[FEK_MM_CONSTR].n > 0 &&
	    (cc = fek_mm_constr_new(t, p->constr_tol)) == NULL)
		return -1;
	ndf = fek_mm_dof(t, cc, p->integrator);
	im = (double *)fek_alloc(n, sizeof *im);
	for (long i = 0; i < n; i++)
		im[i] = t->mass[i] > 0 ? 1 / t->mass[i] : 0;
	if (cc != NULL) {
		settle = (struct fek_mm_settle *)fek_mm_constr_settles(cc,
		    &r.nsettle);
		r.ncl = fek_mm_constr_clusters(cc, &clstart, &cat, &cd);
	}
	if (owners(n, r.ncl, clstart, cat, settle, r.nsettle, &clastart, &cla,
	    &freeat, &r.nfree) < 0)
		goto out;
	CK(cudaMalloc((void **)&r.v, n3 * sizeof(double)), "velocities");
	CK(cudaMalloc((void **)&r.xold, n3 * sizeof(double)), "positions");
	CK(cudaMalloc((void **)&r.xs, n3 * sizeof(double)), "positions");
	CK(fek_cuda_up((void **)&r.im, im, n * sizeof(double)), "masses");
	CK(cudaMalloc((void **)&r.fail, sizeof(int)), "flag");
	CK(cudaMemset(r.fail, 0, sizeof(int)), "flag");
	CK(fek_cuda_up((void **)&r.step, &step0, sizeof step0), "step");
	CK(fek_cuda_up((void **)&r.settle, settle, r.nsettle * sizeof *settle),
	    "settles");
	CK(fek_cuda_up((void **)&r.freeat, freeat, r.nfree * sizeof(int)),
	    "atoms");
	if (r.ncl > 0) {
		CK(fek_cuda_up((void **)&r.clstart, clstart, (r.ncl + 1) *
		    sizeof(int)), "constraints");
		CK(fek_cuda_up((void **)&r.cij, cat, clstart[r.ncl] *
		    sizeof(int2)), "constraints");
		CK(fek_cuda_up((void **)&r.cd, cd, clstart[r.ncl] *
		    sizeof(double)), "constraints");
		CK(fek_cuda_up((void **)&r.clastart, clastart, (r.ncl + 1) *
		    sizeof(int)), "constraints");
		CK(fek_cuda_up((void **)&r.cla, cla, clastart[r.ncl] *
		    sizeof(int)), "constraints");
	}
	if (vrescale || nose) {
		double zero[2] = { 1, 0 };

		/* run.c's generator, its draws in its order; or its chain */
		if (vrescale) {
			rng = fek_rng_new(p->key, 0x7672657363616c65ULL);
			CK(cudaMalloc((void **)&r.vr, sizeof hv), "v-rescale");
		} else {
			fek_mm_nhc_setup(&np, &ns, p, ndf);
			CK(fek_cuda_up((void **)&r.nhc, &ns, sizeof ns),
			    "chain");
		}
		r.ndf = ndf;
		r.nvblk = (int)((n + RUN_BLOCK - 1) / RUN_BLOCK);
		CK(fek_cuda_up((void **)&r.mass, t->mass, n * sizeof(double)),
		    "masses");
		CK(cudaMalloc((void **)&r.vpart, r.nvblk * sizeof(double)),
		    "thermostat");
		CK(fek_cuda_up((void **)&r.valpha, zero, sizeof zero),
		    "thermostat");
		CK(cudaMalloc((void **)&r.vdone, sizeof(unsigned)),
		    "thermostat");
		CK(cudaMemset(r.vdone, 0, sizeof(unsigned)), "thermostat");
	}
	CK(cudaMemcpy(d->x, x, n3 * sizeof(double), cudaMemcpyHostToDevice),
	    "positions");
	CK(cudaMemcpy(r.v, v, n3 * sizeof(double), cudaMemcpyHostToDevice),
	    "velocities");
	sg.off = ((env = getenv("FEK_MM_GRAPH")) != NULL && strcmp(env, "0") ==
	    0) || ((env = getenv("FEK_CUDA_SYNC")) != NULL && strcmp(env,
	    "1") == 0);

	/* the start: constraints satisfied by x and v, sites placed */
	memset(&q, 0, sizeof q);
	q.mode = PRE_COPY;
	q.dt = dt;
	if (constrain_x(&r, g, b, p->constr_tol, &q) < 0 ||
	    constrain_v(&r, g, b, p->constr_tol, 0, 0) < 0 ||
	    mm_gpu_forces(g, b, 1, 1) < 0 || check_fail(&r, g, b, 0) < 0)
		goto out;
	q.mode = p->integrator == FEK_MM_INT_VV ? PRE_DRIFT : PRE_MIDDLE;
	q.a = exp(-p->gamma * dt);
	q.kT = p->kT;
	q.key = p->key;
	q.step = r.step;
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
			if ((k = check_fail(&r, g, b, step)) < 0)
				goto out;
			if (k > 0)
				graphs_clear(&sg);
		}
		if (logs) {
			double K = fek_mm_kinetic(t, v);

			if (vrescale || nose)
				CK(cudaMemcpy(&work, r.valpha + 1, sizeof work,
				    cudaMemcpyDeviceToHost), "v-rescale");
			if (mm_gpu_energy(g, b, &e) < 0 ||
			    sink->log(sink->ctx, step, p->t0 + step * dt, &e,
			    K, 2 * K / (FEK_KB_KJ * ndf), e.pot + K - work,
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
		if (step % CHECK_EVERY == CHECK_EVERY - 1) {
			if ((k = check_fail(&r, g, b, step)) < 0)
				goto out;
			if (k > 0)
				graphs_clear(&sg);
		}
		if (vrescale && step % VR_CHUNK == 0) {
			/* the next VR_CHUNK steps' draws, in stream order
			 * (a pageable copy: hv is free when it returns) */
			for (k = 0; k < VR_CHUNK; k++) {
				hv[2 * k] = gsl_ran_gaussian_ziggurat(rng, 1);
				hv[2 * k + 1] = ndf > 1 ? gsl_ran_chisq(rng,
				    (double)(ndf - 1)) : 0;
			}
			CK(cudaMemcpyAsync(r.vr, hv, sizeof hv,
			    cudaMemcpyHostToDevice, cudaStreamPerThread),
			    "v-rescale");
		}
		if (step_run(&sg, &r, g, b, p, &q, nose ? &np : NULL, ev) < 0)
			goto out;
		if (br != NULL && (step + 1) % p->nstpcouple == 0) {
			if ((k = baro_move(br, g, b, step + 1, x, fb)) < 0)
				goto out;
			if (k > 0)
				graphs_clear(&sg);
			if ((k = check_fail(&r, g, b, step)) < 0)
				goto out;
			if (k > 0)
				graphs_clear(&sg);
		}
	}
	CK(cudaMemcpy(x, d->x, n3 * sizeof(double), cudaMemcpyDeviceToHost),
	    "positions");
	CK(cudaMemcpy(v, r.v, n3 * sizeof(double), cudaMemcpyDeviceToHost),
	    "velocities");
	rc = check_fail(&r, g, b, p->nsteps) < 0 ? -1 : 0;
out:
	fek_mm_baro_end(br, p->baro_counts);
	free(fb);
	graphs_clear(&sg);
	cudaFree(r.v);
	cudaFree(r.xold);
	cudaFree(r.xs);
	cudaFree(r.im);
	cudaFree(r.fail);
	cudaFree(r.step);
	cudaFree(r.settle);
	cudaFree(r.freeat);
	cudaFree(r.clstart);
	cudaFree(r.cij);
	cudaFree(r.cd);
	cudaFree(r.clastart);
	cudaFree(r.cla);
	cudaFree(r.mass);
	cudaFree(r.vr);
	cudaFree(r.vpart);
	cudaFree(r.valpha);
	cudaFree(r.vdone);
	cudaFree(r.nhc);
	if (rng != NULL)
		gsl_rng_free(rng);
	free(im);
	free(clstart);
	free(cat);
	free(cd);
	free(clastart);
	free(cla);
	free(freeat);
	fek_mm_constr_free(cc);
	return rc;
}
