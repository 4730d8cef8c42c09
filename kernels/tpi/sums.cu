/*
 * sums.cu - a frame's Boltzmann sums and histogram of test moves on the
 * GPU (sums.cuh): lib/tpi/sums.c's fixed-order groups (k_groups: the tree
 * of fek_tpi_group in a block), combined MERGEB at a time on the device
 * (k_merge) and then on the host by fek_tpi_merge, and the histogram
 * (k_hist: shared-memory counts added to global memory once a block).
 * Daly et al., Comput. Phys. Commun. 183, 2054 (2012), Eqs. 3-4 (TPI) and
 * the overlap sums of its BAR; nothing depends on the order of atomics
 * but integer counts, so a run gives the same bits every time.
 */
#include <math.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "tpi/tpi_eval.h"
extern "C" {
#include "core/fek.h"
#include "tpi/tpi.h"
}
#include "core/cuda_check.cuh"
#include "tpi/sums.cuh"

#define GROUPT (FEK_TPI_GROUP / 2)	/* threads of k_groups */
#define HISTB 256		/* threads of k_hist */
#define MAXSHIST 12288		/* histogram slots kept in shared memory */
#define MERGEB 512		/* groups a block of k_merge combines */

/* Group blockIdx.x of the n moves bu: lib/tpi/sums.c's fek_tpi_group. */
__global__ static void
k_groups(long n, const double *bu, int del, struct fek_tpi_part *part)
{
	__shared__ double t[GROUPT];
	__shared__ double mx[GROUPT];
	long k0 = (long)blockIdx.x * FEK_TPI_GROUP;
	int i = threadIdx.x;
	long a = k0 + i, b = k0 + i + GROUPT;
	double va = a < n ? bu[a] : 0, vb = b < n ? bu[b] : 0;
	double xa = a < n ? (del ? va : -va) : -INFINITY;
	double xb = b < n ? (del ? vb : -vb) : -INFINITY;
	double m;

	mx[i] = xa > xb ? xa : xb;
	__syncthreads();
	for (int s = GROUPT / 2; s > 0; s >>= 1) {
		if (i < s && mx[i + s] > mx[i])
			mx[i] = mx[i + s];
		__syncthreads();
	}
	m = mx[0];
	for (int w = 0; w < 3; w++) {
		__syncthreads();
		t[i] = (a < n ? fek_tpi_term(va, del, m, w) : 0) +
		    (b < n ? fek_tpi_term(vb, del, m, w) : 0);
		__syncthreads();
		for (int s = GROUPT / 2; s > 0; s >>= 1) {
			if (i < s)
				t[i] += t[i + s];
			__syncthreads();
		}
		if (i == 0)
			(&part[blockIdx.x].sT)[w] = t[0];
	}
	if (i == 0)
		part[blockIdx.x].m = m;
}

/* Groups blockIdx.x MERGEB .. of the n groups p combined into
 * q[blockIdx.x], relative to their largest exponent, as fek_tpi_merge
 * combines groups (del: the deletions' sU is a plain sum), so that the
 * host merges a few hundred rather than a million a frame. */
__global__ static void
k_merge(long n, const struct fek_tpi_part *p, int del, struct fek_tpi_part *q)
{
	__shared__ double t[MERGEB];
	long k = (long)blockIdx.x * MERGEB + threadIdx.x;
	int i = threadIdx.x;
	struct fek_tpi_part a = { -INFINITY, 0, 0, 0 };
	double m, e;

	if (k < n)
		a = p[k];
	t[i] = a.m;
	__syncthreads();
	for (int s = MERGEB / 2; s > 0; s >>= 1) {
		if (i < s && t[i + s] > t[i])
			t[i] = t[i + s];
		__syncthreads();
	}
	m = t[0];
	e = a.m == -INFINITY ? 0 : exp(a.m - m);
	for (int w = 0; w < 3; w++) {
		__syncthreads();
		t[i] = w == 0 ? a.sT * e : w == 1 ? a.sO * sqrt(e) :
		    del ? a.sU : a.sU * e;
		__syncthreads();
		for (int s = MERGEB / 2; s > 0; s >>= 1) {
			if (i < s)
				t[i] += t[i + s];
			__syncthreads();
		}
		if (i == 0)
			(&q[blockIdx.x].sT)[w] = t[0];
	}
	if (i == 0)
		q[blockIdx.x].m = m;
}

/* Histogram of the n moves bu into h (nb + 2 slots). */
__global__ static void
k_hist(long n, const double *bu, double lo, double w, long nb,
    unsigned long long *h, int shared)
{
	extern __shared__ unsigned int sh[];
	long ns = nb + 2;

	if (shared) {
		for (long i = threadIdx.x; i < ns; i += blockDim.x)
			sh[i] = 0;
		__syncthreads();
	}
	for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < n;
	    k += (long)gridDim.x * blockDim.x) {
		long b = fek_tpi_slot(bu[k], lo, w, nb);

		if (shared)
			atomicAdd(&sh[b], 1u);
		else
			atomicAdd(&h[b], 1ull);
	}
	if (shared) {
		__syncthreads();
		for (long i = threadIdx.x; i < ns; i += blockDim.x)
			if (sh[i] != 0)
				atomicAdd(&h[i], (unsigned long long)sh[i]);
	}
}

int
fek_tpi_gpu_reduce(const struct fek_tpi_par *par, const double *bu, long n,
    int del, struct fek_tpi_part *part, unsigned long long *hist, int nsm)
{
	long ng = (n + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP;
	long ns = par->nbins + 2;
	int shared = ns <= MAXSHIST;
	long nblk = (n + HISTB - 1) / HISTB;

	if (n == 0)
		return 0;
	k_groups<<<(unsigned)ng, GROUPT>>>(n, bu, del, part);
	if (fek_cuda_launched("k_groups") < 0)
		return -1;
	if (nblk > 4L * nsm)
		nblk = 4L * nsm;
	k_hist<<<(unsigned)nblk, HISTB, shared ? ns * sizeof(unsigned) : 0>>>(
	    n, bu, par->hlo, par->hw, par->nbins, hist, shared);
	return fek_cuda_launched("k_hist");
}

int
fek_tpi_gpu_results(const struct fek_tpi_par *par,
    const struct fek_tpi_part *part, long ngi, long ngd, long ndel,
    const unsigned long long *hist, struct fek_tpi_part **spart, long *cap,
    struct fek_tpi_result *res)
{
	long si = (ngi + MERGEB - 1) / MERGEB;
	long sd = (ngd + MERGEB - 1) / MERGEB;
	long ns = par->nbins + 2;
	struct fek_tpi_part *hpart;
	unsigned long long *hh;
	cudaError_t e;

	if (fek_cuda_grow(spart, cap, si + sd + 1, "sums") < 0)
		return -1;
	if (si > 0)
		k_merge<<<(unsigned)si, MERGEB>>>(ngi, part, 0, *spart);
	if (sd > 0)
		k_merge<<<(unsigned)sd, MERGEB>>>(ngd, part + ngi, 1,
		    *spart + si);
	if (fek_cuda_launched("k_merge") < 0)
		return -1;
	hpart = (struct fek_tpi_part *)fek_alloc(si + sd + 1, sizeof *hpart);
	hh = (unsigned long long *)fek_alloc(2 * ns, sizeof *hh);
	if ((si + sd > 0 && (e = cudaMemcpy(hpart, *spart, (si + sd) *
	    sizeof *hpart, cudaMemcpyDeviceToHost)) != cudaSuccess) ||
	    (e = cudaMemcpy(hh, hist, 2 * ns * sizeof *hh,
	    cudaMemcpyDeviceToHost)) != cudaSuccess) {
		free(hpart);
		free(hh);
		return fek_cuda_fail(e, "sums");
	}
	fek_tpi_merge(hpart, si, 0, par->nins, res);
	fek_tpi_merge(hpart + si, sd, 1, ndel, res);
	for (long b = 0; b < ns; b++) {
		res->hins[b] = (long long)hh[b];
		res->hdel[b] = (long long)hh[ns + b];
	}
	free(hpart);
	free(hh);
	return 0;
}
