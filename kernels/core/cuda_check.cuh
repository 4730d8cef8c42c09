/*
 * cuda_check.cuh - CUDA error reporting shared by the kernels' host code:
 * a failed call or launch becomes fek_seterr(70, "CUDA: what: reason"),
 * and FEK_CUDA_SYNC=1 makes every launch check synchronous, so an error
 * is reported at the kernel that caused it.
 */
#ifndef FEK_CUDA_CHECK_CUH
#define FEK_CUDA_CHECK_CUH

#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "core/fek.h"
}

static inline int
fek_cuda_fail(cudaError_t rc, const char *what)
{
	return fek_seterr(FEK_EX_SOFTWARE, "CUDA: %s: %s", what,
	    cudaGetErrorString(rc));
}

/* After a launch: its error, or with FEK_CUDA_SYNC=1 its completion. */
static inline int
fek_cuda_launched(const char *what)
{
	cudaError_t rc = cudaGetLastError();
	const char *sync = getenv("FEK_CUDA_SYNC");

	if (rc == cudaSuccess && sync != NULL && strcmp(sync, "1") == 0)
		rc = cudaDeviceSynchronize();
	return rc == cudaSuccess ? 0 : fek_cuda_fail(rc, what);
}

/* A device copy of n bytes at p in *dst (NULL for none). */
static inline cudaError_t
fek_cuda_up(void **dst, const void *p, size_t n)
{
	cudaError_t e;

	*dst = NULL;
	if (n == 0)
		return cudaSuccess;
	if ((e = cudaMalloc(dst, n)) != cudaSuccess)
		return e;
	return cudaMemcpy(*dst, p, n, cudaMemcpyHostToDevice);
}

/* The device buffer *p grown to hold need items (a quarter more and 64
 * kept in hand), its contents not kept; *cap its items.  -1 with
 * fek_seterr(70) when the device has not the memory. */
template <typename T> static inline int
fek_cuda_grow(T **p, long *cap, long need, const char *what)
{
	cudaError_t e;

	if (need <= *cap)
		return 0;
	cudaFree(*p);
	*p = NULL;
	*cap = 0;
	if ((e = cudaMalloc((void **)p, (size_t)(need + need / 4 + 64) *
	    sizeof(T))) != cudaSuccess)
		return fek_cuda_fail(e, what);
	*cap = need + need / 4 + 64;
	return 0;
}

#endif
