/*
 * gpu_stub.c - the GPU entry points of a build without nvcc: no device,
 * so -d gpu exits 69 and -d auto runs on the CPU.
 */
#include <stdio.h>

#include "../kernels/device.cuh"

int
fek_gpu_probe(char *why, size_t len)
{
	snprintf(why, len, "fek was built without CUDA (nvcc not found)");
	return 0;
}

#include "wham_backend.h"

int
wham_gpu_backend(const struct wham_problem *p, const struct wham_factors *f,
    struct wham_backend *be)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}
