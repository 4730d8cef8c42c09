/*
 * run.cu - bd-step's trajectories on the GPU (lib/bd/bd_gpu.h): lib/bd/run.c
 * with the arithmetic of lib/bd/bd_eval.h and the loop of lib/bd/bd_traj.h,
 * in double precision.
 *
 * Sakalli (2008) batched many Brownian dynamics simulations of one pair
 * of solutes to fill the GPU (Sec. 3.2.3, "dense matrix-vector" over
 * concurrent simulations).  Here each warp runs whole trajectories: its
 * 32 lanes share a configuration's atoms (the thesis's sum-product over
 * atoms, each lane's share then a shuffle tree: the order the CPU
 * emulates), every lane keeps the trajectory's state and takes the same
 * decisions from the same broadcast sums.  Warps are persistent: each
 * takes the next trajectory from a counter when its last one ends, so
 * short and long trajectories mix without idle warps until the end.
 * A trajectory depends only on the seed and its id, as on the CPU; the
 * numbers differ from the CPU's in the last bits (fused multiply-adds,
 * CUDA's exp, sin and cos), which chaos amplifies over long
 * trajectories: the outcomes agree in distribution, the sums at a
 * configuration to 1e-12 (tests/gpu-bd.sh).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "bd/bd_eval.h"

extern "C" {
#include "core/fek.h"
#include "bd/bd.h"
}

#include "core/cuda_check.cuh"
#include "bd/bd_gpu.h"

#define BD_BLOCK 128		/* threads a block: 4 warps */
#ifndef BD_MINBLOCKS
#define BD_MINBLOCKS 4		/* blocks an SM: 128 registers, some spilt;
				   x1.45 capped, x1.15 whole runs over 2 */
#endif

struct fek_bd_gpu {
	struct fek_bd_sys s;		/* with device pointers */
	void *mem[16];			/* what s points to, to free */
	int nmem;
	int nsm, blocks;
	struct fek_bd_gpu_stats st;
};

static double
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* The lane sums of fek_bd_lane_terms added in run.c's tree, the result
 * in every lane; nonzero on overlap in any lane. */
__device__ static int
warp_eval(const struct fek_bd_sys *s, const double *r, const double *qa,
    const double *qb, double *sum)
{
	const unsigned full = 0xffffffffu;
	const int lane = threadIdx.x & 31;
	double acc[FEK_BD_NSUM], RA[9], RB[9];
	int ov;

	for (int k = 0; k < FEK_BD_NSUM; k++)
		acc[k] = 0.0;
	fek_bd_quat_matrix(qa, RA);
	fek_bd_quat_matrix(qb, RB);
	ov = fek_bd_lane_terms(s, r, RA, RB, lane, FEK_BD_LANES, acc);
	for (int off = FEK_BD_LANES / 2; off > 0; off /= 2)
		for (int k = 0; k < FEK_BD_NSUM; k++)
			acc[k] += __shfl_down_sync(full, acc[k], off);
	for (int k = 0; k < FEK_BD_NSUM; k++)
		sum[k] = __shfl_sync(full, acc[k], 0);
	return __any_sync(full, ov);
}

#define FEK_BD_TRAJ_FN __device__ static int bd_trajectory
#define FEK_BD_TRAJ_ARGS
#define FEK_BD_EVAL(r, qa, qb, sum) warp_eval(s, r, qa, qb, sum)
#define FEK_BD_LOG(st) 0
#include "bd/bd_traj.h"

/* Persistent warps: each takes trajectories first + i, i from *next,
 * until n are taken; *done counts finished ones.  Both counters are in
 * device memory with device-scope atomics: the host reads *done by an
 * asynchronous copy on a stream of its own (fek_bd_gpu_run), since
 * system-scope atomics on host memory need hostNativeAtomicSupported,
 * which PCIe cards lack. */
__global__ static void __launch_bounds__(BD_BLOCK, BD_MINBLOCKS)
k_run(struct fek_bd_sys s, int64_t first, int64_t n,
    unsigned long long *next, struct fek_bd_outcome *out,
    unsigned long long *done)
{
	const int lane = threadIdx.x & 31;

	for (;;) {
		unsigned long long i = 0;
		struct fek_bd_outcome o;

		if (lane == 0)
			i = atomicAdd(next, 1ULL);
		i = __shfl_sync(0xffffffffu, i, 0);
		if (i >= (unsigned long long)n)
			return;
		bd_trajectory(&s, first + (int64_t)i, &o);
		if (lane == 0) {
			out[i] = o;
			atomicAdd(done, 1ULL);
		}
	}
}

/* A warp a configuration. */
__global__ static void
k_eval(struct fek_bd_sys s, long n, const double *cfg, double *sum,
    int *overlap)
{
	long c = ((long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	double t[FEK_BD_NSUM];
	int ov;

	if (c >= n)	/* whole warps leave together */
		return;
	ov = warp_eval(&s, cfg + 11 * c, cfg + 11 * c + 3, cfg + 11 * c + 7,
	    t);
	if ((threadIdx.x & 31) == 0) {
		for (int k = 0; k < FEK_BD_NSUM; k++)
			sum[FEK_BD_NSUM * c + k] = t[k];
		overlap[c] = ov;
	}
}

__global__ static void
k_phi(struct fek_bd_sys s, int which, long n, const double *y, double *val,
    double *grad)
{
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		val[i] = fek_bd_phi(which ? &s.B : &s.A, s.kappa, y + 3 * i,
		    grad + 3 * i);
}

/* Copy n bytes of host to a new device buffer owned by g. */
static int
upload(struct fek_bd_gpu *g, const void *host, size_t n, const void **dev,
    const char *what)
{
	cudaError_t e;
	void *p;

	if (n == 0) {
		*dev = NULL;
		return 0;
	}
	if ((e = cudaMalloc(&p, n)) != cudaSuccess ||
	    (g->mem[g->nmem++] = p, e = cudaMemcpy(p, host, n,
	    cudaMemcpyHostToDevice)) != cudaSuccess)
		return fek_cuda_fail(e, what);
	*dev = p;
	return 0;
}

static int
upload_body(struct fek_bd_gpu *g, struct fek_bd_body *d,
    const struct fek_bd_body *h)
{
	*d = *h;
	if (upload(g, h->a, 3 * h->n * sizeof(double), (const void **)&d->a,
	    "atoms") < 0 || upload(g, h->q, h->n * sizeof(double),
	    (const void **)&d->q, "charges") < 0)
		return -1;
	if (h->has_pot && upload(g, h->pot.v, (size_t)h->pot.n[0] *
	    h->pot.n[1] * h->pot.n[2] * sizeof(double),
	    (const void **)&d->pot.v, "potential grid") < 0)
		return -1;
	if (h->has_excl && upload(g, h->excl.v, (size_t)h->excl.n[0] *
	    h->excl.n[1] * h->excl.n[2], (const void **)&d->excl.v,
	    "exclusion grid") < 0)
		return -1;
	return 0;
}

extern "C" struct fek_bd_gpu *
fek_bd_gpu_new(const struct fek_bd_sys *s)
{
	struct fek_bd_gpu *g;
	struct cudaDeviceProp prop;
	struct timespec t0;
	cudaError_t e;
	int dev, per_sm = 0, np = s->rxn.gstart[s->rxn.ncontact];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	g = (struct fek_bd_gpu *)fek_alloc(1, sizeof *g);
	if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess) {
		fek_cuda_fail(e, "device");
		free(g);
		return NULL;
	}
	snprintf(g->st.device, sizeof g->st.device, "%s", prop.name);
	g->nsm = prop.multiProcessorCount;
	g->s = *s;
	if (upload_body(g, &g->s.A, &s->A) < 0 ||
	    upload_body(g, &g->s.B, &s->B) < 0 ||
	    upload(g, s->rxn.gstart, (s->rxn.ncontact + 1) * sizeof(int),
	    (const void **)&g->s.rxn.gstart, "contacts") < 0 ||
	    upload(g, s->rxn.ia, np * sizeof(int),
	    (const void **)&g->s.rxn.ia, "contacts") < 0 ||
	    upload(g, s->rxn.ib, np * sizeof(int),
	    (const void **)&g->s.rxn.ib, "contacts") < 0)
		goto fail;
	if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_run,
	    BD_BLOCK, 0)) != cudaSuccess) {
		fek_cuda_fail(e, "occupancy");
		goto fail;
	}
	g->blocks = g->nsm * (per_sm > 0 ? per_sm : 1);
	g->st.warps = g->blocks * (BD_BLOCK / 32);
	g->st.setup_ms = ms_since(&t0);
	return g;
fail:
	fek_bd_gpu_free(g);
	return NULL;
}

extern "C" int
fek_bd_gpu_run(struct fek_bd_gpu *g, int64_t first, int64_t n,
    struct fek_bd_outcome *out, void (*progress)(int64_t done, int64_t n))
{
	struct fek_bd_outcome *dout = NULL;
	unsigned long long *ctr = NULL, *hdone = NULL;	/* next, done */
	cudaStream_t run = NULL, poll = NULL;
	struct timespec t0;
	cudaError_t e;
	int rc = -1;
	int64_t shown = 0;

	if (n == 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* the outcomes zeroed first: the kernel writes each one whole, but
	 * a struct's padding (after fate) is never written, and the copy
	 * back would read it uninitialised */
	if ((e = cudaStreamCreateWithFlags(&run, cudaStreamNonBlocking)) !=
	    cudaSuccess ||
	    (e = cudaStreamCreateWithFlags(&poll, cudaStreamNonBlocking)) !=
	    cudaSuccess ||
	    (e = cudaMalloc(&dout, n * sizeof *dout)) != cudaSuccess ||
	    (e = cudaMalloc(&ctr, 2 * sizeof *ctr)) != cudaSuccess ||
	    (e = cudaMallocHost(&hdone, sizeof *hdone)) != cudaSuccess ||
	    (e = cudaMemsetAsync(dout, 0, n * sizeof *dout, run)) !=
	    cudaSuccess ||
	    (e = cudaMemsetAsync(ctr, 0, 2 * sizeof *ctr, run)) !=
	    cudaSuccess) {
		fek_cuda_fail(e, "trajectory buffers");
		goto out;
	}
	*hdone = 0;
	k_run<<<g->blocks, BD_BLOCK, 0, run>>>(g->s, first, n, ctr, dout,
	    ctr + 1);
	if (fek_cuda_launched("k_run") < 0)
		goto out;
	/* wait, reporting progress from the counter, copied on the other
	 * stream while the kernel runs (a non-blocking stream does not wait
	 * for it) */
	while ((e = cudaStreamQuery(run)) == cudaErrorNotReady) {
		if (progress) {
			if ((e = cudaMemcpyAsync(hdone, ctr + 1, sizeof *hdone,
			    cudaMemcpyDeviceToHost, poll)) != cudaSuccess ||
			    (e = cudaStreamSynchronize(poll)) != cudaSuccess)
				break;
			if ((int64_t)*hdone - shown >= 1024) {
				shown = (int64_t)*hdone;
				progress(shown, n);
			}
		}
		usleep(20000);
	}
	if (e != cudaSuccess ||
	    (e = cudaMemcpyAsync(out, dout, n * sizeof *dout,
	    cudaMemcpyDeviceToHost, run)) != cudaSuccess ||
	    (e = cudaStreamSynchronize(run)) != cudaSuccess) {
		fek_cuda_fail(e, "trajectories");
		goto out;
	}
	if (progress)
		progress(n, n);
	g->st.run_ms += ms_since(&t0);
	rc = 0;
out:
	if (run)
		cudaStreamSynchronize(run);
	cudaFree(dout);
	cudaFree(ctr);
	if (hdone)
		cudaFreeHost(hdone);
	if (poll)
		cudaStreamDestroy(poll);
	if (run)
		cudaStreamDestroy(run);
	return rc;
}

extern "C" int
fek_bd_gpu_eval(struct fek_bd_gpu *g, long n, const double *cfg,
    double *sum, int *overlap)
{
	double *dcfg = NULL, *dsum = NULL;
	int *dov = NULL, rc = -1;
	cudaError_t e;

	if ((e = cudaMalloc(&dcfg, 11 * n * sizeof *dcfg)) != cudaSuccess ||
	    (e = cudaMalloc(&dsum, FEK_BD_NSUM * n * sizeof *dsum)) !=
	    cudaSuccess ||
	    (e = cudaMalloc(&dov, n * sizeof *dov)) != cudaSuccess ||
	    (e = cudaMemcpy(dcfg, cfg, 11 * n * sizeof *dcfg,
	    cudaMemcpyHostToDevice)) != cudaSuccess) {
		fek_cuda_fail(e, "configurations");
		goto out;
	}
	k_eval<<<(unsigned)((32 * n + BD_BLOCK - 1) / BD_BLOCK), BD_BLOCK>>>(
	    g->s, n, dcfg, dsum, dov);
	if (fek_cuda_launched("k_eval") < 0)
		goto out;
	if ((e = cudaMemcpy(sum, dsum, FEK_BD_NSUM * n * sizeof *dsum,
	    cudaMemcpyDeviceToHost)) != cudaSuccess ||
	    (e = cudaMemcpy(overlap, dov, n * sizeof *dov,
	    cudaMemcpyDeviceToHost)) != cudaSuccess) {
		fek_cuda_fail(e, "sums");
		goto out;
	}
	rc = 0;
out:
	cudaFree(dcfg);
	cudaFree(dsum);
	cudaFree(dov);
	return rc;
}

extern "C" int
fek_bd_gpu_phi(struct fek_bd_gpu *g, int which, long n, const double *y,
    double *val, double *grad)
{
	double *dy = NULL, *dv = NULL, *dg = NULL;
	int rc = -1;
	cudaError_t e;

	if ((e = cudaMalloc(&dy, 3 * n * sizeof *dy)) != cudaSuccess ||
	    (e = cudaMalloc(&dv, n * sizeof *dv)) != cudaSuccess ||
	    (e = cudaMalloc(&dg, 3 * n * sizeof *dg)) != cudaSuccess ||
	    (e = cudaMemcpy(dy, y, 3 * n * sizeof *dy,
	    cudaMemcpyHostToDevice)) != cudaSuccess) {
		fek_cuda_fail(e, "points");
		goto out;
	}
	k_phi<<<(unsigned)((n + 255) / 256), 256>>>(g->s, which, n, dy, dv,
	    dg);
	if (fek_cuda_launched("k_phi") < 0)
		goto out;
	if ((e = cudaMemcpy(val, dv, n * sizeof *dv,
	    cudaMemcpyDeviceToHost)) != cudaSuccess ||
	    (e = cudaMemcpy(grad, dg, 3 * n * sizeof *dg,
	    cudaMemcpyDeviceToHost)) != cudaSuccess) {
		fek_cuda_fail(e, "potentials");
		goto out;
	}
	rc = 0;
out:
	cudaFree(dy);
	cudaFree(dv);
	cudaFree(dg);
	return rc;
}

extern "C" void
fek_bd_gpu_stats(const struct fek_bd_gpu *g, struct fek_bd_gpu_stats *st)
{
	*st = g->st;
}

extern "C" void
fek_bd_gpu_free(struct fek_bd_gpu *g)
{
	if (g == NULL)
		return;
	for (int i = 0; i < g->nmem; i++)
		cudaFree(g->mem[i]);
	free(g);
}
