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
 *
 * The end: trajectory lengths are roughly exponential, so the last ones
 * a warp takes up run on alone for several mean lengths while most warps
 * have nothing to do.  When the queue is empty and no more trajectories
 * run than the blocks the GPU holds at once, the warps pause theirs
 * (bd_traj.h) and a second kernel resumes each on a block of
 * FEK_BD_SUBLANES warps, which sums a configuration's atoms four times
 * as wide in the same order (bd_eval.h): the same numbers, sooner.
 *
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

#define BD_BLOCK (32 * FEK_BD_SUBLANES)	/* threads a block: 4 warps */
#ifndef BD_MINBLOCKS
#define BD_MINBLOCKS 4		/* blocks an SM: 128 registers, some spilt;
				   x1.45 capped, x1.15 whole runs over 2 */
#endif

struct fek_bd_gpu {
	struct fek_bd_sys s;		/* with device pointers */
	void *mem[16];			/* what s points to, to free */
	int nmem;
	int nsm, blocks, tailblocks;
	int tail;			/* 0: warps only, 1: the end in blocks,
					   2: blocks throughout */
	struct fek_bd_gpu_stats st;
};

/* A trajectory a warp paused, for a block to resume. */
struct bd_parked {
	struct fek_bd_state st;
	unsigned long long i;		/* its index in the run */
};

/* The counters of a run, in device memory. */
struct bd_counters {
	unsigned long long next;	/* trajectories taken up */
	unsigned long long done;	/* finished */
	unsigned long long idle;	/* warps that found none to take */
	unsigned long long parked;	/* paused by warps */
	unsigned long long resumed;	/* taken up again by blocks */
	unsigned long long inblocks;	/* finished by blocks */
	unsigned int stop;		/* the warps are to pause */
};

static double
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* The tree of the lane sums, the result in every lane. */
__device__ static void
warp_tree(double *acc, double *sum)
{
	const unsigned full = 0xffffffffu;

	for (int off = FEK_BD_LANES / 2; off > 0; off /= 2)
		for (int k = 0; k < FEK_BD_NSUM; k++)
			acc[k] += __shfl_down_sync(full, acc[k], off);
	for (int k = 0; k < FEK_BD_NSUM; k++)
		sum[k] = __shfl_sync(full, acc[k], 0);
}

/* A warp's sums (bd_eval.h's order: each lane its four sub-lanes in
 * turn, added as fek_bd_lane_sum adds them), the result in every lane;
 * nonzero on overlap in any lane.  The lane's running fold waits in
 * shared memory (its own slots, volatile so that it stays there) while
 * it sums a sub-lane: held in registers it made the kernel spill in the
 * atoms' loop, 1.4x slower (bench/RESULTS.md). */
__device__ static int
warp_eval(const struct fek_bd_sys *s, const double *r, const double *qa,
    const double *qb, double *sum)
{
	__shared__ double fold[BD_BLOCK / 32][FEK_BD_NSUM][FEK_BD_LANES];
	const int lane = threadIdx.x & 31;
	volatile double (*f)[FEK_BD_LANES] = fold[threadIdx.x / 32];
	double acc[FEK_BD_NSUM], RA[9], RB[9];
	int ov = 0;

	fek_bd_quat_matrix(qa, RA);
	fek_bd_quat_matrix(qb, RB);
#pragma unroll 1
	for (int j = 0; j < FEK_BD_SUBLANES; j++) {
		for (int k = 0; k < FEK_BD_NSUM; k++)
			acc[k] = 0.0;
		ov |= fek_bd_sublane_terms(s, r, RA, RB,
		    lane + FEK_BD_LANES * j, acc);
		for (int k = 0; k < FEK_BD_NSUM; k++)
			f[k][lane] = j == 0 ? acc[k] : f[k][lane] + acc[k];
	}
	for (int k = 0; k < FEK_BD_NSUM; k++)
		acc[k] = f[k][lane];
	warp_tree(acc, sum);
	return __any_sync(0xffffffffu, ov);
}

/* A block's sums: warp w runs sub-lane lane + 32 w, warp 0 adds the four
 * in fek_bd_lane_sum's order and runs the tree; the result in every
 * thread.  Every thread of the block calls it. */
__device__ static int
block_eval(const struct fek_bd_sys *s, const double *r, const double *qa,
    const double *qb, double *sum)
{
	__shared__ double part[FEK_BD_SUBLANES][FEK_BD_NSUM][FEK_BD_LANES];
	__shared__ double total[FEK_BD_NSUM];
	const int lane = threadIdx.x & 31, w = threadIdx.x / 32;
	double acc[FEK_BD_NSUM], RA[9], RB[9];
	int ov;

	fek_bd_quat_matrix(qa, RA);
	fek_bd_quat_matrix(qb, RB);
	for (int k = 0; k < FEK_BD_NSUM; k++)
		acc[k] = 0.0;
	ov = fek_bd_sublane_terms(s, r, RA, RB, lane + FEK_BD_LANES * w,
	    acc);
	for (int k = 0; k < FEK_BD_NSUM; k++)
		part[w][k][lane] = acc[k];
	ov = __syncthreads_or(ov);
	if (w == 0) {
		for (int k = 0; k < FEK_BD_NSUM; k++) {
			acc[k] = part[0][k][lane];
			for (int j = 1; j < FEK_BD_SUBLANES; j++)
				acc[k] += part[j][k][lane];
		}
		warp_tree(acc, acc);
		if (lane == 0)
			for (int k = 0; k < FEK_BD_NSUM; k++)
				total[k] = acc[k];
	}
	/* part is written again only after the next call's sums, which
	 * every thread reaches after reading total here */
	__syncthreads();
	for (int k = 0; k < FEK_BD_NSUM; k++)
		sum[k] = total[k];
	return ov;
}

/* Whether the warps are to pause, the same answer in every lane. */
__device__ static int
warp_paused(const unsigned int *stop)
{
	unsigned int v = 0;

	if ((threadIdx.x & 31) == 0)
		v = *(volatile const unsigned int *)stop;
	return __shfl_sync(0xffffffffu, v, 0) != 0;
}

#define FEK_BD_TRAJ_FN __device__ static int warp_trajectory
#define FEK_BD_TRAJ_ARGS , const unsigned int *stop
#define FEK_BD_EVAL(r, qa, qb, sum) warp_eval(s, r, qa, qb, sum)
#define FEK_BD_LOG(st) 0
#define FEK_BD_PAUSE() warp_paused(stop)
#include "bd/bd_traj.h"
#undef FEK_BD_TRAJ_FN
#undef FEK_BD_TRAJ_ARGS
#undef FEK_BD_EVAL
#undef FEK_BD_PAUSE

#define FEK_BD_TRAJ_FN __device__ static int block_trajectory
#define FEK_BD_TRAJ_ARGS
#define FEK_BD_EVAL(r, qa, qb, sum) block_eval(s, r, qa, qb, sum)
#define FEK_BD_PAUSE() 0
#include "bd/bd_traj.h"

/* Persistent warps: each takes trajectories first + i, i from c->next,
 * until n are taken.  A warp that finds none left counts itself idle;
 * the one that leaves no more than `slots` warps busy sets c->stop, and
 * the busy warps pause their trajectories into parked[] (at most
 * `slots`, the blocks k_blocks holds at once; slots < 0: never).  The
 * counters are in device memory with device-scope atomics: the host
 * reads c->done by an asynchronous copy on a stream of its own
 * (fek_bd_gpu_run), since system-scope atomics on host memory need
 * hostNativeAtomicSupported, which PCIe cards lack. */
__global__ static void __launch_bounds__(BD_BLOCK, BD_MINBLOCKS)
k_warps(struct fek_bd_sys s, int64_t first, int64_t n, long long warps,
    long long slots, struct bd_counters *c, struct bd_parked *parked,
    struct fek_bd_outcome *out)
{
	const int lane = threadIdx.x & 31;
	struct fek_bd_state st;

	for (;;) {
		unsigned long long i = 0;
		struct fek_bd_outcome o;

		if (lane == 0)
			i = atomicAdd(&c->next, 1ULL);
		i = __shfl_sync(0xffffffffu, i, 0);
		if (i >= (unsigned long long)n) {
			if (lane == 0 && slots >= 0 &&
			    (long long)atomicAdd(&c->idle, 1ULL) + 1 >=
			    warps - slots)
				atomicExch(&c->stop, 1u);
			return;
		}
		if (warp_trajectory(&s, first + (int64_t)i, &o, &st, 0,
		    &c->stop) == FEK_BD_PAUSED) {
			if (lane == 0) {
				unsigned long long k = atomicAdd(&c->parked,
				    1ULL);

				parked[k].st = st;
				parked[k].i = i;
			}
			return;
		}
		if (lane == 0) {
			out[i] = o;
			atomicAdd(&c->done, 1ULL);
		}
	}
}

/* Persistent blocks: each resumes the next paused trajectory, and when
 * none is left takes new ones from c->next (all of them when no warps
 * ran). */
__global__ static void __launch_bounds__(BD_BLOCK, BD_MINBLOCKS)
k_blocks(struct fek_bd_sys s, int64_t first, int64_t n,
    struct bd_counters *c, const struct bd_parked *parked,
    struct fek_bd_outcome *out)
{
	__shared__ unsigned long long take[2];	/* index, resumed */
	struct fek_bd_state st;

	for (;;) {
		unsigned long long i, k;
		struct fek_bd_outcome o;
		int resume;

		if (threadIdx.x == 0) {
			k = atomicAdd(&c->resumed, 1ULL);
			if (k < *(volatile unsigned long long *)&c->parked) {
				take[0] = parked[k].i;
				take[1] = k;
			} else {
				take[0] = atomicAdd(&c->next, 1ULL);
				take[1] = ~0ULL;
			}
		}
		__syncthreads();
		i = take[0];
		k = take[1];
		__syncthreads();
		if (i >= (unsigned long long)n && k == ~0ULL)
			return;
		resume = k != ~0ULL;
		if (resume)
			st = parked[k].st;
		block_trajectory(&s, first + (int64_t)i, &o, &st, resume);
		if (threadIdx.x == 0) {
			out[i] = o;
			atomicAdd(&c->done, 1ULL);
			atomicAdd(&c->inblocks, 1ULL);
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
	const char *env;
	int dev, per_sm = 0, tail_sm = 0, np = s->rxn.gstart[s->rxn.ncontact];

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
	if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm,
	    k_warps, BD_BLOCK, 0)) != cudaSuccess ||
	    (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tail_sm,
	    k_blocks, BD_BLOCK, 0)) != cudaSuccess) {
		fek_cuda_fail(e, "occupancy");
		goto fail;
	}
	g->blocks = g->nsm * (per_sm > 0 ? per_sm : 1);
	g->tailblocks = g->nsm * (tail_sm > 0 ? tail_sm : 1);
	g->st.warps = g->blocks * (BD_BLOCK / 32);
	g->st.tailblocks = g->tailblocks;
	/* FEK_BD_BLOCKS: 0, the warps run every trajectory to its end; all,
	 * blocks run every one; else blocks take over the end */
	env = getenv("FEK_BD_BLOCKS");
	g->tail = env && strcmp(env, "0") == 0 ? 0 :
	    env && strcmp(env, "all") == 0 ? 2 : 1;
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
	struct bd_counters *c = NULL, *hc = NULL;
	struct bd_parked *parked = NULL;
	cudaStream_t run = NULL, poll = NULL;
	struct timespec t0;
	cudaError_t e;
	int rc = -1;
	int64_t shown = 0;
	long long warps = g->st.warps, slots = g->tail == 1 ? g->tailblocks :
	    -1;

	if (n == 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* the outcomes zeroed first: the kernels write each one whole, but
	 * a struct's padding (after fate) is never written, and the copy
	 * back would read it uninitialised */
	if ((e = cudaStreamCreateWithFlags(&run, cudaStreamNonBlocking)) !=
	    cudaSuccess ||
	    (e = cudaStreamCreateWithFlags(&poll, cudaStreamNonBlocking)) !=
	    cudaSuccess ||
	    (e = cudaMalloc(&dout, n * sizeof *dout)) != cudaSuccess ||
	    (e = cudaMalloc(&c, sizeof *c)) != cudaSuccess ||
	    (e = cudaMalloc(&parked, warps * sizeof *parked)) !=
	    cudaSuccess ||
	    (e = cudaMallocHost(&hc, sizeof *hc)) != cudaSuccess ||
	    (e = cudaMemsetAsync(dout, 0, n * sizeof *dout, run)) !=
	    cudaSuccess ||
	    (e = cudaMemsetAsync(c, 0, sizeof *c, run)) != cudaSuccess) {
		fek_cuda_fail(e, "trajectory buffers");
		goto out;
	}
	memset(hc, 0, sizeof *hc);
	if (g->tail != 2) {
		k_warps<<<g->blocks, BD_BLOCK, 0, run>>>(g->s, first, n, warps,
		    slots, c, parked, dout);
		if (fek_cuda_launched("k_warps") < 0)
			goto out;
	}
	if (g->tail != 0) {
		k_blocks<<<g->tailblocks, BD_BLOCK, 0, run>>>(g->s, first, n, c,
		    parked, dout);
		if (fek_cuda_launched("k_blocks") < 0)
			goto out;
	}
	/* wait, reporting progress from the counter, copied on the other
	 * stream while the kernels run (a non-blocking stream does not wait
	 * for them) */
	while ((e = cudaStreamQuery(run)) == cudaErrorNotReady) {
		if (progress) {
			if ((e = cudaMemcpyAsync(&hc->done, &c->done,
			    sizeof hc->done, cudaMemcpyDeviceToHost, poll)) !=
			    cudaSuccess ||
			    (e = cudaStreamSynchronize(poll)) != cudaSuccess)
				break;
			if ((int64_t)hc->done - shown >= 1024) {
				shown = (int64_t)hc->done;
				progress(shown, n);
			}
		}
		usleep(20000);
	}
	if (e != cudaSuccess ||
	    (e = cudaMemcpyAsync(out, dout, n * sizeof *dout,
	    cudaMemcpyDeviceToHost, run)) != cudaSuccess ||
	    (e = cudaMemcpyAsync(hc, c, sizeof *hc, cudaMemcpyDeviceToHost,
	    run)) != cudaSuccess ||
	    (e = cudaStreamSynchronize(run)) != cudaSuccess) {
		fek_cuda_fail(e, "trajectories");
		goto out;
	}
	if (hc->done != (unsigned long long)n) {
		fek_seterr(FEK_EX_SOFTWARE, "GPU: %llu of %lld trajectories "
		    "finished", hc->done, (long long)n);
		goto out;
	}
	if (progress)
		progress(n, n);
	g->st.run_ms += ms_since(&t0);
	g->st.parked += (long long)hc->parked;
	g->st.inblocks += (long long)hc->inblocks;
	rc = 0;
out:
	if (run)
		cudaStreamSynchronize(run);
	cudaFree(dout);
	cudaFree(c);
	cudaFree(parked);
	if (hc)
		cudaFreeHost(hc);
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
