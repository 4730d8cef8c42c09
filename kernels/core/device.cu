/*
 * device.cu - the CUDA device probe behind -d gpu|auto.  A device counts as
 * usable when the runtime reports one and a context can be made on it.
 * FEK_CUDA_SYNC=1 is honoured by the kernels' launch checks
 * (kernels/core/cuda_check.cuh).
 */
#include <stdio.h>

#include <cuda_runtime.h>

#include "core/device_gpu.h"

extern "C" int
fek_gpu_probe(char *why, size_t len)
{
	int n = 0;
	cudaError_t rc;

	rc = cudaGetDeviceCount(&n);
	if (rc != cudaSuccess) {
		snprintf(why, len, "%s", cudaGetErrorString(rc));
		return 0;
	}
	if (n == 0) {
		snprintf(why, len, "no CUDA device");
		return 0;
	}
	rc = cudaFree(0);
	if (rc != cudaSuccess) {
		snprintf(why, len, "cannot create a context: %s",
		    cudaGetErrorString(rc));
		return 0;
	}
	return n;
}
