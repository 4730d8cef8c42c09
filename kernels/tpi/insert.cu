/*
 * insert.cu - tpi-gpu's test insertions and deletions on the GPU
 * (lib/tpi/tpi_gpu.h): lib/tpi/insert.c with the arithmetic of
 * lib/tpi/tpi_eval.h, double or mixed precision.  Daly, Benziger, Debenedetti
 * and Panagiotopoulos, Comput. Phys. Commun. 183, 2054 (2012), Algorithm 1
 * ("gather": a thread a move; the frame's cell list built once per frame).
 *
 * Per frame: the host sorts the particles by cell (lib/tpi/frame.c, the
 * CPU's own code) and uploads them with the cell starts and the
 * neighbourhood rows.  Per chunk of insertions:
 *  - k_points: each insertion's cell, and its eighth of the cell, from
 *    its Philox position;
 *  - CUB's radix sort of (cell, eighth, insertion) triples, so that the
 *    32 threads of a warp mostly share a home cell and lie close in it:
 *    they walk the same neighbour runs in step, read the same particle
 *    at once (a broadcast), and mostly agree on which candidates pass
 *    the screen;
 *  - k_energy: persistent blocks, the frame (the single-precision copies
 *    fek_tpi_run screens with) and the cell starts copied into shared
 *    memory where they fit, each thread recomputing its insertion's
 *    position and writing beta u by insertion index.  A warp whose 32
 *    insertions share a home cell (nearly all) lays out the runs of the
 *    neighbourhood once, a lane a row (fek_tpi_seg_next), in shared
 *    memory, rather than each thread finding them; the others call
 *    fek_tpi_energy per thread.  The sums are in the same order either
 *    way, the CPU's;
 *  - the fixed-order sums of each group of FEK_TPI_GROUP moves and the
 *    histogram, merged once a frame (sums.cu, lib/tpi/sums.c's on the
 *    device).
 * Nothing depends on the order of atomics except integer counts: a run
 * gives the same bits every time, for any block size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include "tpi/tpi_eval.h"
extern "C" {
#include "core/fek.h"
#include "tpi/tpi.h"
}
#include "core/cuda_check.cuh"
#include "tpi/sums.cuh"
#include "tpi/tpi_gpu.h"

#define CHUNK (1L << 22)	/* insertions a chunk (a multiple of GROUP) */
#define SEGR 3			/* runs a row may break into on a warp's
				   shared layout (more: each thread alone) */
#define FULL 0xffffffffu

struct fek_tpi_gpu {
	int dev, nsm;
	size_t smem_max;		/* shared memory a block may have */
	struct fek_tpi_gpu_stats st;
	/* the frame */
	struct fek_tpi_atom *atom;
	struct fek_tpi_atomf *af;	/* float copies of the positions */
	int *cstart, *delidx;
	double *orig, *delr;
	struct fek_tpi_row *rows;
	struct fek_pair_coef *coef;	/* the inserted type's, with each */
	struct fek_tpi_coeff *cf;	/* the same, single precision */
	long cap_atom, cap_af, cap_cell, cap_row, cap_del, cap_orig, cap_delr;
	double *tab;
	/* a chunk */
	int *cell, *kidx, *cell_s, *kidx_s;
	double *bu;
	struct fek_tpi_part *part;	/* a frame's groups */
	struct fek_tpi_part *spart;	/* the same, merged (sums.cu) */
	long cap_part, cap_spart;
	unsigned long long *hist;	/* 2 (nbins + 2): insertions, deletions */
	void *tmp;
	size_t tmp_bytes;
	int nbits;			/* the sort's key bits */
	int block;			/* threads of k_energy */
};

/* What k_energy and k_delete are told. */
struct kframe {
	struct fek_tpi_grid g;
	int style, single;
	long n;
	double beta, du;
	uint64_t key, fid;
	long long base;
	int subbits;			/* k_points: 3 (the eighth of the cell
					   in the sort key) or 0 */
	int warp;			/* k_energy: rows laid out a warp at a
					   time (every row has <= SEGR runs) */
	unsigned rows_bytes, cells_bytes;	/* shared memory layout */
	unsigned cells_at;		/* where the cell starts begin */
};

static double
ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) *
	    1e-6;
}

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) return fek_cuda_fail(e_, what); } while (0)

__global__ void
k_points(long n, struct kframe kf, int *cell, int *kidx)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double s[3], r[3];

	if (k >= n)
		return;
	fek_tpi_point(kf.key, kf.fid, (uint64_t)(kf.base + k), &kf.g.box, s, r);
	cell[k] = fek_tpi_cell(&kf.g, s);
	if (kf.subbits) {
		int e = ((int)floor(s[0] * 2 * kf.g.nc[0]) & 1) |
		    ((int)floor(s[1] * 2 * kf.g.nc[1]) & 1) << 1 |
		    ((int)floor(s[2] * 2 * kf.g.nc[2]) & 1) << 2;

		cell[k] = cell[k] << 3 | e;
	}
	kidx[k] = (int)k;
}

/* Shared memory of k_energy: coefficients and rows, each warp's runs,
 * then, where they fit, the cell starts and the float copies of the
 * positions. */
static size_t
rows_bytes(const struct fek_tpi_grid *g)
{
	return ((size_t)g->nrow * sizeof(struct fek_tpi_row) + 31) / 32 * 32;
}

static size_t
cells_bytes(const struct fek_tpi_grid *g)
{
	return ((size_t)(g->ncell + 1) * sizeof(int) + 31) / 32 * 32;
}

static size_t
segs_bytes(int block)
{
	return (size_t)block * SEGR * sizeof(struct fek_tpi_seg);
}

static size_t
energy_smem(const struct fek_tpi_grid *g, long n, int with_atoms, int block)
{
	size_t b = FEK_PMD_MAXTYPES * (sizeof(struct fek_pair_coef) +
	    sizeof(struct fek_tpi_coeff)) + rows_bytes(g) + segs_bytes(block);

	b = (b + 31) / 32 * 32;
	return b + (with_atoms ? cells_bytes(g) + (size_t)n * sizeof(struct fek_tpi_atomf) :
	    0);
}

/* The energy of each lane's test particle at r (act: the lane has one),
 * all in home cell h: the warp lays out the runs of up to 32 rows at a
 * time in segw, a lane a row, and every lane sums over them in order. */
template <bool SINGLE, bool MIXED> __device__ double
warp_energy(const struct fek_tpi_grid *g, const struct fek_tpi_row *rows,
    const double *orig, const int *cstart, const struct fek_tpi_view *v,
    const double *r, int h, int act, struct fek_tpi_seg *segw)
{
	const int lane = threadIdx.x & 31, nx = g->nc[0], ny = g->nc[1];
	const int hx = h % nx, hy = (h / nx) % ny, hz = h / (nx * ny);
	double u = 0;

	for (int rb = 0; rb < g->nrow; rb += 32) {
		int q = rb + lane, cnt = 0, nl = g->nrow - rb;

		if (q < g->nrow) {
			int cx = hx + rows[q].dx0, zero;

			while (cnt < SEGR && fek_tpi_seg_next(g, orig, cstart,
			    &rows[q], hx, hy, hz, &cx, &segw[lane * SEGR + cnt],
			    &zero))
				cnt++;
		}
		__syncwarp();
		if (nl > 32)
			nl = 32;
		for (int l = 0; l < nl; l++) {
			int c = __shfl_sync(FULL, cnt, l);

			for (int i = 0; i < c; i++) {
				const struct fek_tpi_seg *sg = &segw[l * SEGR +
				    i];
				double p[3] = { r[0] - sg->s[0], r[1] - sg->s[1],
				    r[2] - sg->s[2] };

				if (act)
					u += fek_tpi_run(v, g->rcf2, SINGLE,
					    MIXED, p, sg->j0, sg->j1, -1);
			}
		}
		__syncwarp();
	}
	return u;
}

template <bool SMEM, bool SINGLE, bool MIXED> __global__ void
__launch_bounds__(1024, 1)
k_energy(long n, struct kframe kf, const struct fek_tpi_atomf *af_g,
    const struct fek_tpi_atom *atom, const int *cstart_g,
    const struct fek_tpi_row *rows_g, const double *orig,
    const struct fek_pair_coef *coef_g, const struct fek_tpi_coeff *cf_g,
    const double *tab, const int *cell_s, const int *kidx_s, double *bu)
{
	extern __shared__ double4_32a smem[];
	struct fek_pair_coef *coef = (struct fek_pair_coef *)smem;
	struct fek_tpi_coeff *cf = (struct fek_tpi_coeff *)(coef +
	    FEK_PMD_MAXTYPES);
	struct fek_tpi_row *rows = (struct fek_tpi_row *)(cf +
	    FEK_PMD_MAXTYPES);
	struct fek_tpi_seg *segs = (struct fek_tpi_seg *)((char *)rows +
	    kf.rows_bytes);
	int *cstart_s = (int *)((char *)smem + kf.cells_at);
	struct fek_tpi_atomf *af_s = (struct fek_tpi_atomf *)((char *)cstart_s +
	    kf.cells_bytes);
	const int *cstart = SMEM ? cstart_s : cstart_g;
	struct fek_tpi_seg *segw = segs + (threadIdx.x / 32) * 32 * SEGR;
	struct fek_tpi_view v;
	long nwarp = (long)gridDim.x * (blockDim.x / 32);

	for (int i = threadIdx.x; i < FEK_PMD_MAXTYPES; i += blockDim.x) {
		coef[i] = coef_g[i];
		cf[i] = cf_g[i];
	}
	for (int i = threadIdx.x; i < kf.g.nrow; i += blockDim.x)
		rows[i] = rows_g[i];
	if (SMEM) {
		for (long i = threadIdx.x; i <= kf.g.ncell; i += blockDim.x)
			cstart_s[i] = cstart_g[i];
		for (long i = threadIdx.x; i < kf.n; i += blockDim.x)
			af_s[i] = af_g[i];
	}
	__syncthreads();
	v.af = SMEM ? af_s : af_g;
	v.atom = atom;
	v.coef = coef;
	v.cf = cf;
	v.tab = tab;
	v.style = kf.style;
	/* a warp takes 32 consecutive insertions of the sorted order */
	for (long q0 = (blockIdx.x * (long)(blockDim.x / 32) + threadIdx.x /
	    32) * 32; q0 < n; q0 += nwarp * 32) {
		long q = q0 + (threadIdx.x & 31);
		int act = q < n, h = act ? cell_s[q] >> kf.subbits : -1;
		long k = act ? kidx_s[q] : 0;
		int h0 = __shfl_sync(FULL, h, 0);
		double s[3], r[3], u = 0;

		if (act)
			fek_tpi_point(kf.key, kf.fid, (uint64_t)(kf.base + k),
			    &kf.g.box, s, r);
		if (kf.warp && __all_sync(FULL, !act || h == h0))
			u = warp_energy<SINGLE, MIXED>(&kf.g, rows, orig,
			    cstart, &v, r, h0, act, segw);
		else if (act)
			u = fek_tpi_energy(&kf.g, rows, orig, cstart, &v,
			    SINGLE, MIXED, r, h, -1);
		if (act)
			bu[k] = kf.beta * (u + kf.du);
	}
}

/* Deletion q: particle delidx[q] of the sorted frame, at delr[3 q]. */
__global__ void
k_delete(long n, struct kframe kf, const struct fek_tpi_atomf *af,
    const struct fek_tpi_atom *atom, const int *cstart,
    const struct fek_tpi_row *rows, const double *orig,
    const struct fek_pair_coef *coef, const double *tab, const int *delidx,
    const double *delr, double *bu)
{
	long q = blockIdx.x * (long)blockDim.x + threadIdx.x;
	struct fek_tpi_view v;
	double s[3], u;

	if (q >= n)
		return;
	v.af = af;
	v.atom = atom;
	v.coef = coef;
	v.cf = NULL;
	v.tab = tab;
	v.style = kf.style;
	fek_box_frac(&kf.g.box, delr + 3 * q, s);
	u = fek_tpi_energy(&kf.g, rows, orig, cstart, &v, kf.single, 0,
	    delr + 3 * q, fek_tpi_cell(&kf.g, s), delidx[q]);
	bu[q] = kf.beta * (u + kf.du);
}

/* Let kernel f have all the shared memory a block may. */
template <typename F> static cudaError_t
smem_attr(F f, const struct fek_tpi_gpu *g)
{
	return cudaFuncSetAttribute(f,
	    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->smem_max);
}

extern "C" struct fek_tpi_gpu *
fek_tpi_gpu_new(const struct fek_tpi_par *par)
{
	struct fek_tpi_gpu *g;
	struct cudaDeviceProp prop;
	struct timespec t0;
	cudaError_t e;
	const char *env;
	long cap = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	g = (struct fek_tpi_gpu *)fek_alloc(1, sizeof *g);
	if ((e = cudaGetDevice(&g->dev)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&prop, g->dev)) != cudaSuccess) {
		fek_cuda_fail(e, "device");
		free(g);
		return NULL;
	}
	snprintf(g->st.device, sizeof g->st.device, "%s", prop.name);
	g->nsm = prop.multiProcessorCount;
	g->smem_max = prop.sharedMemPerBlockOptin;
	g->block = 1024;
	if ((env = getenv("FEK_TPI_BLOCK")) != NULL && atoi(env) >= 32 &&
	    atoi(env) <= 1024 && atoi(env) % 32 == 0)
		g->block = atoi(env);
	if (fek_cuda_grow(&g->cell, &cap, CHUNK, "cells") < 0 ||
	    (cap = 0, fek_cuda_grow(&g->kidx, &cap, CHUNK, "insertions")) <
	    0 || (cap = 0, fek_cuda_grow(&g->cell_s, &cap, CHUNK, "cells")) <
	    0 || (cap = 0, fek_cuda_grow(&g->kidx_s, &cap, CHUNK,
	    "insertions")) < 0 ||
	    (cap = 0, fek_cuda_grow(&g->bu, &cap, CHUNK, "energies")) < 0 ||
	    (cap = 0, fek_cuda_grow(&g->hist, &cap, 2 * (par->nbins + 2),
	    "histogram")) < 0 ||
	    (cap = 0, fek_cuda_grow(&g->coef, &cap, FEK_PMD_MAXTYPES,
	    "coefficients")) < 0 ||
	    (cap = 0, fek_cuda_grow(&g->cf, &cap, FEK_PMD_MAXTYPES,
	    "coefficients")) < 0)
		goto fail;
	if ((e = cub::DeviceRadixSort::SortPairs(NULL, g->tmp_bytes, g->cell,
	    g->cell_s, g->kidx, g->kidx_s, (int)CHUNK, 0, 32)) != cudaSuccess ||
	    (e = cudaMalloc(&g->tmp, g->tmp_bytes)) != cudaSuccess) {
		fek_cuda_fail(e, "sort buffers");
		goto fail;
	}
	if (par->pp->ntab > 0) {
		if ((e = cudaMalloc(&g->tab, 2 * par->pp->ntab *
		    sizeof(double))) != cudaSuccess ||
		    (e = cudaMemcpy(g->tab, par->pp->tab, 2 * par->pp->ntab *
		    sizeof(double), cudaMemcpyHostToDevice)) != cudaSuccess) {
			fek_cuda_fail(e, "table");
			goto fail;
		}
	}
	if ((e = smem_attr(k_energy<true, true, true>, g)) != cudaSuccess ||
	    (e = smem_attr(k_energy<true, true, false>, g)) != cudaSuccess ||
	    (e = smem_attr(k_energy<true, false, true>, g)) != cudaSuccess ||
	    (e = smem_attr(k_energy<true, false, false>, g)) != cudaSuccess ||
	    (e = smem_attr(k_energy<false, true, true>, g)) != cudaSuccess ||
	    (e = smem_attr(k_energy<false, true, false>, g)) != cudaSuccess ||
	    (e = smem_attr(k_energy<false, false, true>, g)) != cudaSuccess ||
	    (e = smem_attr(k_energy<false, false, false>, g)) != cudaSuccess) {
		fek_cuda_fail(e, "shared memory");
		goto fail;
	}
	g->st.setup_ms = ms_since(&t0);
	return g;
fail:
	fek_tpi_gpu_free(g);
	return NULL;
}

/* Upload the frame. */
static int
upload(struct fek_tpi_gpu *g, const struct fek_tpi_frame *tf)
{
	long need = tf->n > 0 ? tf->n : 1;
	long norig = 3L * tf->g.nc[1] * tf->g.nc[2];

	if (fek_cuda_grow(&g->atom, &g->cap_atom, need, "particles") < 0 ||
	    fek_cuda_grow(&g->af, &g->cap_af, need, "particles") < 0 ||
	    fek_cuda_grow(&g->cstart, &g->cap_cell, tf->g.ncell + 1,
	    "cells") < 0 ||
	    fek_cuda_grow(&g->rows, &g->cap_row, tf->g.nrow, "rows") < 0 ||
	    fek_cuda_grow(&g->delidx, &g->cap_del, tf->ndel > 0 ? tf->ndel :
	    1, "deletions") < 0 ||
	    fek_cuda_grow(&g->delr, &g->cap_delr, 3 * (tf->ndel > 0 ?
	    tf->ndel : 1), "deletions") < 0 ||
	    fek_cuda_grow(&g->orig, &g->cap_orig, norig, "cells") < 0)
		return -1;
	CK(cudaMemcpy(g->coef, tf->coef, sizeof tf->coef,
	    cudaMemcpyHostToDevice), "coefficients");
	CK(cudaMemcpy(g->cf, tf->cf, sizeof tf->cf, cudaMemcpyHostToDevice),
	    "coefficients");
	CK(cudaMemcpy(g->orig, tf->orig, norig * sizeof *tf->orig,
	    cudaMemcpyHostToDevice), "cells");
	if (tf->ndel > 0) {
		CK(cudaMemcpy(g->delidx, tf->delidx, tf->ndel * sizeof(int),
		    cudaMemcpyHostToDevice), "deletions");
		CK(cudaMemcpy(g->delr, tf->delr, 3 * tf->ndel * sizeof(double),
		    cudaMemcpyHostToDevice), "deletions");
	}
	CK(cudaMemcpy(g->atom, tf->atom, tf->n * sizeof *tf->atom,
	    cudaMemcpyHostToDevice), "particles");
	CK(cudaMemcpy(g->af, tf->atomf, tf->n * sizeof *tf->atomf,
	    cudaMemcpyHostToDevice), "particles");
	CK(cudaMemcpy(g->cstart, tf->cstart, (tf->g.ncell + 1) *
	    sizeof *tf->cstart, cudaMemcpyHostToDevice), "cells");
	CK(cudaMemcpy(g->rows, tf->rows, tf->g.nrow * sizeof *tf->rows,
	    cudaMemcpyHostToDevice), "rows");
	return 0;
}

extern "C" int
fek_tpi_gpu_frame(struct fek_tpi_gpu *g, const struct fek_tpi_frame *tf,
    const struct fek_tpi_par *par, uint64_t fid, struct fek_tpi_result *res)
{
	struct kframe kf;
	struct timespec t0;
	long ngi = (long)((par->nins + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP);
	long ndel = par->del ? tf->ndel : 0;
	long ngd = (ndel + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP;
	long ns = par->nbins + 2;
	size_t sm_all = energy_smem(&tf->g, tf->n, 1, g->block);
	int smem = sm_all <= g->smem_max && getenv("FEK_TPI_NOSMEM") == NULL;
	cudaError_t e;
	int nbits = 1;

	memset(&kf, 0, sizeof kf);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((1L << nbits) < tf->g.ncell)
		nbits++;
	kf.subbits = nbits + 3 <= 31 ? 3 : 0;
	nbits += kf.subbits;
	if (upload(g, tf) < 0 || fek_cuda_grow(&g->part, &g->cap_part, ngi + ngd + 1,
	    "sums") < 0)
		return -1;
	CK(cudaMemset(g->hist, 0, 2 * ns * sizeof *g->hist), "histogram");
	g->st.upload_ms += ms_since(&t0);
	g->st.smem = smem;

	kf.g = tf->g;
	kf.warp = tf->g.maxrun <= SEGR && getenv("FEK_TPI_NOWARP") == NULL;
	kf.style = par->pp->style;
	kf.single = tf->single;
	kf.n = tf->n;
	kf.beta = par->beta;
	kf.key = par->key;
	kf.rows_bytes = (unsigned)rows_bytes(&tf->g);
	kf.cells_bytes = (unsigned)cells_bytes(&tf->g);
	kf.fid = fid;

	/* insertions */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kf.du = tf->du_ins;
	if (par->raw && res->capins < par->nins) {
		res->capins = (long)par->nins;
		res->u_ins = (double *)realloc(res->u_ins, res->capins *
		    sizeof(double));
		if (res->u_ins == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory (raw energies)");
	}
	for (long long base = 0; base < par->nins; base += CHUNK) {
		long n = par->nins - base < CHUNK ? (long)(par->nins - base) :
		    CHUNK;
		unsigned nb = (unsigned)((n + 255) / 256);
		long blocks = (n + g->block - 1) / g->block;
		size_t sm = energy_smem(&tf->g, tf->n, smem, g->block);
		int per_sm = (int)(g->smem_max / (sm + 1024));

		kf.cells_at = (unsigned)energy_smem(&tf->g, 0, 0, g->block);
		if (per_sm < 1)
			per_sm = 1;
		if (per_sm > 2048 / g->block)
			per_sm = 2048 / g->block;
		if (blocks > (long)per_sm * g->nsm)
			blocks = (long)per_sm * g->nsm;
		kf.base = base;
		k_points<<<nb, 256>>>(n, kf, g->cell, g->kidx);
		if (fek_cuda_launched("k_points") < 0)
			return -1;
		e = cub::DeviceRadixSort::SortPairs(g->tmp, g->tmp_bytes,
		    g->cell, g->cell_s, g->kidx, g->kidx_s, (int)n, 0, nbits);
		if (e != cudaSuccess)
			return fek_cuda_fail(e, "sort");
#define K_ENERGY(S, T, M) k_energy<S, T, M><<<(unsigned)blocks, g->block, \
	    sm>>>(n, kf, g->af, g->atom, g->cstart, g->rows, g->orig, g->coef, \
	    g->cf, g->tab, g->cell_s, g->kidx_s, g->bu)
		switch ((smem ? 4 : 0) | (tf->single ? 2 : 0) | tf->mixed) {
		case 7: K_ENERGY(true, true, true); break;
		case 6: K_ENERGY(true, true, false); break;
		case 5: K_ENERGY(true, false, true); break;
		case 4: K_ENERGY(true, false, false); break;
		case 3: K_ENERGY(false, true, true); break;
		case 2: K_ENERGY(false, true, false); break;
		case 1: K_ENERGY(false, false, true); break;
		default: K_ENERGY(false, false, false); break;
		}
#undef K_ENERGY
		if (fek_cuda_launched("k_energy") < 0)
			return -1;
		if (fek_tpi_gpu_reduce(par, g->bu, n, 0, g->part + base /
		    FEK_TPI_GROUP, g->hist, g->nsm) < 0)
			return -1;
		if (par->raw)
			CK(cudaMemcpy(res->u_ins + base, g->bu, n *
			    sizeof(double), cudaMemcpyDeviceToHost),
			    "energies");
	}
	CK(cudaDeviceSynchronize(), "insertions");
	g->st.insert_ms += ms_since(&t0);

	/* deletions */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ndel > 0) {
		kf.du = tf->du_del;
		k_delete<<<(unsigned)((ndel + 127) / 128), 128>>>(ndel, kf,
		    g->af, g->atom, g->cstart, g->rows, g->orig, g->coef, g->tab,
		    g->delidx, g->delr, g->bu);
		if (fek_cuda_launched("k_delete") < 0 ||
		    fek_tpi_gpu_reduce(par, g->bu, ndel, 1, g->part + ngi,
		    g->hist + ns, g->nsm) < 0)
			return -1;
		if (par->raw) {
			if (res->capdel < ndel) {
				res->capdel = ndel;
				res->u_del = (double *)realloc(res->u_del,
				    ndel * sizeof(double));
				if (res->u_del == NULL)
					fek_errx(FEK_EX_SOFTWARE, "out of "
					    "memory (raw energies)");
			}
			CK(cudaMemcpy(res->u_del, g->bu, ndel * sizeof(double),
			    cudaMemcpyDeviceToHost), "energies");
		}
		CK(cudaDeviceSynchronize(), "deletions");
	}
	g->st.delete_ms += ms_since(&t0);

	/* results: the groups combined on the device, then on the host */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (fek_tpi_gpu_results(par, g->part, ngi, ngd, ndel, g->hist,
	    &g->spart, &g->cap_spart, res) < 0)
		return -1;
	g->st.fetch_ms += ms_since(&t0);
	return 0;
}

extern "C" void
fek_tpi_gpu_stats(const struct fek_tpi_gpu *g, struct fek_tpi_gpu_stats *st)
{
	*st = g->st;
}

extern "C" void
fek_tpi_gpu_free(struct fek_tpi_gpu *g)
{
	if (g == NULL)
		return;
	cudaFree(g->atom);
	cudaFree(g->af);
	cudaFree(g->cstart);
	cudaFree(g->delidx);
	cudaFree(g->delr);
	cudaFree(g->orig);
	cudaFree(g->rows);
	cudaFree(g->coef);
	cudaFree(g->cf);
	cudaFree(g->tab);
	cudaFree(g->cell);
	cudaFree(g->kidx);
	cudaFree(g->cell_s);
	cudaFree(g->kidx_s);
	cudaFree(g->bu);
	cudaFree(g->part);
	cudaFree(g->spart);
	cudaFree(g->hist);
	cudaFree(g->tmp);
	free(g);
}
